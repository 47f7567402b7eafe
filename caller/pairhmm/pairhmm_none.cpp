// CPU-only build: the GPU pair-HMM engine cannot be constructed; callers check
// device_available() (always false here) or choose_backend() first.
#include "common/error.hpp"
#include "caller/pairhmm/pairhmm.hpp"

namespace gatemap::caller::pairhmm {

struct PairHmmGpu::Impl {};

PairHmmGpu::PairHmmGpu(int) : impl_(nullptr) {
  throw Error("pair-HMM GPU engine requested but this gatemap was built without CUDA");
}
PairHmmGpu::~PairHmmGpu() = default;
int PairHmmGpu::kernel_shapes() { return 0; }
std::string PairHmmGpu::kernel_shape_name(int) { return ""; }
void PairHmmGpu::force_kernel_shape(int) {}
void PairHmmGpu::compute(const PairHmmBatch&, const PairHmmOptions&, std::vector<double>&, PairHmmStats*) {}

}  // namespace gatemap::caller::pairhmm

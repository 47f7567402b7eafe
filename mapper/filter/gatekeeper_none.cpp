// CPU-only build: the GPU engine cannot be constructed; callers check
// device_available() (always false here) before asking for it.
#include "common/error.hpp"
#include "mapper/filter/gatekeeper.hpp"

namespace gatemap::mapper::filter {

struct GateKeeperGpu::Impl {};

GateKeeperGpu::GateKeeperGpu(const FilterReference&, int) : impl_(nullptr) {
  throw Error("GateKeeper GPU engine requested but this gatemap was built without CUDA");
}
GateKeeperGpu::~GateKeeperGpu() = default;
int GateKeeperGpu::submit(const FilterReads&, const FilterCandidates&, int, bool) { return -1; }
void GateKeeperGpu::collect(int, std::vector<uint8_t>&, FilterTiming*) {}
void GateKeeperGpu::filter(const FilterReads&, const FilterCandidates&, int, std::vector<uint8_t>&, bool,
                           FilterTiming*) {}

}  // namespace gatemap::mapper::filter

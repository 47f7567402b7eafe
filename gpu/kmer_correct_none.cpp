// CPU-only build: the GPU corrector cannot be constructed.
#include "common/error.hpp"
#include "gpu/kmer_correct.hpp"

namespace gatemap::gpu {

struct KmerCorrectGpu::Impl {};

KmerCorrectGpu::KmerCorrectGpu(const KmerSpectrum&) : impl_(nullptr) {
  throw Error("GPU error correction requested but this gatemap was built without CUDA");
}
KmerCorrectGpu::~KmerCorrectGpu() = default;
void KmerCorrectGpu::correct(const CorrectOptions&, CorrectBatch&, double*) {}

}  // namespace gatemap::gpu

// CPU-only build: the GPU corrector cannot be constructed.
#include "common/error.hpp"
#include "correct/kmer_correct.hpp"

namespace gatemap::correct {

struct KmerCorrectGpu::Impl {};

KmerCorrectGpu::KmerCorrectGpu(const KmerSpectrum&, int) : impl_(nullptr) {
  throw Error("GPU error correction requested but this gatemap was built without CUDA");
}
KmerCorrectGpu::KmerCorrectGpu(SharingSpectrum, const KmerCorrectGpu&) : impl_(nullptr) {
  throw Error("GPU error correction requested but this gatemap was built without CUDA");
}
KmerCorrectGpu::~KmerCorrectGpu() = default;
void KmerCorrectGpu::correct(const CorrectOptions&, CorrectBatch&, double*) {}

}  // namespace gatemap::correct

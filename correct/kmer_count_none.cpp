// CPU-only build: the GPU count table cannot be constructed.
#include "common/error.hpp"
#include "correct/kmer_count_gpu.hpp"

namespace gatemap::correct {

struct KmerCountGpu::Impl {};

KmerCountGpu::KmerCountGpu(int, size_t, int, size_t) : impl_(nullptr) {
  throw Error("GPU k-mer counting requested but this gatemap was built without CUDA");
}
KmerCountGpu::~KmerCountGpu() = default;
int KmerCountGpu::k() const { return 0; }
void KmerCountGpu::reset(KmerPart) {}
void KmerCountGpu::add(const std::vector<io::Read>&, std::vector<KmerPart>&) {}
KmerPart KmerCountGpu::part() const { return {}; }
uint64_t KmerCountGpu::kmers_seen() const { return 0; }
uint64_t KmerCountGpu::distinct() const { return 0; }
std::vector<uint64_t> KmerCountGpu::histogram(uint32_t) const { return {}; }
void KmerCountGpu::for_each_counted(uint32_t, const std::function<void(uint64_t, uint32_t)>&) const {}
size_t KmerCountGpu::bytes() const { return 0; }
void KmerCountGpu::insert_solid(uint32_t, KmerSpectrum&) const {}
KmerSpectrum KmerCountGpu::take_exact_spectrum(uint32_t, uint64_t, bool) { return {}; }
size_t KmerCountGpu::slots() const { return 0; }
double KmerCountGpu::kernel_ms() const { return 0; }

}  // namespace gatemap::correct

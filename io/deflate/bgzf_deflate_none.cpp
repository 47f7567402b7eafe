// CPU-only build: the GPU's BGZF compressor cannot be made (the twin still can).
#include "common/error.hpp"
#include "io/deflate/bgzf_deflate.hpp"

namespace gatemap::io {

struct BgzfDeflateGpu::Impl {};

BgzfDeflateGpu::BgzfDeflateGpu(int, int, size_t) { throw CudaError("this gatemap was built without CUDA"); }
BgzfDeflateGpu::~BgzfDeflateGpu() = default;
void BgzfDeflateGpu::compress(BgzfJob*, size_t) {}
void BgzfDeflateGpu::start(BgzfJob*, size_t) {}
void BgzfDeflateGpu::finish() {}
double BgzfDeflateGpu::kernel_seconds() const { return 0; }
double BgzfDeflateGpu::match_seconds() const { return 0; }

}  // namespace gatemap::io

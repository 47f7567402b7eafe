// CPU-only build: no GPU verifier; the mapper verifies on the CPU.
#include "common/error.hpp"
#include "mapper/verify/verify_gpu.hpp"

namespace gatemap::mapper::verifying {

struct VerifyGpu::Impl {};

VerifyGpu::VerifyGpu(int, const filter::FilterReference&, int64_t) {
  throw CudaError("GPU verification requested but this gatemap was built without CUDA");
}
VerifyGpu::~VerifyGpu() = default;
void VerifyGpu::verify(const DeviceReads&, const std::vector<VerifyJob>&, const JobFilter&, std::vector<uint8_t>&,
                       std::vector<BandResult>&, VerifyTiming*) {}
void VerifyGpu::verify_clusters(const DeviceReads&, const DeviceClusters&, const JobFilter&,
                                std::vector<VerifiedCluster>&, VerifyCounts&, VerifyTiming*) {}
void VerifyGpu::clip_distances(const DeviceReads&, const std::vector<ClipJob>&, std::vector<ClipResult>&) {}

}  // namespace gatemap::mapper::verifying

// CPU-only build: no GPU verifier; the mapper verifies on the CPU.
#include "common/error.hpp"
#include "mapper/seeding/verify_gpu.hpp"

namespace gatemap::mapper::seeding {

struct VerifyGpu::Impl {};

VerifyGpu::VerifyGpu(int) { throw CudaError("GPU verification requested but this gatemap was built without CUDA"); }
VerifyGpu::~VerifyGpu() = default;
void VerifyGpu::verify(const DeviceReads&, const std::vector<VerifyJob>&, std::vector<BandResult>&, double*) {}

}  // namespace gatemap::mapper::seeding

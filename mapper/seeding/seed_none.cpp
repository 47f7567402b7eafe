// CPU-only build: there is no GPU seeder; the mapper seeds on the CPU.
#include "common/error.hpp"
#include "mapper/seeding/seed_gpu.hpp"

namespace gatemap::mapper::seeding {

struct SeedGpu::Impl {};

SeedGpu::SeedGpu(const index::Index&, int, int64_t, int64_t) {
  throw CudaError("GPU seeding requested but this gatemap was built without CUDA");
}
SeedGpu::~SeedGpu() = default;
void SeedGpu::seed(const std::vector<detail::SeededRead>&, uint32_t, uint32_t, SeedClusters&) {}
void SeedGpu::copy_clusters(SeedClusters&) {}
void SeedGpu::copy_clusters_of(const std::vector<uint32_t>&, const SeedClusters&, std::vector<detail::SeedCluster>&) {}
int64_t SeedGpu::index_bytes() const { return 0; }
DeviceReads SeedGpu::device_reads() const { return {}; }
DeviceClusters SeedGpu::device_clusters() const { return {}; }

}  // namespace gatemap::mapper::seeding

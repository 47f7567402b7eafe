#pragma once
// A batch as seeding leaves it for verification: where it was seeded (decided by the
// seed stage, once per batch) and, when the GPU seeded it, its reads and kept clusters
// on the device. The seed stage implements DeviceSeeds; the verify stage is handed one,
// so verification never calls into the seeder's own type.
#include <cstdint>
#include <vector>

#include "mapper/base/types.hpp"
#include "mapper/seeding/seed_gpu.hpp"

namespace gatemap::mapper::seeding {

enum class SeedsOn {
  kHost,              // seeded on the CPU: each read's candidates in its SeededRead
  kDeviceReads,       // seeded on the GPU: its reads there, the candidates on the host too
  kDeviceCandidates,  // seeded on the GPU, the candidates kept there (SeededRead::cand empty)
};

class DeviceSeeds {
 public:
  virtual int device() const = 0;
  // The batch last seeded on the GPU: valid until the next batch is seeded.
  virtual DeviceReads device_reads() const = 0;
  virtual DeviceClusters device_clusters() const = 0;
  virtual const SeedClusters& clusters() const = 0;
  // With the candidates on the device: the listed reads' candidates, or every read's (on
  // the CPU when the device cannot give them back), into their SeededRead.
  virtual void fetch_candidates(std::vector<detail::SeededRead>& seeded, const std::vector<uint32_t>& reads) = 0;
  virtual void all_candidates(std::vector<detail::SeededRead>& seeded) = 0;

 protected:
  ~DeviceSeeds() = default;
};

}  // namespace gatemap::mapper::seeding

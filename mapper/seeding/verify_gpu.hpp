#pragma once
// Verification on the GPU: the banded Myers distance (myers_core.hpp, the CPU's
// myers_banded_distance) of a batch's candidates, one thread each, on the reads and the
// reference the GPU seeder already holds. Only candidates the bit-vector verifier takes
// (band inside the contig, no N) come here; the rest stay on the CPU.
#include <cstdint>
#include <memory>
#include <vector>

#include "mapper/banded_dp.hpp"
#include "mapper/seeding/seed_gpu.hpp"

namespace gatemap::mapper::seeding {

constexpr uint8_t kSkipJob = 0xff;  // a job's band: not verified (its result stays "none")

struct VerifyJob {
  int64_t diag;    // global position of the read's first base
  uint32_t read;   // in the batch last seeded
  uint8_t strand;  // 1: the reverse complement
  uint8_t band;    // at most kMyersMaxBand, or kSkipJob
  uint8_t max_edits;
};

class VerifyGpu {
 public:
  explicit VerifyGpu(int device);  // throws CudaError when the device fails
  ~VerifyGpu();
  VerifyGpu(const VerifyGpu&) = delete;
  VerifyGpu& operator=(const VerifyGpu&) = delete;

  // One result per job, as myers_banded_distance gives it. Device time in *ms if given.
  void verify(const DeviceReads& reads, const std::vector<VerifyJob>& jobs, std::vector<BandResult>& out,
              double* ms = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gatemap::mapper::seeding

#pragma once
// Seeding a batch (mapper stage 1): every read's codes and threshold on the CPU threads,
// then its candidates on the GPU seeder (seeding/seed_gpu.hpp) with --backend gpu, or on
// the CPU (seed.cpp). Both give the same candidates. A GPU that cannot hold the index,
// or fails a batch, leaves the work to the CPU with a warning.
#include <future>
#include <memory>
#include <vector>

#include "index/index.hpp"
#include "io/fastq.hpp"
#include "mapper/mapper.hpp"
#include "mapper/seeding/seed_gpu.hpp"
#include "mapper/types.hpp"
#include "mapper/workspace.hpp"

namespace gatemap::mapper::detail {

class SeedStage {
 public:
  SeedStage(const index::Index& idx, const MapOptions& opt, const Hardware& hw);
  ~SeedStage();
  SeedStage(const SeedStage&) = delete;
  SeedStage& operator=(const SeedStage&) = delete;

  // Seeds the batch into `seeded` (one per read); true when the GPU did (its reads are
  // then on the device: gpu()->device_reads()). One batch at a time (it runs on a thread
  // beside the stages that finish the previous batch: it has its own scratch).
  // cluster_of: when the GPU seeded every read, the seeder's kept cluster (on the device:
  // gpu()->device_clusters()) of each candidate, the reads' candidates one after another;
  // else empty.
  bool run(const io::ReadBatch& batch, std::vector<SeededRead>& seeded, std::vector<uint32_t>& cluster_of,
           MapStats& stats);
  const seeding::SeedGpu* gpu() const { return gpu_.get(); }
  int device() const { return device_; }
  // Whether a GPU seeder was asked for (set once: the caller's thread may ask while the
  // engine is being made; batches go to the CPU when it could not be).
  bool on_gpu() const { return wants_gpu_; }

 private:
  void candidates_on_cpu(std::vector<SeededRead>& seeded);
  void candidates_from_gpu(std::vector<SeededRead>& seeded, std::vector<uint32_t>& cluster_of);

  const index::Index& idx_;
  const MapOptions& opt_;
  int device_ = 0;
  bool wants_gpu_ = false;
  std::unique_ptr<seeding::SeedGpu> gpu_;
  // The index goes up to the device on a thread of its own while the first batch is read.
  std::future<std::unique_ptr<seeding::SeedGpu>> gpu_pending_;
  seeding::SeedClusters clusters_;
  std::vector<SeedScratch> scratch_;  // one per OpenMP thread of the team that runs the batch
};

}  // namespace gatemap::mapper::detail

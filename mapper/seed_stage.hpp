#pragma once
// Seeding a batch (mapper stage 1): every read's codes and threshold on the CPU threads,
// then its candidates on the GPU seeder (seeding/seed_gpu.hpp) with --backend gpu, or on
// the CPU (seeding/seed_cpu.cpp). Both give the same candidates. A GPU that cannot hold the index,
// or fails a batch, leaves the work to the CPU with a warning.
#include <future>
#include <memory>
#include <vector>

#include "index/index.hpp"
#include "io/reads/fastq.hpp"
#include "mapper/base/map_stats.hpp"
#include "mapper/base/options.hpp"
#include "mapper/base/types.hpp"
#include "mapper/base/workspace.hpp"
#include "mapper/seeding/device_seeds.hpp"
#include "mapper/seeding/seed_gpu.hpp"

namespace gatemap::mapper::detail {

class SeedStage final : public seeding::DeviceSeeds {
 public:
  SeedStage(const index::Index& idx, const MapOptions& opt, const Hardware& hw);
  ~SeedStage();
  SeedStage(const SeedStage&) = delete;
  SeedStage& operator=(const SeedStage&) = delete;

  // Seeds the batch into `seeded` (one per read) and says where (seeding::SeedsOn): with
  // kDeviceCandidates each read's flags are set but its `cand` is empty until
  // fetch_candidates or all_candidates fills it. One batch at a time (it runs on a thread
  // beside the stages that finish the previous batch: it has its own scratch).
  seeding::SeedsOn run(const io::ReadBatch& batch, std::vector<SeededRead>& seeded, MapStats& stats);
  // seeding::DeviceSeeds, for the verify stage.
  void fetch_candidates(std::vector<SeededRead>& seeded, const std::vector<uint32_t>& reads) override;
  void all_candidates(std::vector<SeededRead>& seeded) override;
  seeding::DeviceReads device_reads() const override { return gpu_->device_reads(); }
  seeding::DeviceClusters device_clusters() const override { return gpu_->device_clusters(); }
  const seeding::SeedClusters& clusters() const override { return clusters_; }
  int device() const override { return device_; }
  // Whether a GPU seeder was asked for (set once: the caller's thread may ask while the
  // engine is being made; batches go to the CPU when it could not be).
  bool on_gpu() const { return wants_gpu_; }

 private:
  void candidates_on_cpu(std::vector<SeededRead>& seeded);
  // The GPU's kept clusters -> candidates, or (all on the GPU) only the reads' flags.
  bool candidates_from_gpu(std::vector<SeededRead>& seeded);
  // Read r's candidates from its kept clusters (both strands, from `clusters`).
  void kept_candidates(int64_t r, const detail::SeedCluster* clusters, SeededRead& w, SeedScratch& scratch) const;

  const index::Index& idx_;
  const MapOptions& opt_;
  int device_ = 0;
  bool wants_gpu_ = false;
  std::unique_ptr<seeding::SeedGpu> gpu_;
  // The index goes up to the device on a thread of its own while the first batch is read.
  std::future<std::unique_ptr<seeding::SeedGpu>> gpu_pending_;
  seeding::SeedClusters clusters_;
  std::vector<SeedCluster> fetched_;  // fetch_candidates: the listed reads' clusters
  std::vector<int64_t> fetched_at_;
  std::vector<SeedScratch> scratch_;  // one per OpenMP thread of the team that runs the batch
};

}  // namespace gatemap::mapper::detail

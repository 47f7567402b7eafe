#pragma once
// Verification (mapper stage 4): a batch's candidates -> hits per read, wherever the
// seeds left them. With the GPU seeding, the filter and the bit-vector run on the device
// over the seeder's reads (verify/verify_gpu.hpp); when the candidates stayed there, only
// the hits (and the candidates the bit-vector does not take) come back. Otherwise, or
// when the device fails a batch, the filter stage's codes and the CPU verifier
// (verify/verifier.hpp). Then the fallback: the deep search of repetitive reads and the
// clipped fallback of reads without a hit (its verifications on the device when it can).
// Every path gives the same hits.
#include <memory>
#include <vector>

#include "io/reads/fastq.hpp"
#include "mapper/base/map_stats.hpp"
#include "mapper/base/options.hpp"
#include "mapper/base/reference.hpp"
#include "mapper/base/workspace.hpp"
#include "mapper/candidates.hpp"
#include "mapper/seeding/device_seeds.hpp"
#include "mapper/verify/device_verdicts.hpp"
#include "mapper/verify/verifier.hpp"
#include "mapper/verify/verify_gpu.hpp"

namespace gatemap::mapper::detail {

// One batch's verification state from begin() to fallback(); its buffers are reused by
// later batches. Only VerifyStage reads or writes it.
class BatchVerification {
  friend class VerifyStage;
  bool verdicts_ready = false;               // the candidates stayed on the device: hits from verdicts
  std::vector<verifying::VerifyJob> jobs;    // per host candidate: the GPU's job
  std::vector<BandResult> device_result;     // per host candidate: the GPU's result
  std::vector<verifying::VerifiedCluster> kept;  // candidates on the device: what came back,
  DeviceVerdicts verdicts;                       // ordered per read
  // Reads without a hit: the clipped fallback's verifications done on the device, read
  // r's in [clip_first[r], clip_first[r + 1]) (empty: none done).
  std::vector<verifying::ClipJob> clip_jobs;
  std::vector<verifying::ClipResult> clip_results;
  std::vector<int64_t> clip_first;
  std::vector<uint8_t> deep;  // reads the fallback seeds again deeper
};

class VerifyStage {
 public:
  // verifier: the CPU twin (placement uses it too); workspaces: one per OpenMP thread.
  VerifyStage(const Reference& ref, const Verifier& verifier, const MapOptions& opt, bool filter_on,
              int64_t verify_jobs_limit, std::vector<Workspace>& workspaces);
  ~VerifyStage();
  VerifyStage(const VerifyStage&) = delete;
  VerifyStage& operator=(const VerifyStage&) = delete;

  // Starts a batch seeded as `seeds_on` says: on the GPU when the seeds are there (every
  // candidate filtered and verified on the device); true then. False when the host
  // verifies it (seeded on the CPU, no GPU verifier, or the device failed the batch: the
  // candidates are then all on the host): the caller runs the filter stage into `codes`.
  bool begin(const io::ReadBatch& batch, seeding::SeedsOn seeds_on, seeding::DeviceSeeds& seeds,
             std::vector<SeededRead>& seeded, CandidateBatch& cand, std::vector<uint8_t>& codes,
             BatchVerification& v, MapStats& stats);
  // The hits of every read: the device's answers, the rest verified on the CPU (the
  // candidates the filter accepted, per `codes`, when the host verifies the batch).
  void hits(const std::vector<SeededRead>& seeded, const CandidateBatch& cand, const std::vector<uint8_t>& codes,
            BatchVerification& v, std::vector<ReadHits>& hits, MapStats& stats);
  // Repetitive reads with poor hits or none: the deep search (not for a mate whose
  // partner is placed well and uniquely); then reads with no hit: the clipped fallback.
  void fallback(const std::vector<SeededRead>& seeded, bool paired, BatchVerification& v, std::vector<ReadHits>& hits,
                MapStats& stats);

 private:
  bool gpu_ready(int device);
  bool verify_host_candidates(const io::ReadBatch& batch, seeding::DeviceSeeds& seeds,
                              const std::vector<SeededRead>& seeded, CandidateBatch& cand, std::vector<uint8_t>& codes,
                              BatchVerification& v, MapStats& stats);
  bool verify_on_device(seeding::DeviceSeeds& seeds, std::vector<SeededRead>& seeded, BatchVerification& v,
                        MapStats& stats);
  void clip_on_device(const seeding::DeviceSeeds& seeds, const std::vector<SeededRead>& seeded, BatchVerification& v);
  void verified_on_host(const std::vector<SeededRead>& seeded, const CandidateBatch& cand,
                        const std::vector<uint8_t>& codes, const BatchVerification& v, std::vector<ReadHits>& hits,
                        MapStats& stats);
  void verified_on_device(const std::vector<SeededRead>& seeded, const BatchVerification& v,
                          std::vector<ReadHits>& hits);
  Workspace& workspace();

  const Reference& ref_;
  const Verifier& verifier_;
  const MapOptions& opt_;
  const bool filter_on_;
  const int64_t verify_jobs_limit_;
  std::vector<Workspace>& workspaces_;
  std::unique_ptr<verifying::VerifyGpu> gpu_;  // made on the worker for the first batch the GPU seeds
  bool gpu_tried_ = false;
};

}  // namespace gatemap::mapper::detail

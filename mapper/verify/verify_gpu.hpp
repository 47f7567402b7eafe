#pragma once
// Filtering and verification on the GPU, on the reads and the reference the GPU seeder
// already holds, one thread per candidate: the GateKeeper code of every candidate (the
// filter stage's own kernel, mapper/filter/gatekeeper_kernel.cuh: the codes its engines
// give), then the banded Myers distance (align/myers_core.hpp, the CPU's
// myers_banded_distance) of those the filter accepts and the bit-vector verifier takes
// (band inside one contig, no N: decided on the device); the rest are verified on the CPU.
#include <cstdint>
#include <memory>
#include <vector>

#include "mapper/align/banded_dp.hpp"
#include "mapper/filter/gatekeeper.hpp"
#include "mapper/seeding/seed_gpu.hpp"

namespace gatemap::mapper::verifying {

using seeding::DeviceClusters;
using seeding::DeviceReads;

constexpr uint8_t kSkipJob = 0xff;  // a job's band: not verified (its result stays "none")
constexpr int kNotVerified = -2;    // a result's edits: the bit-vector verifier does not take the job

struct VerifyJob {
  int64_t diag;    // global position of the read's first base
  uint32_t read;   // in the batch last seeded
  uint8_t strand;  // 1: the reverse complement
  uint8_t band;    // the bit-vector band (wider than kMyersMaxBand: not verified), or kSkipJob
  uint8_t max_edits;
};

// The filter for a batch's jobs: off (every code 0), or on at the batch's one threshold
// e (the largest of its reads', as the filter stage uses).
struct JobFilter {
  bool on = false;
  int e = 0;
  int max_len = 0;  // the batch's longest read
};

// A kept cluster of the seeder whose result the host needs: the filter accepted it and
// the bit-vector found it within its read's threshold (a hit), or does not take it
// (result.edits kNotVerified: the CPU verifies it).
struct VerifiedCluster {
  detail::SeedCluster cluster;
  BandResult result;
  uint32_t index;  // among the batch's kept clusters
};

// What the verifier did with all of a batch's clusters, as the host counts candidates.
struct VerifyCounts {
  int64_t rejected = 0;    // by the filter
  int64_t unfiltered = 0;  // passed unfiltered (N, long reads)
  int64_t accepted = 0;    // passed: verified here or on the CPU
  int64_t on_gpu = 0;      // of those, verified here
};

// The widest band clip_distances takes: its DP rows live in each thread's local memory,
// which the device reserves for every thread it can hold (wider: on the CPU).
constexpr int kMaxClipBand = 32;

// A clipped verification (the fallback's, for reads without a hit): the read's strand at
// diag in a band of `band` (at most kMaxClipBand), either end soft-clipped at
// kClipPenalty plus a quarter per base, within max_cost, inside contig [contig_begin,
// contig_end): as banded_distance with clipping on the window Reference::window gives.
struct ClipJob {
  int64_t diag;
  int64_t contig_begin, contig_end;
  int32_t max_cost;
  uint32_t read;
  uint8_t strand;
  uint8_t band;
};

// A clipped job's answer: banded_distance's, and the read rows [first_row, last_row) its
// best alignment spans before the local ends are clipped (an upper bound on the bases a
// traceback aligns).
struct ClipResult {
  BandResult band;
  int32_t first_row = 0, last_row = 0;
};

struct VerifyTiming {
  double filter_ms = 0;  // device time from the jobs' copy through packing and the GateKeeper kernel
  double verify_ms = 0;  // device time of the Myers kernel and the results' copy back
};

class VerifyGpu {
 public:
  // ref: the filter's view of the reference; its contig bounds and N runs are uploaded
  // (the bases are the seeder's). Throws CudaError when the device fails, or for a batch
  // of more than max_jobs jobs (0: any; an artificial out-of-memory, for tests).
  VerifyGpu(int device, const filter::FilterReference& ref, int64_t max_jobs = 0);
  ~VerifyGpu();
  VerifyGpu(const VerifyGpu&) = delete;
  VerifyGpu& operator=(const VerifyGpu&) = delete;

  // Per job: codes[i], the GateKeeper code (0 with the filter off), and out[i]: no hit
  // when the filter rejects the job or its band is kSkipJob; edits kNotVerified when the
  // bit-vector verifier does not take it (Verifier::myers_applies: the band wider than
  // kMyersMaxBand, or its window not inside one contig or over N; the CPU verifies it);
  // else as myers_banded_distance gives it.
  void verify(const DeviceReads& reads, const std::vector<VerifyJob>& jobs, const JobFilter& filter,
              std::vector<uint8_t>& codes, std::vector<BandResult>& out, VerifyTiming* timing = nullptr);
  // The same for the seeder's kept clusters (one job per cluster, each read's threshold
  // as band and limit, made on the device), of which only those the host needs come
  // back, in cluster order: the hits, and the jobs the bit-vector does not take.
  void verify_clusters(const DeviceReads& reads, const DeviceClusters& clusters, const JobFilter& filter,
                       std::vector<VerifiedCluster>& out, VerifyCounts& counts, VerifyTiming* timing = nullptr);
  // Per job, banded_distance with clipping (its CPU twin) on the seeder's reads: the
  // cost and end of the best clipped alignment, or none above max_cost.
  void clip_distances(const DeviceReads& reads, const std::vector<ClipJob>& jobs, std::vector<ClipResult>& out);

 private:
  struct Impl;
  // Checks the filter's threshold and sizes the device buffers for n jobs.
  void prepare(size_t n, const JobFilter& filter);
  // Filters and verifies the n jobs already in d_jobs (after the start event) on the
  // device; true when the filter ran (its codes in d_codes).
  bool run_jobs(const DeviceReads& reads, int64_t count, int64_t reads_n, const JobFilter& filter);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gatemap::mapper::verifying

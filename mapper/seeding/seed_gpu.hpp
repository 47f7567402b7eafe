#pragma once
// Seeding on the GPU: the index (k-mer table and 2-bit reference) is uploaded once to
// plain device memory; per batch the reads' codes go up, and each read strand's k-mer
// lookups, hit lists, sort and diagonal clusters are computed on the device with the
// CPU's rules (seed_core.hpp), the --max-cand cap included. The kept clusters stay on
// the device (the GPU verifier takes them from there); the host copies back all of them,
// or those of a few reads, when it needs them as candidates: it orders a capped strand's
// by support and names contigs (add_kept_candidates), so the candidates are identical.
// The CPU twin is seed_cpu.cpp.
#include <cstdint>
#include <memory>
#include <vector>

#include "index/index.hpp"
#include "mapper/align/myers.hpp"
#include "mapper/base/types.hpp"

namespace gatemap::mapper::seeding {

// cap_hit's bits: more clusters than max_cand; more than max_cand that can hold a hit
// within the read's threshold (SupportBound).
constexpr uint8_t kCapHit = 1, kCapLeftHits = 2;

// Clusters of one batch, per read strand t = 2 * read + strand (0 forward, 1 reverse):
// all of them, or (cap_hit[t]) the best supported max_cand, in diagonal order.
struct SeedClusters {
  std::vector<int64_t> first;                     // clusters of t: [first[t], first[t + 1])
  const detail::SeedCluster* clusters = nullptr;  // after copy_clusters: n_clusters, in diagonal order within each
  int64_t n_clusters = 0;                         // read strand (the engine's memory: valid until its next seed())
  std::vector<uint8_t> capped;                    // per read strand: a k-mer over max_occ was skipped
  std::vector<uint8_t> cap_hit;                   // per read strand: kCapHit, kCapLeftHits
  std::vector<uint8_t> on_cpu;                    // per read: too many hits for the device, seed it on the CPU
  double kernel_ms = 0;                           // device time of the batch (events)
};

// The reads of the batch last seeded and the reference, on the device (for the GPU
// verifier): valid until the next seed().
struct DeviceReads {
  const uint8_t* codes = nullptr;  // forward codes, read r at [begin[r], begin[r + 1])
  const int64_t* begin = nullptr;
  PlaneRef planes;
};

// The kept clusters of the batch last seeded, on the device, as SeedClusters has them
// (first: the same offsets), and the reads' edit thresholds: valid until the next seed().
struct DeviceClusters {
  const detail::SeedCluster* clusters = nullptr;
  const int64_t* first = nullptr;  // 2 x reads + 1 offsets
  const int32_t* max_edits = nullptr;
  int64_t n_clusters = 0, n_reads = 0;
};

class SeedGpu {
 public:
  // Uploads the index to `device`; throws CudaError when it does not fit in the free
  // device memory (with room for a batch) or the device fails. max_hit_slots: the most
  // hits a chunk of read strands holds (0: a share of the free memory; small values
  // test the chunking and the reads left to the CPU). batch_bytes_limit: the most device
  // memory a batch's reads may take (0: no limit); a larger batch throws CudaError, as
  // running out of device memory does, and the caller seeds it on the CPU.
  SeedGpu(const index::Index& idx, int device, int64_t max_hit_slots = 0, int64_t batch_bytes_limit = 0);
  ~SeedGpu();
  SeedGpu(const SeedGpu&) = delete;
  SeedGpu& operator=(const SeedGpu&) = delete;

  // Clusters of reads whose codes[0] and max_edits are set (codes[1] is not read); the
  // clusters themselves stay on the device (out.clusters null).
  void seed(const std::vector<detail::SeededRead>& reads, uint32_t max_occ, uint32_t max_cand, SeedClusters& out);
  // All kept clusters of the batch last seeded, copied to the host: out.clusters.
  void copy_clusters(SeedClusters& out);
  // The kept clusters of the listed reads of the batch last seeded (both strands, as
  // `batch.first` bounds them), one read after another.
  void copy_clusters_of(const std::vector<uint32_t>& reads, const SeedClusters& batch,
                        std::vector<detail::SeedCluster>& out);
  int64_t index_bytes() const;  // device memory the index takes
  DeviceReads device_reads() const;
  DeviceClusters device_clusters() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gatemap::mapper::seeding

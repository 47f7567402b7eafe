#pragma once
// The mapper's options, one group per stage, and the hardware choice apart from them:
// the algorithm's options decide the records, the hardware only the speed.
#include <cstdint>
#include <string>
#include <vector>

#include "gpu/device.hpp"

namespace gatemap::mapper {

constexpr int kMaxEditsLimit = 64;  // the most -e the filter and the verifier take

struct SeedOptions {
  int max_candidates = 32;  // --max-cand: candidate diagonals verified per read and strand
  uint32_t max_occ = 0;     // --max-occ: skip seeds with more hits (0 = the index's cap)
};

struct VerifyOptions {
  int max_edits = -1;  // -e: edit threshold; -1 = 4% of each read's length (at least 2, at most 64)
};

struct PairOptions {
  double insert_mean = -1;  // --insert: -1 = estimate from confident pairs
  double insert_sd = -1;    // --insert-sd: -1 = a tenth of the mean
};

struct OutputOptions {
  bool all_hits = false;            // -a: report every location within -e as secondary records
  std::string read_group_id;        // from -R, tags every record with RG:Z
  bool copy_comment = false;        // -C: FASTQ comments (SAM tags) onto the records
  bool split_as_secondary = false;  // -M: flag the parts of chimeric reads secondary, not supplementary
  bool split_soft_clip = false;     // -Y: soft-clip (not hard-clip) the parts of chimeric reads
};

struct MapOptions {
  SeedOptions seed;
  bool filter = true;  // --filter off: every candidate is verified (same records, more work)
  VerifyOptions verify;
  PairOptions pair;
  OutputOptions output;
};

// Where the work runs: the same records on any of them.
struct Hardware {
  // --backend (or --filter gpu|cpu): where seeding, the filter and verification run.
  gpu::Backend backend = gpu::Backend::cpu;
  bool encode_on_device = false;             // --encode-on-device
  bool seed_on_gpu = true;                   // --cpu-seed turns it off: seeding on the CPU with a GPU filter
  int64_t seed_batch_bytes_limit = 0;        // device memory a batch's reads may take when seeded (0: any)
  int64_t seed_max_hit_slots = 0;            // seed hits a GPU seeding chunk holds (0: a share of free memory)
  int64_t verify_jobs_limit = 0;  // candidates of a batch the GPU verifier takes (0: any; more: as out of memory)
  std::vector<int> devices = {0};            // --device: batches spread over these GPUs
  int threads = 1;                           // -t
};

// Throws UsageError naming the flag when an option is out of range.
void validate(const MapOptions& opt);

}  // namespace gatemap::mapper

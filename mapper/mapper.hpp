#pragma once
// mapper/: reads -> seeds -> candidate diagonals -> GateKeeper filter (GPU, CPU or off)
// -> banded verification -> best hits, MAPQ, pairing -> SAM records in input order.
// Every input read yields one primary record (unmapped: flag 4).
#include <htslib/sam.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "index/index.hpp"
#include "io/fastq.hpp"

namespace gatemap::mapper {

enum class FilterMode { gpu, cpu, off };

struct MapOptions {
  int max_edits = -1;            // -e: edit threshold; -1 = 4% of each read's length (at least 2)
  int max_candidates = 32;       // --max-cand: candidate diagonals verified per read and strand
  uint32_t max_occ = 0;          // --max-occ: skip seeds with more hits (0 = the index's cap)
  bool all_hits = false;         // -a: report every location within -e as secondary records
  FilterMode filter = FilterMode::cpu;  // --filter
  bool encode_on_device = false;  // --encode-on-device
  int device = 0;                // --device
  int threads = 1;               // -t
  double insert_mean = -1;       // --insert: -1 = estimate from confident pairs
  double insert_sd = -1;         // --insert-sd
  std::string read_group_id;     // from -R, tags every record with RG:Z
  bool copy_comment = false;     // -C: FASTQ comments (SAM tags) onto the records
  bool split_as_secondary = false;  // -M: flag the parts of chimeric reads secondary, not supplementary
  bool split_soft_clip = false;     // -Y: soft-clip (not hard-clip) the parts of chimeric reads
};

// Counts and per-stage times of a run (also written as JSON by --stats).
struct MapStats {
  int64_t reads = 0, candidates = 0, filter_rejected = 0, filter_unfiltered = 0, verified = 0;
  int64_t mapped = 0, unmapped = 0, records = 0, secondary = 0, supplementary = 0, proper_pairs = 0, rescued = 0;
  int64_t capped_reads = 0, candidate_cap_hits = 0, filter_cpu_fallbacks = 0;
  double seed_s = 0, filter_s = 0, filter_kernel_s = 0, verify_s = 0, pair_s = 0, output_s = 0;
  double fallback_s = 0;  // clipped re-alignment of reads with no hit within e (filter or not)
  // Of filter_s on the GPU: the host building the candidate list and packing reads, and
  // the host's time inside the engine's submit and collect (the rest of the GPU's work
  // overlaps the next batch's seeding).
  double filter_prepare_s = 0, filter_engine_s = 0;
  double input_wait_s = 0;  // mapping waiting for reads (input slower than mapping)
  double insert_mean = 0, insert_sd = 0;
  std::string to_json() const;
};

// Maps chunks of reads. Not thread-safe itself; uses OpenMP inside each stage.
class Mapper {
 public:
  Mapper(const index::Index& idx, const MapOptions& opt);
  ~Mapper();
  Mapper(const Mapper&) = delete;
  Mapper& operator=(const Mapper&) = delete;

  // Maps one batch; appends its records (owned by the caller: bam_destroy1) in input order.
  void map_batch(const io::ReadBatch& batch, std::vector<bam1_t*>& out);
  // map_batch in two halves, so that the caller can seed the next batch while the GPU
  // filters this one: begin_batch seeds and starts the filter, finish_batch verifies and
  // builds the records. At most two batches begun and not finished, finished in order;
  // `batch` must stay alive and unchanged in between.
  void begin_batch(const io::ReadBatch& batch);
  void finish_batch(const io::ReadBatch& batch, std::vector<bam1_t*>& out);
  const MapStats& stats() const { return stats_; }

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  MapStats stats_;
};

}  // namespace gatemap::mapper

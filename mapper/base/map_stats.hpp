#pragma once
// The counts and stage times of a mapping run, summed over batches and lanes, reported on
// stderr and as JSON (--stats). Stages fill them (seed_stage, filter_stage, mapper).
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gatemap::mapper {

// Counts and per-stage times of a run (also written as JSON by --stats).
struct MapStats {
  int64_t reads = 0, candidates = 0, filter_rejected = 0, filter_unfiltered = 0, verified = 0;
  int64_t mapped = 0, unmapped = 0, records = 0, secondary = 0, supplementary = 0, proper_pairs = 0, rescued = 0;
  int64_t capped_reads = 0, candidate_cap_hits = 0, filter_cpu_fallbacks = 0, seed_cpu_fallbacks = 0;
  int64_t deep_searches = 0;  // repetitive reads with poor hits seeded again (deep_search.cpp)
  double seed_s = 0, filter_s = 0, filter_kernel_s = 0, verify_s = 0, pair_s = 0, output_s = 0;
  double seed_device_s = 0;    // of seed_s: the GPU seeder's device time (copies and kernels)
  double verify_device_s = 0;  // the GPU verifier's device time (it runs beside the CPU stages)
  int64_t verified_on_gpu = 0;
  double fallback_s = 0;  // clipped re-alignment of reads with no hit within e (filter or not)
  // Of filter_s on the GPU: the host building the candidate list and packing reads, and
  // the host's time inside the engine's submit and collect (the rest of the GPU's work
  // overlaps the next batch's seeding).
  double filter_prepare_s = 0, filter_engine_s = 0;
  double read_s = 0;        // reading and parsing the input (its own thread)
  double input_wait_s = 0;  // mapping waiting for reads (input slower than mapping), summed over lanes
  double begin_wait_s = 0;  // finishing waiting for the batch's seeding (and GPU stages) on the worker
  double output_wait_s = 0;  // reading waiting for a free batch slot (mapping or writing slower than input)
  int64_t duplicate_reads = 0, duplicate_pairs = 0, duplicate_unpaired = 0;  // --markdup
  double insert_mean = 0, insert_sd = 0;
  // Proper pairs by insert size (|TLEN| of mate 1), kInsertBinBp-wide bins; the last holds
  // the longer ones too.
  static constexpr int kInsertBinBp = 20;
  std::array<int64_t, 100> insert_histogram{};
  std::array<int64_t, 61> mapq_histogram{};  // mapped primary records by MAPQ (0..60)
  std::vector<int64_t> aligned_bases;  // per contig (tid): reference bases of primary alignments
  // As JSON (--stats): every count and time of the field table in map_stats.cpp; with the
  // reference's contigs (name, length) the depth of coverage, overall and (up to 200
  // contigs) per contig.
  std::string to_json(const std::vector<std::pair<std::string, int64_t>>& contigs = {}) const;
  // Sums counts and times (the insert size is the other's, when it has one).
  MapStats& operator+=(const MapStats& o);
};

}  // namespace gatemap::mapper

#pragma once
// mapper/: reads -> seeds -> candidates -> GateKeeper filter (GPU, CPU or off) ->
// banded verification -> placement (MAPQ, pairing, rescue, chimeric parts) -> SAM
// records in input order. Every input read yields one primary record (unmapped: flag
// 4). The stages, their types and files: docs/ARCHITECTURE.md.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "index/index.hpp"
#include "io/fastq.hpp"
#include "io/record_pool.hpp"
#include "mapper/options.hpp"

struct bam1_t;  // htslib's record: made by the records stage (mapper/records.hpp)

namespace gatemap::mapper {
namespace detail {
class InsertModelInOrder;  // mapper/insert_model.hpp
}

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
  std::string to_json() const;
  // Sums counts and times (the insert size is the other's, when it has one).
  MapStats& operator+=(const MapStats& o);
};

// Maps chunks of reads. Not thread-safe itself; uses OpenMP inside each stage.
class Mapper {
 public:
  // Throws UsageError for options out of range. With hw.backend gpu the filter's GPU
  // engine is made on a thread of its own; without one every batch takes the CPU twin.
  Mapper(const index::Index& idx, const MapOptions& opt, const Hardware& hw = {});
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
  // Records are filled from `pool`'s spares (given back once written) where it has some;
  // the pool must outlive the mapper.
  void set_record_pool(io::RecordPool* pool);
  // Mappers running at once on one input (one per GPU) place pairs with one insert-size
  // model, shared here, as one mapper would (InsertModelInOrder); before the first batch.
  void share_insert_model(std::shared_ptr<detail::InsertModelInOrder> model);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  MapStats stats_;
};

}  // namespace gatemap::mapper

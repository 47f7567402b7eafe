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
#include "io/bam/record_pool.hpp"
#include "io/reads/fastq.hpp"
#include "mapper/base/map_stats.hpp"
#include "mapper/base/options.hpp"

struct bam1_t;  // htslib's record: made by the records stage (mapper/records.hpp)

namespace gatemap::mapper {
namespace detail {
class InsertModelInOrder;  // mapper/insert_model.hpp
}

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
  // records_per_read, if given, gets each read's number of records appended.
  void begin_batch(const io::ReadBatch& batch);
  void finish_batch(const io::ReadBatch& batch, std::vector<bam1_t*>& out,
                    std::vector<uint32_t>* records_per_read = nullptr);
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

#pragma once
// map's lanes (mapper/run.cpp): the batches of a run (MapItem) taken from the reader by
// one Mapper per lane, mapped, and handed back in input order to the BatchWriter.
#include <htslib/sam.h>

#include <cstdint>
#include <exception>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "common/log.hpp"
#include "common/ordered_lanes.hpp"
#include "index/index.hpp"
#include "io/bam/compress_pool.hpp"
#include "io/reads/fastq.hpp"
#include "mapper/insert_model.hpp"
#include "mapper/mapper.hpp"
#include "mapper/record_output.hpp"
#include "mapper/run.hpp"

namespace gatemap::mapper {

// A batch of reads on its way through the run: read, mapped by a lane, written.
struct MapItem {
  io::RawBatch raw;  // FASTQ/FASTA files: the batch as cut by the reader, parsed by its lane
  std::exception_ptr parse_error;  // thrown by the writer, in input order
  io::ReadBatch reads;
  io::SinglesAmongPairs singles;  // -p: the single reads among the pairs, mapped apart
  int64_t pairs = 0, proper_pairs = 0;  // once mapped (the first batch's say whether mates are mates)
  std::vector<bam1_t*> records;  // once mapped; given to the record pool once written
  io::PreparedRecords prepared;   // or, where the output allows, made ready to write by the lane
  // -p with single reads: each part's records and records per read, merged into
  // `records` in input order once both are mapped.
  std::vector<bam1_t*> single_records;
  std::vector<uint32_t> per_read, single_per_read;
  MapItem() = default;
  MapItem(const MapItem&) = delete;
  MapItem& operator=(const MapItem&) = delete;
  ~MapItem() {
    for (bam1_t* b : records) bam_destroy1(b);  // a run that failed
    for (bam1_t* b : single_records) bam_destroy1(b);
  }
  size_t size() const { return reads.size() + singles.reads.size(); }
  bool mixed() const { return !singles.reads.reads.empty(); }
  // -p: the single reads' records put back among the pairs' in input order.
  void merge_in_input_order() {
    std::vector<bam1_t*> merged;
    merged.reserve(records.size() + single_records.size());
    size_t pair_read = 0, single_read = 0;
    auto from_pairs = records.begin(), from_singles = single_records.begin();
    for (const uint8_t single : singles.single) {
      const size_t n = single ? single_per_read[single_read++] : per_read[pair_read] + per_read[pair_read + 1];
      if (!single) pair_read += 2;
      auto& from = single ? from_singles : from_pairs;
      merged.insert(merged.end(), from, from + static_cast<std::ptrdiff_t>(n));
      from += static_cast<std::ptrdiff_t>(n);
    }
    records.swap(merged);
    single_records.clear();
  }
};
// Batches in memory: three per lane (being parsed, being begun, being finished) and two
// more (being read, being written). Few: a batch's reads are allocated when its slot is
// first used (200 ms per 100k reads), after which the slot's memory is reused.
constexpr size_t kSlotsPerLane = 3;
constexpr size_t kSlotsMore = 2;
// BAM on the GPU: a lane's batches compressed by this many workers at once (each one more
// slot for the lane).
constexpr int kCompressWorkers = 2;

// Where a lane's time went: the run's waits for input and its lanes' part of writing, and
// (-v 4) the lanes of a many-GPU run side by side.
struct LaneLaps {
  int64_t parts = 0;
  double waiting_for_reads = 0, parsing = 0, begin = 0, finish = 0, preparing = 0;
  void say(int lane, const Hardware& hw, const MapStats& st) const;
};

// What a lane maps at a time: an item's reads, or (-p) its single reads.
struct MapPart {
  MapItem* item;
  bool singles;
};

// The mapping lanes of a run: a Mapper each (its own GPU, a share of the threads) taking
// batches from the reader, begun (seeded, and on the GPU filtered and verified, on the
// mapper's worker) while the one before is finished (placed, records built) on the lane,
// and made ready to write where the output allows. The lanes share the insert-size
// model in input order, so any number of them writes one lane's records.
class MapLanes {
 public:
  // compress_in_lanes: each lane's BAM batches compressed on its GPU by a pool of its own.
  MapLanes(const RunOptions& opt, const index::Index& idx, std::vector<int> devices, int lanes, int threads,
           io::RecordPool& pool, RecordOutput& out, std::shared_future<void> checksums, bool compress_in_lanes)
      : opt_(opt),
        idx_(idx),
        devices_(std::move(devices)),
        threads_(threads),
        pool_(pool),
        out_(out),
        checksums_(std::move(checksums)),
        inserts_(std::make_shared<detail::InsertModelInOrder>(opt.map.pair, lanes > 1)),
        mappers_(static_cast<size_t>(lanes)),
        stats_(static_cast<size_t>(lanes)),
        laps_(static_cast<size_t>(lanes)),
        compress_pools_(static_cast<size_t>(lanes)),
        compress_in_lanes_(compress_in_lanes) {}
  ~MapLanes();

  // Lane i's work, on its own thread, until the input ends.
  void run(int i, OrderedLanes<MapItem>& reads);

  // Finishes a part of an item; true when that was its last: its records are then in
  // input order (-p: merged) and, where the output allows, made ready to write.
  bool finish(Mapper& mapper, const MapPart& part, size_t lane);

  MapStats stats() const;
  double parse_s() const;    // the lanes' part of reading
  double prepare_s() const;  // the lanes' part of writing

 private:
  void start_compress_pool(size_t lane, const Hardware& hw);

  const RunOptions& opt_;
  const index::Index& idx_;
  const std::vector<int> devices_;
  const int threads_;
  io::RecordPool& pool_;
  RecordOutput& out_;
  std::shared_future<void> checksums_;
  std::shared_ptr<detail::InsertModelInOrder> inserts_;
  std::vector<std::unique_ptr<Mapper>> mappers_;
  std::vector<MapStats> stats_;
  std::vector<LaneLaps> laps_;
  std::vector<std::unique_ptr<io::CompressPool>> compress_pools_;  // BAM on the GPU: a pool per lane
  const bool compress_in_lanes_;
};

// Writes the mapped batches in input order (on a thread of its own): bytes the lanes made
// (unsorted BAM, SAM), or records (sorted: to the sorter; bgzipped SAM) on an OpenMP team
// of -t threads; says the progress, and after the first batch whether mates look like mates.
struct BatchWriter {
  RecordOutput& out;
  io::RecordPool& spare;
  const io::FastqSource& source;
  const RunOptions& opt;
  int threads;
  double output_s = 0;
  int64_t batch_no = 0, reads_done = 0;
  double began = log::wall_seconds();

  void operator()(MapItem& item);
};

}  // namespace gatemap::mapper

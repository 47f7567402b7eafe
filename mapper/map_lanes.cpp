#include "mapper/map_lanes.hpp"

#include <omp.h>

#include <algorithm>
#include <deque>
#include <utility>

#include "common/leave_to_exit.hpp"
#include "common/log.hpp"

namespace gatemap::mapper {

namespace {

// Parses a batch cut by the reader (FASTQ/FASTA files); its error, to be thrown in input order.
std::exception_ptr parse_item(MapItem* item, int threads) {
  try {
    if (item->raw.cut) io::FastqSource::parse_batch(item->raw, item->reads, threads);
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}

}  // namespace

void LaneLaps::say(int lane, const Hardware& hw, const MapStats& st) const {
  const bool on_gpu = hw.backend == gpu::Backend::gpu && !hw.devices.empty();
  log::debug("map", "lane " + std::to_string(lane) +
                        (on_gpu ? " (device " + std::to_string(hw.devices[0]) + ")" : std::string()) + ": " +
                        std::to_string(parts) + " batches; waiting for reads " +
                        std::to_string(waiting_for_reads) + " s, parsing " + std::to_string(parsing) +
                        " s, beginning " + std::to_string(begin) +
                        " s, finishing " + std::to_string(finish) + " s (waiting for its seeding " +
                        std::to_string(st.begin_wait_s) + " s, placing " + std::to_string(st.pair_s) +
                        " s, preparing output " + std::to_string(preparing) + " s); done at " +
                        std::to_string(log::wall_seconds()) + " s");
}

MapLanes::~MapLanes() {
  if (opt_.leave_to_exit) {  // the GPU engines' memory, to the exit
    for (auto& m : mappers_) leave_to_exit(m);
  }
}

// BAM compressed on the GPUs: each lane's batches on its own GPU, by workers that take
// them in turn while the lane maps on (a batch's kernels alone leave most of the GPU
// idle; compressing them in the lane, or one at a time in the writer, bound the run).
void MapLanes::start_compress_pool(size_t lane, const Hardware& hw) {
  std::vector<std::shared_ptr<io::BlockCompressor>> compressors;
  for (int k = 0; k < kCompressWorkers; ++k) {
    auto c = make_block_compressor(hw.devices.empty() ? -1 : hw.devices[0], std::max(1, threads_ / kCompressWorkers),
                                   opt_.bgzf_gpu);
    if (c) compressors.push_back(std::move(c));
  }
  // (None where no GPU works: the writer's compressor, or htslib here, then.)
  if (!compressors.empty()) compress_pools_[lane] = std::make_unique<io::CompressPool>(std::move(compressors));
}

void MapLanes::run(int i, OrderedLanes<MapItem>& reads) {
  const auto lane = static_cast<size_t>(i);
  omp_set_num_threads(threads_);
  Hardware hw = opt_.hw;
  if (!devices_.empty()) hw.devices = {devices_[lane % devices_.size()]};
  std::unique_ptr<Mapper>& mapper = mappers_[lane];
  try {
    mapper = std::make_unique<Mapper>(idx_, opt_.map, hw);  // a GPU engine gets ready while batch 1 is seeded
    mapper->set_record_pool(&pool_);
    mapper->share_insert_model(inserts_);
    if (compress_in_lanes_) start_compress_pool(lane, hw);
    checksums_.get();
    // An item's parts (its reads; with -p its single reads too) are begun one ahead
    // of the part being finished: the next is seeded while the GPU filters this one.
    std::deque<MapPart> waiting, begun;
    LaneLaps& laps = laps_[lane];
    // The next item, parsed (cut FASTQ) on threads of its own while the lane finishes the
    // one before: parsed on the lane, it held up the lane (2 H200s: 1.7-1.9 s of 7.3 s).
    struct Ahead {
      MapItem* item = nullptr;
      std::future<std::exception_ptr> parsed;
    } ahead;
    const int ahead_threads = std::max(1, threads_ / 4);  // ~20 ms a batch, under its finishing
    const auto look_ahead = [&] {
      if (ahead.item) return;
      {
        const log::StageTimer timing(laps.waiting_for_reads);
        ahead.item = reads.next(true);
      }
      if (ahead.item) ahead.parsed = std::async(std::launch::async, parse_item, ahead.item, ahead_threads);
    };
    // Takes the next item, parsed; false when the input is done. An item that does not
    // parse goes on at once to the writer, which throws its error.
    const auto take = [&](bool holding) {
      for (;;) {
        MapItem* item = std::exchange(ahead.item, nullptr);
        std::exception_ptr error;
        if (item) {
          const log::StageTimer timing(laps.parsing);
          error = ahead.parsed.get();
        } else {
          {
            const log::StageTimer timing(laps.waiting_for_reads);
            item = reads.next(holding);
          }
          if (!item) return false;
          const log::StageTimer timing(laps.parsing);
          error = parse_item(item, threads_);
        }
        if (error) {
          item->parse_error = error;
          inserts_->skip(item->raw.first_id, static_cast<int64_t>(item->raw.mate1.size()));
          reads.done(item);
          continue;
        }
        if (!item->reads.reads.empty()) waiting.push_back({item, false});
        if (item->mixed()) waiting.push_back({item, true});
        return true;
      }
    };
    const auto begin_one = [&] {
      const MapPart part = waiting.front();
      waiting.pop_front();
      {
        const log::StageTimer timing(laps.begin);
        mapper->begin_batch(part.singles ? part.item->singles.reads : part.item->reads);
      }
      begun.push_back(part);
    };
    for (;;) {
      if (begun.empty()) {
        if (waiting.empty() && !take(false)) break;
        begin_one();
      }
      if (waiting.empty()) take(true);
      if (!waiting.empty()) begin_one();
      look_ahead();
      const MapPart part = begun.front();
      begun.pop_front();
      {
        const log::StageTimer timing(laps.finish);
        if (finish(*mapper, part, lane)) reads.done(part.item);
      }
      ++laps.parts;
    }
    laps.say(i, hw, mapper->stats());
  } catch (...) {
    reads.fail(std::current_exception());  // this error first, then the lanes waiting for this one's batches
    inserts_->abandon();
    throw;
  }
  stats_[lane] = mapper->stats();
  // The GPU engines' device and pinned memory are released while the last batches are written.
  if (!opt_.leave_to_exit) mapper.reset();
}

bool MapLanes::finish(Mapper& mapper, const MapPart& part, size_t lane) {
  MapItem& item = *part.item;
  const int64_t proper_before = mapper.stats().proper_pairs;
  const auto count_pairs = [&] {
    item.pairs = item.reads.paired ? static_cast<int64_t>(item.reads.size() / 2) : 0;
    item.proper_pairs = mapper.stats().proper_pairs - proper_before;
  };
  if (!item.mixed()) {
    mapper.finish_batch(item.reads, item.records);
    count_pairs();
  } else if (!part.singles) {
    item.per_read.clear();
    mapper.finish_batch(item.reads, item.records, &item.per_read);
    count_pairs();
    return false;
  } else {
    item.single_per_read.clear();
    mapper.finish_batch(item.singles.reads, item.single_records, &item.single_per_read);
    item.merge_in_input_order();
  }
  if (out_.prepares()) {
    const log::StageTimer timing(laps_[lane].preparing);
    out_.prepare(item.records, item.prepared, compress_pools_[lane].get());
    pool_.give(item.records);
  }
  return true;
}

MapStats MapLanes::stats() const {
  MapStats sum;
  for (const MapStats& s : stats_) sum += s;
  for (const LaneLaps& l : laps_) sum.input_wait_s += l.waiting_for_reads;
  return sum;
}

double MapLanes::parse_s() const {
  double sum = 0;
  for (const LaneLaps& l : laps_) sum += l.parsing;
  return sum;
}

double MapLanes::prepare_s() const {
  double sum = 0;
  for (const LaneLaps& l : laps_) sum += l.preparing;
  return sum;
}

void BatchWriter::operator()(MapItem& item) {
  if (item.parse_error) std::rethrow_exception(item.parse_error);
  omp_set_num_threads(threads);
  {
    const log::StageTimer timing(output_s);
    if (out.prepares()) {
      out.write_prepared(item.prepared);
    } else {
      out.take(item.records, spare);
    }
  }
  reads_done += static_cast<int64_t>(item.size());
  const double elapsed = log::wall_seconds() - began, read = source.fraction_read();
  std::string eta;  // where the input's size is known: the files read so far against their size
  if (read > 0.01 && read < 1) {
    eta = ", input " + std::to_string(static_cast<int>(100 * read)) + "% read, " + log::time_left(elapsed, read);
  }
  log::progress("map", "batch " + std::to_string(++batch_no) + ": " + std::to_string(item.size()) + " reads mapped, " +
                           std::to_string(reads_done) + " in all, " +
                           std::to_string(static_cast<int64_t>(reads_done / std::max(elapsed, 1e-3))) + " reads/s" +
                           eta);
  // Mates that are not mates (one file given twice, files of two runs) map as pairs
  // that are almost never proper: said once, after the first batch.
  if (batch_no == 1 && item.pairs >= 100 && 2 * item.proper_pairs < item.pairs) {
    log::warn("map", "only " + std::to_string(item.proper_pairs) + " of the first " + std::to_string(item.pairs) +
                         " pairs map as proper pairs: " +
                         (opt.reads2.empty() ? "are the reads of '" + opt.reads1 + "' interleaved mates?"
                                             : "are '" + opt.reads1 + "' and '" + opt.reads2 +
                                                   "' mates of each other (not one file twice, nor files of two runs)?"));
  }
}

}  // namespace gatemap::mapper

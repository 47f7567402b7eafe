#include "mapper/run.hpp"

#include <malloc.h>
#include <omp.h>

#include <deque>
#include <fstream>
#include <future>
#include <memory>
#include <utility>

#include "common/error.hpp"
#include "common/leave_to_exit.hpp"
#include "common/log.hpp"
#include "common/ordered_lanes.hpp"
#include "common/thread_budget.hpp"
#include "gpu/device.hpp"
#include "gpu/memory_cap.hpp"
#include "io/bam/compress_pool.hpp"
#include "io/bam/sam_writer.hpp"
#include "io/deflate/bgzf_deflate.hpp"
#include "io/output_file.hpp"
#include "io/reads/input_stream.hpp"
#include "io/run_paths.hpp"
#include "io/sort/bam_sorter.hpp"
#include "io/text/text_output.hpp"
#include "mapper/insert_model.hpp"
#include "mapper/reference_check.hpp"

namespace gatemap::mapper {

namespace {

// --filter says whether GateKeeper runs (auto|off; gpu|cpu as before: on, and where),
// --backend where the GPU stages (seeding, the filter, verification) run; the two must
// not disagree.
std::string backend_of(const RunOptions& opt) {
  if (opt.filter == "auto" || opt.filter == "off") return opt.backend;
  if (opt.backend != "auto" && opt.backend != opt.filter) {
    throw UsageError("--filter " + opt.filter + " and --backend " + opt.backend + " disagree");
  }
  return opt.filter;
}

// The final counts and stage times on stderr, and as JSON with --stats.
void report(const MapStats& st, const std::string& stats_path, const index::Index& idx) {
  log::info("map", "reads " + std::to_string(st.reads) + ", records " + std::to_string(st.records) + ", mapped " +
                       std::to_string(st.mapped) + ", unmapped " + std::to_string(st.unmapped) + ", supplementary " +
                       std::to_string(st.supplementary) + ", proper pairs " + std::to_string(st.proper_pairs) +
                       ", rescued " + std::to_string(st.rescued));
  log::info("map", "candidates " + std::to_string(st.candidates) + ", rejected by filter " +
                       std::to_string(st.filter_rejected) + ", unfiltered (N) " + std::to_string(st.filter_unfiltered) +
                       ", verified " + std::to_string(st.verified) + "; reads with capped seeds " +
                       std::to_string(st.capped_reads) + ", at the candidate cap " +
                       std::to_string(st.candidate_cap_hits));
  log::info("map", "time: seed " + std::to_string(st.seed_s) + " s (device " + std::to_string(st.seed_device_s) +
                       " s), filter " + std::to_string(st.filter_s) + " s (kernel " +
                       std::to_string(st.filter_kernel_s) + " s), verify " + std::to_string(st.verify_s) + " s (" +
                       std::to_string(st.verified_on_gpu) + " on the GPU in " + std::to_string(st.verify_device_s) +
                       " s), fallback " + std::to_string(st.fallback_s) + " s, finish " + std::to_string(st.pair_s) +
                       " s, output " + std::to_string(st.output_s) + " s, input " + std::to_string(st.read_s) +
                       " s; mapping waiting for input " +
                       std::to_string(st.input_wait_s) + " s, for seeding " + std::to_string(st.begin_wait_s) +
                       " s; reading waiting for a free slot " + std::to_string(st.output_wait_s) + " s");
  if (stats_path.empty()) return;
  std::vector<std::pair<std::string, int64_t>> contigs;
  for (const auto& c : idx.contigs()) contigs.emplace_back(c.name, c.length);
  io::write_side_output(stats_path, st.to_json(contigs));
}

// BAM's compressor on a device (-1: none). Where no GPU works (or a batch fails on it):
// with --bgzf-gpu its CPU twin (the same bytes); chosen by default (a GPU run without -l),
// htslib's level 6, or null when there is no GPU at all (htslib compresses as usual).
std::shared_ptr<io::BlockCompressor> make_block_compressor(int device, int threads, bool twin) {
  const auto cpu = [&]() -> std::unique_ptr<io::BlockCompressor> {
    if (twin) return std::make_unique<io::BgzfDeflateCpu>(threads);
    return std::make_unique<io::LevelDeflateCpu>(threads, -1);
  };
  std::shared_ptr<io::BlockCompressor> c = device >= 0 ? io::make_gpu_block_compressor(device, threads, cpu()) : nullptr;
  if (!c && twin) c = cpu();
  return c;
}

// Where records go: the output as they come, or (--sort) the bounded-memory sorter.
class RecordOutput {
 public:
  RecordOutput(const RunOptions& opt, const index::Index& idx, const std::vector<std::string>& input_read_groups,
               const std::vector<std::string>& input_comments)
      : path_(opt.output), path_is_bam_(io::sam_output_mode(opt.output) == std::string("wb")) {
    io::SamHeaderInfo info;
    for (const auto& c : idx.contigs()) info.contigs.emplace_back(c.name, c.length);
    info.read_group = opt.read_group;
    if (opt.read_group.empty()) info.input_read_groups = input_read_groups;
    info.comment_lines = input_comments;
    info.reference = opt.reference;
    info.cram_nm_md = opt.cram_nm_md;
    info.command_line = opt.command_line;
    info.version = opt.version;
    const int threads = std::max(1, opt.hw.threads);
    if (opt.sort) {
      io::SortOptions so;
      so.memory_bytes = opt.sort_memory * static_cast<size_t>(threads);
      so.tmp_dir = opt.tmp_dir;
      so.threads = threads;
      so.mark_duplicates = opt.markdup;
      so.level = opt.bam_level;
      sorter_ = std::make_unique<io::BamSorter>(opt.output, info, so);
    } else {
      writer_ = std::make_unique<io::SamWriter>(opt.output, info, threads, opt.bam_level);
    }
  }
  const std::string& read_group_id() const { return sorter_ ? sorter_->read_group_id() : writer_->read_group_id(); }
  // Whether records can be made ready to write (prepare) where they are made, several
  // batches at once, leaving the writer only bytes to copy: unsorted BAM and plain SAM.
  bool prepares() const { return writer_ && writer_->can_prepare(); }
  void prepare(const std::vector<bam1_t*>& recs, io::PreparedRecords& out, io::CompressPool* pool) const {
    writer_->prepare(recs, out, pool);
  }
  bool is_bam() const { return path_is_bam_; }
  // BAM's blocks compressed on this GPU (make_block_compressor): the sorted output's, and
  // the unsorted output's where a lane has no compress pool of its own.
  void compress_on(int device, int threads, bool twin) {
    if (!path_is_bam_) return;
    std::shared_ptr<io::BlockCompressor> c = make_block_compressor(device, threads, twin);
    if (!c) return;
    if (sorter_) {
      sorter_->set_block_compressor(std::move(c));
    } else {
      writer_->set_block_compressor(std::move(c));
    }
  }
  void write_prepared(io::PreparedRecords& p) { writer_->write_prepared(p); }
  // Writes (or hands to the sorter) the records; written ones go to `spare` for reuse.
  void take(std::vector<bam1_t*>& recs, io::RecordPool& spare) {
    if (sorter_) {
      sorter_->add(recs);
    } else {
      writer_->write_all(recs);
    }
    spare.give(recs);
  }
  void close() {
    if (!sorter_) return writer_->close();
    const double t = log::wall_seconds();
    log::info("map", "all reads mapped: " +
                         (sorter_->runs() > 0 ? "merging " + std::to_string(sorter_->runs()) + " sorted runs"
                                              : std::string("sorting the records in memory")) +
                         (sorter_->duplicates() ? ", marking duplicates" : std::string()) + " and writing '" + path_ +
                         "' with its index");
    sorter_->close();
    log::info("map", "sorted " + std::to_string(sorter_->records()) + " records (" + std::to_string(sorter_->runs()) +
                         " runs spilled) and indexed '" + path_ + "' in " + std::to_string(log::wall_seconds() - t) +
                         " s");
    if (const io::DuplicateCounts* d = sorter_->duplicates()) {
      log::info("map", "duplicates: " + std::to_string(d->duplicate_reads) + " of " + std::to_string(d->reads) +
                           " mapped reads (" + std::to_string(d->duplicate_pairs) + " of " + std::to_string(d->pairs) +
                           " pairs, " + std::to_string(d->duplicate_fragments) + " of " + std::to_string(d->fragments) +
                           " unpaired reads)");
    }
  }
  const io::DuplicateCounts* duplicates() const { return sorter_ ? sorter_->duplicates() : nullptr; }

 private:
  std::string path_;
  bool path_is_bam_;
  std::unique_ptr<io::SamWriter> writer_;
  std::unique_ptr<io::BamSorter> sorter_;
};

// Each batch allocates and frees the same large buffers: kept in the heap rather than
// mapped and unmapped each time, they are not faulted in again (5-8% of a run). Heaps
// grow 64 MiB at a time: each growth is an mprotect that stalls every thread's page
// faults (the mm lock); growing by the request alone cost 5% of a GPU-seeded run.
void tune_malloc() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
#endif
}

// The index a sorted output gets beside it (io/sort/bam_sorter.cpp: .bai, or .csi for long contigs).
std::vector<std::string> output_indexes(const RunOptions& opt) {
  if (!opt.sort) return {};
  if (io::sam_output_mode(opt.output) == std::string("wc")) return {opt.output + ".crai"};
  return {opt.output + ".bai", opt.output + ".csi"};
}

// Option errors, before the index loads (UsageError).
void check_options(const RunOptions& opt) {
  if (opt.batch_reads < 2) throw UsageError("--batch must be at least 2");
  validate(opt.map);
  const std::string mode = io::sam_output_mode(opt.output);  // a refused suffix
  if (opt.markdup && !opt.sort) throw UsageError("--markdup works with --sort");
  if (opt.reads1 == "-" && opt.reads2 == "-") {
    throw UsageError("both mates' files are '-': standard input holds one of them (interleaved pairs: -p)");
  }
  if (opt.sort && mode != "wb" && mode != "wc") throw UsageError("--sort needs -o FILE.bam or FILE.cram");
  if (opt.bgzf_gpu && opt.bam_level >= 0) throw UsageError("--bgzf-gpu has a compression of its own: leave out -l");
  if (opt.bgzf_gpu && mode != "wb") throw UsageError("--bgzf-gpu compresses BAM: it needs -o FILE.bam");
  if (!opt.read_group.empty()) {  // before the index loads (11 GB for GRCh37)
    std::string id;
    io::parse_read_group(opt.read_group, id);
  }
  io::RunPaths paths;
  paths.reads(opt.index_path).reads(opt.reference).reads(opt.reads1).reads(opt.reads2);
  paths.writes(opt.output, "-o", output_indexes(opt)).writes(opt.stats_path, "--stats").check();
}

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
  void say(int lane, const Hardware& hw, const MapStats& st) const {
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
  ~MapLanes() {
    if (opt_.leave_to_exit) {  // the GPU engines' memory, to the exit
      for (auto& m : mappers_) leave_to_exit(m);
    }
  }

  // Lane i's work, on its own thread, until the input ends.
  void run(int i, OrderedLanes<MapItem>& reads) {
    const auto lane = static_cast<size_t>(i);
    omp_set_num_threads(threads_);
    Hardware hw = opt_.hw;
    if (!devices_.empty()) hw.devices = {devices_[lane % devices_.size()]};
    std::unique_ptr<Mapper>& mapper = mappers_[lane];
    try {
      mapper = std::make_unique<Mapper>(idx_, opt_.map, hw);  // a GPU engine gets ready while batch 1 is seeded
      mapper->set_record_pool(&pool_);
      mapper->share_insert_model(inserts_);
      // BAM compressed on the GPUs: each lane's batches on its own GPU, by workers that
      // take them in turn while the lane maps on (a batch's kernels alone leave most of
      // the GPU idle; compressing them in the lane, or one at a time in the writer, bound
      // the run).
      if (compress_in_lanes_) {
        std::vector<std::shared_ptr<io::BlockCompressor>> compressors;
        for (int k = 0; k < kCompressWorkers; ++k) {
          auto c = make_block_compressor(hw.devices.empty() ? -1 : hw.devices[0], std::max(1, threads_ / kCompressWorkers),
                                         opt_.bgzf_gpu);
          if (c) compressors.push_back(std::move(c));
        }
        // (None where no GPU works: the writer's compressor, or htslib here, then.)
        if (!compressors.empty()) compress_pools_[lane] = std::make_unique<io::CompressPool>(std::move(compressors));
      }
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
      const auto parse = [](MapItem* item, int threads) -> std::exception_ptr {
        try {
          if (item->raw.cut) io::FastqSource::parse_batch(item->raw, item->reads, threads);
        } catch (...) {
          return std::current_exception();
        }
        return nullptr;
      };
      const int ahead_threads = std::max(1, threads_ / 4);  // ~20 ms a batch, under its finishing
      const auto look_ahead = [&] {
        if (ahead.item) return;
        {
          const log::StageTimer timing(laps.waiting_for_reads);
          ahead.item = reads.next(true);
        }
        if (ahead.item) ahead.parsed = std::async(std::launch::async, parse, ahead.item, ahead_threads);
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
            error = parse(item, threads_);
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

  // Finishes a part of an item; true when that was its last: its records are then in
  // input order (-p: merged) and, where the output allows, made ready to write.
  bool finish(Mapper& mapper, const MapPart& part, size_t lane) {
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

  MapStats stats() const {
    MapStats sum;
    for (const MapStats& s : stats_) sum += s;
    for (const LaneLaps& l : laps_) sum.input_wait_s += l.waiting_for_reads;
    return sum;
  }
  double parse_s() const {  // the lanes' part of reading
    double sum = 0;
    for (const LaneLaps& l : laps_) sum += l.parsing;
    return sum;
  }
  double prepare_s() const {  // the lanes' part of writing
    double sum = 0;
    for (const LaneLaps& l : laps_) sum += l.preparing;
    return sum;
  }

 private:
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

// The index (its checksums checked later, on another thread), said on stderr.
// Whether the file's first byte (gzip's inflated) opens a FASTA record. Read plainly
// first: an index (gigabytes) is not streamed for it.
bool is_fasta(const std::string& path) {
  if (path == "-") return false;
  char head[2] = {};
  std::ifstream file(path, std::ios::binary);
  file.read(head, 2);
  if (file.gcount() >= 1 && head[0] == '>') return true;
  if (file.gcount() < 2 || head[0] != '\x1f' || head[1] != '\x8b') return false;
  char first = 0;
  io::InputStream in(path);
  return in.read(&first, 1) == 1 && first == '>';
}

// The index at `path`, or, when `path` is a FASTA with no index beside it, one built now
// for this run only (as minimap2 indexes a FASTA it is given), said on stderr with how
// to keep it. The FASTA then serves as CRAM's reference too.
std::unique_ptr<index::Index> load_index_saying(RunOptions& opt) {
  const std::string& path = opt.index_path;
  const double t_load = log::wall_seconds();
  if (is_fasta(path)) {
    log::info("map", "'" + path + "' is a FASTA with no index beside it ('" + path +
                         ".gmi'): indexing it for this run; 'gatemap index " + path + "' keeps one for the next runs");
    index::IndexOptions io;
    io.threads = omp_get_max_threads();
    auto idx = index::build_index(path, io);
    log::info("map", "indexed '" + path + "' (" + std::to_string(idx->contigs().size()) + " contigs, " +
                         std::to_string(idx->length()) + " bp) in " + std::to_string(log::wall_seconds() - t_load) +
                         " s");
    if (opt.reference.empty()) opt.reference = path;
    return idx;
  }
  auto idx = index::load_index(path, index::Checksums::later);
  log::info("map", "loaded index '" + path + "' (" + std::to_string(idx->contigs().size()) + " contigs, " +
                       std::to_string(idx->length()) + " bp, k=" + std::to_string(idx->k()) + ") in " +
                       std::to_string(log::wall_seconds() - t_load) + " s");
  return idx;
}

void say_where_it_runs(const RunOptions& opt, bool on_gpu, int lanes, int lane_threads) {
  log::info("map", std::string("seeding on the ") + (on_gpu && opt.hw.seed_on_gpu ? "GPU" : "CPU") +
                       ", GateKeeper filter " + (!opt.map.filter ? "off" : on_gpu ? "on the GPU" : "on the CPU") +
                       (lanes > 1 ? "; " + std::to_string(lanes) + " lanes of " + std::to_string(lane_threads) +
                                        " threads" + (on_gpu ? ", one per GPU" : "")
                                  : ""));
}

// --markdup's counts, once the output is closed.
void add_duplicates(const RecordOutput& out, MapStats& st) {
  if (const io::DuplicateCounts* d = out.duplicates()) {
    st.duplicate_reads = d->duplicate_reads;
    st.duplicate_pairs = d->duplicate_pairs;
    st.duplicate_unpaired = d->duplicate_fragments;
  }
}

}  // namespace

MapStats run_mapping(RunOptions opt) {
  use_threads(opt.hw.threads, 3);  // the reader's, the lane's and the writer's teams
  tune_malloc();
  check_options(opt);
  const size_t batch_bases = opt.batch_bases ? opt.batch_bases : opt.batch_reads * 1000;
  const std::string where = backend_of(opt);
  opt.map.filter = opt.filter != "off";
  // Whether a GPU seeds and filters: probed on a thread of its own (CUDA's start-up takes a few
  // tenths of a second) while the index loads and the first batch is read.
  gpu::resolve_devices(opt.device, gpu::Backend::cpu);  // its syntax, before any work
  std::future<gpu::Backend> probe = std::async(std::launch::async, [where] { return gpu::choose_backend(where); });
  // BGZF-compressed reads are inflated on a few threads per file (a quarter of -t).
  const int threads = omp_get_max_threads();
  // -C keeps a SAM/BAM/CRAM input's tags as it keeps a FASTQ's comments (bwa mem -C).
  io::FastqSource source(opt.reads1, opt.reads2, opt.interleaved, std::max(1, threads / 4), opt.reference,
                         opt.map.output.copy_comment);
  // Batches are read from now on (the first while the index loads), in a few slots
  // until the lanes are known. FASTQ/FASTA files are only cut here (in order, each file
  // on a thread) and parsed by the lanes: parsing here too bounded 4 GPUs' runs.
  double read_s = 0;  // the reader's busy time
  auto reads_ahead = std::make_unique<OrderedLanes<MapItem>>(kSlotsPerLane + kSlotsMore, [&](MapItem& item) {
    omp_set_num_threads(threads);
    const log::StageTimer timing(read_s);
    item.parse_error = nullptr;
    if (source.cuts()) return source.cut_batch(item.raw, opt.batch_reads, batch_bases);
    item.raw.cut = false;
    return source.next_batch(item.reads, opt.batch_reads, batch_bases, &item.singles);
  });
  OrderedLanes<MapItem>& reads = *reads_ahead;
  auto idx = load_index_saying(opt);
  // Its checksums are checked while CUDA starts and the index goes to the device; the
  // first batch waits for them.
  std::shared_future<void> checksums =
      std::async(std::launch::async, [&idx, threads] {
        omp_set_num_threads(threads);
        idx->verify_checksums();
      }).share();
  auto spare_records = std::make_unique<io::RecordPool>();  // before the output and the mapper, which use it
  // Reads from SAM/BAM/CRAM keep their read groups (RG:Z:, carried as their comment)
  // with the input's @RG lines, unless -R names the run's one read group.
  if (!source.read_groups().empty() && opt.read_group.empty()) opt.map.output.copy_comment = true;
  if (!opt.reference.empty() && io::sam_output_mode(opt.output) == std::string("wc")) {
    check_reference_matches_index(*idx, opt.reference, threads);
  }
  RecordOutput out(opt, *idx, source.read_groups(), source.comment_lines());
  opt.map.output.read_group_id = out.read_group_id();

  // The backend: GPU when asked or (auto) when present; otherwise the CPU twins. One
  // lane (a mapper with its share of the cores) per GPU: each seeds, filters and
  // verifies its batches on its own device.
  opt.hw.backend = probe.get();
  log::debug("map", "backend known at " + std::to_string(log::wall_seconds()) + " s");
  const bool on_gpu = opt.hw.backend == gpu::Backend::gpu;
  // The GPU maps faster than one thread inflates a gzip file, but the reader stops while
  // the writer holds every slot: gzip input is then inflated far ahead meanwhile (chr20 at
  // 30x: the lanes' wait for input 2.3-2.6 s -> 0.04-1.7 s on an H100).
  if (on_gpu) io::InputStream::set_gzip_read_ahead(size_t{256} << 20);
  const std::vector<int> devices = gpu::resolve_devices(opt.device, opt.hw.backend);
  const gpu::MemoryCap capped(devices, opt.gpu_memory, "map");  // before any engine sizes itself
  const int lanes = opt.lanes > 0 ? opt.lanes : on_gpu ? static_cast<int>(devices.size()) : 1;
  const int lane_threads = std::max(1, threads / lanes);
  // With the GPU seeding, the GPU filters the seeder's reads itself; a batch that falls
  // back to the filter stage has its reads packed on the device there too (the worker's
  // host time bounds the run).
  if (on_gpu && opt.hw.seed_on_gpu) opt.hw.encode_on_device = true;
  say_where_it_runs(opt, on_gpu, lanes, lane_threads);
  // BAM's deflate on the GPUs (each lane's, and the sorted output's on the first):
  // asked for (--bgzf-gpu), or by default on a GPU run without -l (files within ~1.5% of
  // level 6's; at level 6 the CPU's deflate took two thirds of a run's CPU time).
  const bool deflate_on_gpu = opt.bgzf_gpu || (on_gpu && opt.bam_level < 0 && !devices.empty());
  if (deflate_on_gpu) out.compress_on(on_gpu && !devices.empty() ? devices[0] : -1, threads, opt.bgzf_gpu);
  const bool compress_in_lanes = deflate_on_gpu && out.prepares() && out.is_bam();
  const size_t per_lane = kSlotsPerLane + (compress_in_lanes ? kCompressWorkers : 0);
  reads.set_slots(per_lane * static_cast<size_t>(lanes) + kSlotsMore);
  MapLanes mapping(opt, *idx, devices, lanes, lane_threads, *spare_records, out, checksums, compress_in_lanes);
  // Records are written on a thread of their own, in input order: bytes the lanes made
  // (unsorted BAM, SAM), or records (sorted: to the sorter; bgzipped SAM) on an OpenMP
  // team of -t threads.
  double output_s = 0;
  int64_t batch_no = 0, reads_done = 0;
  const double mapping_began = log::wall_seconds();
  const auto write = [&](MapItem& item) {
    if (item.parse_error) std::rethrow_exception(item.parse_error);
    omp_set_num_threads(threads);
    {
      const log::StageTimer timing(output_s);
      if (out.prepares()) {
        out.write_prepared(item.prepared);
      } else {
        out.take(item.records, *spare_records);
      }
    }
    reads_done += static_cast<int64_t>(item.size());
    const double elapsed = log::wall_seconds() - mapping_began, read = source.fraction_read();
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
  };
  reads.run(lanes, [&](int i) { mapping.run(i, reads); }, write);
  log::debug("map", "last batch written at " + std::to_string(log::wall_seconds()) + " s");
  MapStats st = mapping.stats();
  output_s += mapping.prepare_s();
  out.close();  // a sorted BAM is written only now
  log::debug("map", "output closed at " + std::to_string(log::wall_seconds()) + " s");
  st.output_s = output_s;
  st.read_s = read_s + mapping.parse_s();  // cut by the reader, parsed by the lanes
  st.output_wait_s = reads.reader_wait_s();
  add_duplicates(out, st);
  const double wall = log::wall_seconds();
  try {
    report(st, opt.stats_path, *idx);
  } catch (...) {  // no output under its name after a failure, a report's included
    io::remove_outputs(opt.output, output_indexes(opt));
    throw;
  }
  log::info("main", "Real time: " + std::to_string(wall) + " sec; CPU: " + std::to_string(log::cpu_seconds()) +
                        " sec; Peak RSS: " + std::to_string(log::peak_rss_bytes() / 1048576) + " MiB");
  if (st.reads + st.secondary + st.supplementary != st.records) throw Error("internal: records do not match reads");
  if (opt.leave_to_exit) {
    leave_to_exit(idx);
    leave_to_exit(spare_records);
    leave_to_exit(reads_ahead);  // the slots' last batches: a million small strings freed one by one
  }
  return st;
}

}  // namespace gatemap::mapper

#include "io/sort/bam_sorter.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <future>
#include <queue>
#include <utility>

#include "common/error.hpp"
#include "common/log.hpp"
#include "common/serial_worker.hpp"
#include "io/sort/parallel_sort.hpp"
#include "io/sort/record_runs.hpp"
#include "io/sort/spilled_sort.hpp"

namespace gatemap::io {

namespace {

// As samtools sort: the reference id as unsigned (unplaced, -1, last), then pos + 1,
// then the strand.
std::pair<uint64_t, uint64_t> coordinate_key(const bam1_t* b) {
  return {static_cast<uint32_t>(b->core.tid), static_cast<uint64_t>(b->core.pos + 1) << 1 | bam_is_rev(b)};
}

}  // namespace

bool coordinate_less(const bam1_t* a, const bam1_t* b) { return coordinate_key(a) < coordinate_key(b); }

size_t parse_memory(const std::string& text, const std::string& flag) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  double scale = 1;
  const std::string unit = end ? std::string(end) : "";
  if (unit == "K" || unit == "k") scale = 1024.0;
  if (unit == "M" || unit == "m") scale = 1024.0 * 1024;
  if (unit == "G" || unit == "g") scale = 1024.0 * 1024 * 1024;
  const bool unit_ok = unit.empty() || scale > 1;
  if (end == text.c_str() || errno != 0 || !unit_ok || !(v * scale >= 1 << 20) || v * scale > 1e15) {
    throw UsageError(flag + " '" + text + "': a size of at least 1M, such as 768M or 2G");
  }
  return static_cast<size_t>(v * scale);
}

BamSorter::BamSorter(const std::string& out_bam, const SamHeaderInfo& info, const SortOptions& opt)
    : out_path_(out_bam), opt_(opt) {
  SamHeaderInfo sorted = info;
  sorted.coordinate_sorted = true;
  for (const auto& c : info.contigs) longest_contig_ = std::max(longest_contig_, c.second);
  out_ = std::make_unique<SamWriter>(out_bam, sorted, std::max(1, opt.threads), opt.level);
  const bool cram = out_bam.size() > 5 && out_bam.compare(out_bam.size() - 5, 5, ".cram") == 0;
  if (opt.write_index && cram) {
    out_->write_index(out_bam + ".crai", 0);
  } else if (opt.write_index) {  // built while writing: BAI addresses positions below 2^29, CSI (min_shift 14) beyond
    const bool csi = longest_contig_ >= (int64_t{1} << 29);
    out_->write_index(out_bam + (csi ? ".csi" : ".bai"), csi ? 14 : 0);
  }
  namespace fs = std::filesystem;
  const fs::path base = opt.tmp_dir.empty() ? fs::absolute(out_bam).parent_path() : fs::path(opt.tmp_dir);
  std::string tmpl = (base / ".gatemap-sort-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) {
    throw IoError("cannot make a folder for sorted runs in '" + base.string() + "': " + std::strerror(errno));
  }
  run_dir_ = tmpl;
  try {  // the destructor, which removes the folder, runs only for a finished constructor
    run_dir_on_signal_ = RemovedOnSignal(run_dir_, true);
    // A read's ends (~130 bytes) are a quarter of what it costs buffered with its record
    // (~350 more): the two spill at about the same input size.
    if (opt.mark_duplicates) {
      const size_t ends_budget = opt.memory_bytes / 4;
      opt_.memory_bytes -= ends_budget;
      marker_ = std::make_unique<DuplicateMarker>(out_->header(), ends_budget, [this] { return temp_path(); });
    }
  } catch (...) {
    if (run_dir_on_signal_.registered()) {
      run_dir_on_signal_.remove_now();
    } else {
      rmdir(run_dir_.c_str());
    }
    throw;
  }
}

std::string BamSorter::temp_path() { return run_dir_ + "/tmp" + std::to_string(temp_files_++); }

// Blocks of 1 MB (at 64 KB a run compressed no smaller than BAM at level 1; larger ones
// no smaller still), less for a small budget: a merge holds three blocks of each run it
// reads, and a run's writer a few blocks per thread.
size_t BamSorter::run_block_bytes() const {
  return std::clamp(opt_.memory_bytes / 16, size_t{64} << 10, size_t{1} << 20);
}

BamSorter::~BamSorter() { run_dir_on_signal_.remove_now(); }

const std::string& BamSorter::read_group_id() const { return out_->read_group_id(); }

// Runs on the mapper's writer thread while the next batch is mapped: the copies are
// made on all threads (one record at a time, this took longer than mapping it).
void BamSorter::add(const std::vector<bam1_t*>& recs) {
  if (recs.empty()) return;
  if (marker_) marker_->collect(recs);  // before sorting: mates are still side by side
  const size_t n = recs.size(), first = buffer_.size();
  std::vector<size_t> offset(n + 1, 0);
  for (size_t i = 0; i < n; ++i) offset[i + 1] = offset[i] + RecordArena::bytes_of(recs[i]);
  uint8_t* base = arena_.allocate(offset[n]);
  buffer_.resize(first + n);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    RecordArena::store(recs[i], base + offset[i]);
    buffer_[first + i] = {coordinate_key(recs[i]), static_cast<uint64_t>(records_) + i, base + offset[i]};
  }
  records_ += static_cast<int64_t>(n);
  buffered_bytes_ += offset[n] + n * sizeof(Entry);
  if (buffered_bytes_ > opt_.memory_bytes) spill();
}

// On all threads; the input order completes the key, so no two entries are equal and
// ties stay in input order.
void BamSorter::sort_buffer() {
  sort_on_all_threads(buffer_, std::less<Entry>());
}

// The buffer, sorted, as the next run.
void BamSorter::spill() {
  sort_buffer();
  RecordRunWriter run(temp_path(), run_block_bytes(), opt_.threads);
  runs_.push_back(run.path());
  ++spilled_;
  run.write_stored(buffer_.size(), [this](size_t i) { return buffer_[i].at; });
  run.finish();
  buffer_.clear();
  arena_.clear();
  buffered_bytes_ = 0;
  log::info("map", "sorted run " + std::to_string(spilled_) + " written to '" + run.path() + "'");
}

// k-way merge of sorted runs, in samtools sort's order; ties go to the earlier run,
// which holds earlier input. With `and_buffer`, the sorted buffer is the last run (the
// latest input), read where it lies instead of being spilled and read back.
void BamSorter::merge_runs(const std::vector<std::string>& paths, const std::function<void(bam1_t*)>& out,
                           bool and_buffer) {
  // The runs' blocks decompressed ahead on -t threads, not on the merging one. (Before
  // the runs: their readers give back what the pool still holds when the merge fails.)
  const ReadAheadPool pool(opt_.threads, "the sorted runs");
  struct Run {
    std::unique_ptr<RecordRunReader> in;  // null: the buffer, whose entry `next` comes next
    bam1_t* rec = nullptr;
    size_t next = 0;
    bam1_t view{};
  };
  std::vector<Run> runs(paths.size() + (and_buffer ? 1 : 0));
  const auto later = [&](int a, int b) {  // min-heap of (record, run)
    if (coordinate_less(runs[b].rec, runs[a].rec)) return true;
    return !coordinate_less(runs[a].rec, runs[b].rec) && a > b;
  };
  std::priority_queue<int, std::vector<int>, decltype(later)> heap(later);
  const auto advance = [&](int i) {
    Run& run = runs[i];
    if (!run.in) {
      if (run.next == buffer_.size()) return;
      RecordArena::view(buffer_[run.next++].at, &run.view);
      run.rec = &run.view;
      heap.push(i);
      return;
    }
    run.rec = run.in->next();
    if (run.rec) heap.push(i);
  };
  if (and_buffer) advance(static_cast<int>(runs.size()) - 1);  // (pushed before the files': ties still go by run)
  for (size_t i = 0; i < paths.size(); ++i) {
    runs[i].in = std::make_unique<RecordRunReader>(paths[i], pool.get());
    advance(static_cast<int>(i));
  }
  while (!heap.empty()) {
    const int i = heap.top();
    heap.pop();
    out(runs[i].rec);
    advance(i);
  }
}

// Too many runs for one merge: groups of them merged into one run each, in rounds.
void BamSorter::merge_in_rounds() {
  const size_t before = runs_.size();
  // Each run being merged holds three blocks: as many runs at once as the budget holds.
  const size_t width = std::min(merge_width(), std::max<size_t>(4, opt_.memory_bytes / (3 * run_block_bytes())));
  runs_ = io::merge_in_rounds(
      std::move(runs_),
      [&](const std::vector<std::string>& group) {
        RecordRunWriter run(temp_path(), run_block_bytes(), opt_.threads);
        merge_runs(group, [&](bam1_t* b) { run.add(b); });
        run.finish();
        for (const std::string& p : group) std::remove(p.c_str());
        return run.path();
      },
      width);
  if (runs_.size() < before) {
    log::info("map", "sorted runs merged into " + std::to_string(runs_.size()) + " (open-file limit)");
  }
}

// The last merge, overlapped with writing the output: while the merge (this thread)
// fills one batch of records, the batch before it is marked, encoded and compressed on
// all threads. (Record by record, the writer waited for every 16 chunks it gathered and
// the merge for the writer: a 50 M-pair genome took 336 s to close, H200, 2026-12-07.)
void BamSorter::merge_into_output() {
  struct Batch {  // records packed as in the arena, in memory kept from batch to batch
    std::vector<uint64_t> words;  // (8-byte words: the packed records' alignment)
    std::vector<size_t> at;       // where each record begins, in bytes
    size_t used = 0;
  };
  // An eighth of the budget each (a GPU compressor's window of ~400 k records is ~140 MB).
  const size_t batch_bytes = std::clamp(opt_.memory_bytes / 8, size_t{1} << 20, size_t{256} << 20);
  Batch batches[2];
  for (Batch& b : batches) b.words.reserve(batch_bytes / 8 + 8192);
  std::future<void> written[2];
  size_t filling = 0;
  SerialWorker writing;
  const auto hand_over = [&] {
    Batch& full = batches[filling];
    written[filling] = writing.submit([this, &full] {
      out_->write_bam(full.at.size(), [this, &full](size_t i, bam1_t* view) {
        RecordArena::view(reinterpret_cast<const uint8_t*>(full.words.data()) + full.at[i], view);
        if (marker_) marker_->mark(view);
        return view;
      });
    });
    filling ^= 1;
    Batch& next = batches[filling];
    if (written[filling].valid()) written[filling].get();
    next.at.clear();
    next.used = 0;
  };
  const auto keep = [&](bam1_t* b) {  // a merged record into the batch being filled
    Batch& batch = batches[filling];
    const size_t bytes = RecordArena::bytes_of(b);  // a multiple of 8
    if (batch.words.size() * 8 < batch.used + bytes) batch.words.resize((batch.used + bytes) / 8);
    RecordArena::store(b, reinterpret_cast<uint8_t*>(batch.words.data()) + batch.used);
    batch.at.push_back(batch.used);
    batch.used += bytes;
    if (batch.used >= batch_bytes) hand_over();
  };
  try {
    merge_runs(runs_, keep, !buffer_.empty());
    if (!batches[filling].at.empty()) hand_over();
    for (std::future<void>& w : written) {
      if (w.valid()) w.get();
    }
  } catch (...) {
    for (std::future<void>& w : written) {  // the writer still reads the batches
      if (w.valid()) w.wait();
    }
    throw;
  }
}

void BamSorter::close() {
  double t = log::wall_seconds();
  const auto lap = [&](const char* what) {
    const double now = log::wall_seconds();
    log::debug("map", std::string(what) + " in " + std::to_string(now - t) + " s");
    t = now;
  };
  if (runs_.empty()) {  // everything fitted: no merge; marked, encoded and compressed on all threads
    // The duplicates are decided beside the records' sort (neither needs the other;
    // each has serial parts).
    std::future<void> deciding;
    if (marker_) {
      deciding = std::async(std::launch::async, [this] {
        omp_set_num_threads(opt_.threads);  // this thread's own setting: -t
        marker_->decide();
      });
    }
    sort_buffer();
    lap("records sorted");
    if (deciding.valid()) {
      deciding.get();
      lap("duplicates decided (beside the sort)");
    }
    out_->write_bam(buffer_.size(), [this](size_t i, bam1_t* view) {
      RecordArena::view(buffer_[i].at, view);
      if (marker_) marker_->mark(view);
      return view;
    });
    buffer_.clear();
    arena_.clear();
    buffered_bytes_ = 0;
    lap("records written");
    const SamWriter::BamLaps& w = out_->bam_laps();
    log::debug("map", "their windows encoded in " + std::to_string(w.encode_s) + " s, waiting for the writer " +
                          std::to_string(w.wait_s) + " s; there compressed in " + std::to_string(w.compress_s) +
                          " s, written in " + std::to_string(w.write_s) + " s, indexed in " +
                          std::to_string(w.index_s) + " s");
  } else {
    if (marker_) marker_->decide();
    lap("duplicates decided");
    sort_buffer();  // the last records: merged from memory, not spilled
    merge_in_rounds();
    merge_into_output();
    buffer_.clear();
    arena_.clear();
    buffered_bytes_ = 0;
    lap("runs merged and written");
  }
  out_->close();  // saves the index, renames the finished BAM into place
  lap("output closed");
}

}  // namespace gatemap::io

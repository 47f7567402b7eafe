#include "correct/read_input.hpp"

#include <omp.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <condition_variable>
#include <exception>
#include <mutex>

#include "common/error.hpp"
#include "common/log.hpp"
#include "common/ordered_lanes.hpp"
#include "common/side_task.hpp"
#include "correct/input_reading.hpp"

namespace gatemap::correct {

namespace {
// A regular file can be read again; a pipe or stdin cannot.
bool rereadable(const std::string& path) {
  struct stat st {};
  return path.empty() || (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode));
}
}  // namespace

double ReadInput::estimated_bases() const {
  double bases = 0;
  for (const std::string& path : {in1_, in2_}) {
    if (path.empty()) continue;
    struct stat st {};
    if (!rereadable(path) || ::stat(path.c_str(), &st) != 0) return -1;
    unsigned char magic[2] = {0, 0};
    if (FILE* f = std::fopen(path.c_str(), "rb")) {
      if (std::fread(magic, 1, 2, f) != 2) magic[0] = 0;
      std::fclose(f);
    }
    const bool gzip = magic[0] == 0x1f && magic[1] == 0x8b;
    bases += static_cast<double>(st.st_size) / 2.3 * (gzip ? 4 : 1);
  }
  return bases;
}

std::string ReadInput::file_identity(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return "";
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

ReadInput::ReadInput(const std::string& in1, const std::string& in2, size_t batch_reads, double keep_gb, int threads,
                     const std::string& reference)
    : in1_(in1), in2_(in2), reference_(reference), batch_reads_(batch_reads), threads_(threads) {
  const bool can_reread = rereadable(in1_) && rereadable(in2_);
  keep_bytes_ = (keep_gb >= 0 ? keep_gb : can_reread ? 0 : 4) * 1073741824.0;
}

// The first reading's pipeline item: a batch cut from the files by the reading thread,
// parsed and its text kept by a lane (several batches at once), then counted and kept or
// spilled by the writing thread, in input order.
struct FirstReadItem {
  io::RawBatch raw;  // as cut (sources that cannot cut parse on the reading thread)
  io::ReadBatch batch;
  std::exception_ptr parse_error;  // thrown in input order, so the first bad record is the one named
  KeptText text;
  bool text_kept = false;
};

namespace {
// Lanes that parse the first reading: parsing one batch on all cores is bound by its
// serial parts, a few batches at once are not.
int parse_lanes(int threads) { return std::clamp(threads / 4, 1, 4); }

// Batches in flight: one per lane and three more, so that reading runs ahead of counting
// (two more with one lane: a small machine's memory stays near the batches it works on).
size_t first_read_slots(int threads) {
  const int lanes = parse_lanes(threads);
  return static_cast<size_t>(lanes + (lanes > 1 ? 3 : 2));
}
}  // namespace

int ReadInput::threads() const { return threads_ > 0 ? threads_ : omp_get_max_threads(); }

// The first reading runs from start() on: the lanes parse while CUDA starts; the writing
// thread waits for first_pass to say what to do with each batch.
struct ReadInput::FirstReading {
  io::FastqSource source;
  std::mutex m;
  std::condition_variable cv;
  const std::function<void(const io::ReadBatch&)>* consume = nullptr;
  bool abandoned = false;  // no first_pass will come (ReadInput destroyed)
  double cut_s = 0, count_s = 0;  // the reading and the writing thread's busy time
  std::atomic<int64_t> parse_us{0}, keep_us{0};
  OrderedLanes<FirstReadItem> lanes;  // last: its threads use the members above

  FirstReading(ReadInput& in)
      : source(in.in1_, in.in2_, false, 1, in.reference_), lanes(first_read_slots(in.threads()), [this, &in](FirstReadItem& item) {
          const log::StageTimer timing(cut_s);
          item.text_kept = false;
          item.parse_error = nullptr;
          if (source.cuts()) return source.cut_batch(item.raw, in.batch_reads_, in.batch_reads_ * 300);
          item.raw.cut = false;
          return source.next_batch(item.batch, in.batch_reads_, in.batch_reads_ * 300);
        }) {}

  // The writing thread: waits until first_pass hands over what to do with each batch.
  const std::function<void(const io::ReadBatch&)>& wait_for_consumer() {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return consume || abandoned; });
    if (!consume) throw Error("the first reading was abandoned");
    return *consume;
  }
};

ReadInput::~ReadInput() {
  if (freeing_.valid()) freeing_.wait();
  if (!first_) return;
  {
    const std::lock_guard<std::mutex> lock(first_->m);
    first_->abandoned = true;
  }
  first_->cv.notify_all();
  first_->lanes.wait();
}

void ReadInput::start() {
  if (passes_ > 0 || first_) return;
  identity1_ = file_identity(in1_), identity2_ = file_identity(in2_);
  can_reread_ = rereadable(in1_) && rereadable(in2_);
  all_kept_ = keep_bytes_ > 0 || !can_reread_;
  first_ = std::make_unique<FirstReading>(*this);
  FirstReading& first = *first_;
  // The cores but two (the reading thread cuts both files at once) shared by the lanes.
  const int lanes = parse_lanes(threads()), lane_threads = std::max(1, (threads() - 2) / lanes);
  first.lanes.start(
      lanes,
      [this, &first, lane_threads](int) {
        while (FirstReadItem* item = first.lanes.next(false)) {
          try {
            log::Stopwatch clock;
            if (item->raw.cut) io::FastqSource::parse_batch(item->raw, item->batch, lane_threads);
            first.parse_us += static_cast<int64_t>(1e6 * clock.lap());
            if (text_allowance_ > 0) item->text_kept = item->text.keep(item->batch, lane_threads);
            first.keep_us += static_cast<int64_t>(1e6 * clock.lap());
          } catch (...) {  // thrown by the writing thread, in input order
            item->parse_error = std::current_exception();
          }
          first.lanes.done(item);
        }
      },
      [this, &first](FirstReadItem& item) {
        const auto& fn = first.wait_for_consumer();
        const log::StageTimer timing(first.count_s);
        if (item.parse_error) std::rethrow_exception(item.parse_error);
        take_first(item, fn);
      });
}

// One batch of the first reading, in input order: counted (fn), its text kept, the batch
// kept or spilled.
void ReadInput::take_first(FirstReadItem& item, const std::function<void(const io::ReadBatch&)>& fn) {
  io::ReadBatch& batch = item.batch;
  if (!first_failed_) {
    try {
      fn(batch);
    } catch (const CudaError&) {
      first_failed_ = std::current_exception();
    }
  }
  reads_ += static_cast<int64_t>(batch.size());
  keep_text_of(item);
  if (all_kept_) {
    for (const io::Read& r : batch.reads) kept_bytes_ += 96.0 + r.name.size() + 2.0 * r.seq.size();
    if (kept_bytes_ <= keep_bytes_) {
      kept_.push_back(std::move(batch));
      batch = io::ReadBatch();
      return;
    }
    all_kept_ = false;
    if (!can_reread_) {
      spill_ = std::make_unique<Spill>(batch.paired, threads_);
      for (const io::ReadBatch& b : kept_) spill_->write(b);
    }
    kept_.clear();
  }
  if (spill_) spill_->write(batch);
}

void ReadInput::first_pass(const std::function<void(const io::ReadBatch&)>& fn) {
  if (passes_ > 0) {  // read before (a count on the GPU that failed): a replay
    replay(fn);
    return;
  }
  // After a GPU error fn is not called again, but the reading goes on (keeping or
  // spilling the reads) so that a retry on the CPU can replay them; the error is
  // thrown at the end. Other errors end the reading.
  start();
  FirstReading& first = *first_;
  const log::Stopwatch t0;
  {
    const std::lock_guard<std::mutex> lock(first.m);
    first.consume = &fn;
  }
  first.cv.notify_all();
  const std::exception_ptr error = first.lanes.wait();
  // Counting waited for reads for the rest of the pass.
  read_wait_s_ += std::max(0.0, t0.seconds() - first.count_s);
  log::debug("correct", "first reading: cut " + std::to_string(first.cut_s) + " s, parsed " +
                            std::to_string(first.parse_us * 1e-6) + " s and text kept " +
                            std::to_string(first.keep_us * 1e-6) + " s on the lanes, counted " +
                            std::to_string(first.count_s) + " s; done at " + std::to_string(log::wall_seconds()) + " s");
  // Its batches are freed beside what comes next (millions of small blocks: a tenth of a
  // second per million pairs).
  freeing_ = run_beside([done = std::move(first_)]() mutable { done.reset(); });
  if (spill_) spill_->close();
  passes_ = 1;
  if (error) std::rethrow_exception(error);
  if (first_failed_) std::rethrow_exception(first_failed_);
}

void ReadInput::keep_text_of(FirstReadItem& item) {
  if (text_allowance_ > 0 && item.text_kept && text_bytes_ + item.text.bytes() <= text_allowance_) {
    text_bytes_ += item.text.bytes();
    texts_.push_back(std::move(item.text));
    item.text = KeptText();
    return;
  }
  if (text_allowance_ > 0 || !texts_.empty()) {  // one batch not kept (or none wanted after all): none is
    text_allowance_ = 0;
    texts_ = std::vector<KeptText>();
  }
  item.text = KeptText();
}

std::vector<KeptText> ReadInput::take_text() {
  std::vector<KeptText> out;
  if (text_allowance_ > 0 && passes_ > 0) out.swap(texts_);
  return out;
}

void ReadInput::check_unchanged() const {
  if (spill_) return;  // our own copy
  for (const auto& [path, seen] : {std::pair{in1_, identity1_}, {in2_, identity2_}}) {
    if (!path.empty() && file_identity(path) != seen) {
      throw FormatError("'" + path + "' changed after correct read it (the corrector reads its input twice)");
    }
  }
}

void ReadInput::check_replayed(int64_t replayed) const {
  if (replayed != reads_) {
    throw FormatError("'" + in1_ + "' gave " + std::to_string(replayed) + " reads the second time, " +
                      std::to_string(reads_) + " the first (changed while correct ran?)");
  }
}

void ReadInput::replay(const std::function<void(io::ReadBatch&)>& fn) {
  ++passes_;
  if (all_kept_) {
    for (io::ReadBatch& b : kept_) fn(b);
    return;
  }
  check_unchanged();
  ReadAhead reader(spill_ ? spill_->path(0) : in1_, spill_ ? spill_->path(1) : in2_, batch_reads_, reference_);
  int64_t replayed = 0;
  while (io::ReadBatch* batch = reader.next(read_wait_s_)) {
    replayed += static_cast<int64_t>(batch->size());
    fn(*batch);
  }
  check_replayed(replayed);
}

ReplayPass::ReplayPass(ReadInput& input) : input_(input) {
  ++input_.passes_;
  if (input_.all_kept_) return;
  input_.check_unchanged();
  const Spill* spill = input_.spill_.get();
  source_ = std::make_unique<io::FastqSource>(spill ? spill->path(0) : input_.in1_,
                                              spill ? spill->path(1) : input_.in2_, false, 1, input_.reference_);
}

ReplayPass::~ReplayPass() = default;

io::ReadBatch* ReplayPass::next(io::ReadBatch& space) {
  if (input_.all_kept_) return kept_ < input_.kept_.size() ? &input_.kept_[kept_++] : nullptr;
  if (!source_->next_batch(space, input_.batch_reads_, input_.batch_reads_ * 300)) {
    input_.check_replayed(replayed_);
    return nullptr;
  }
  replayed_ += static_cast<int64_t>(space.size());
  return &space;
}

}  // namespace gatemap::correct

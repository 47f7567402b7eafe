#include "correct/count_pass.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "common/log.hpp"

namespace gatemap::correct {

namespace {

// Counts every part in `todo`, and the halves dropped on the way, to completion: one
// replay of the reads each; done() sees the table after each part.
void count_parts(CountTable& table, ReadInput& input, std::vector<KmerPart> todo, const std::function<void()>& done) {
  while (!todo.empty()) {
    const KmerPart part = todo.back();
    todo.pop_back();
    table.reset(part);
    input.replay([&](io::ReadBatch& b) { table.add(b.reads, todo); });
    done();
  }
}

// --spectrum auto: the exact set while its table takes at most this much (about 90 M
// solid k-mers in 64-bit slots, 170 M in compact ones: a bacterial or chromosome-sized
// set), a Bloom filter beyond. The exact set has no false positives (a Bloom filter's let
// an error pass as solid now and then); lookups cost about the same, one cache line each.
constexpr size_t kAutoExactBytes = size_t{1} << 30;

bool is_exact(int k, uint64_t n, const std::string& kind, bool compact) {
  return kind == "exact" || (kind == "auto" && KmerSpectrum::exact_bytes(k, n, compact) <= kAutoExactBytes);
}

KmerSpectrum empty_spectrum(int k, uint64_t n, const std::string& kind, double fpr, bool compact) {
  return is_exact(k, n, kind, compact) ? KmerSpectrum::make_exact(k, n, compact) : KmerSpectrum::make_bloom(k, n, fpr);
}

// An unlinked temporary file in $TMPDIR (or /tmp): gone when closed or the process dies.
FILE* anonymous_temp_file() {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/gatemap-kmers-XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd < 0) return nullptr;
  unlink(path.c_str());
  FILE* fp = fdopen(fd, "w+b");
  if (!fp) close(fd);
  return fp;
}

// K-mers and their counts kept in two anonymous temporary files (the same order); a
// failed write only makes ok() false.
class CountFile {
 public:
  CountFile() : keys_(anonymous_temp_file()), counts_(anonymous_temp_file()) {}
  ~CountFile() {
    if (keys_) std::fclose(keys_);
    if (counts_) std::fclose(counts_);
  }
  CountFile(const CountFile&) = delete;
  CountFile& operator=(const CountFile&) = delete;
  bool ok() const { return keys_ && counts_ && ok_; }
  void add(uint64_t key, uint32_t count) {
    key_buf_.push_back(key);
    count_buf_.push_back(count);
    if (key_buf_.size() == kChunk) flush();
  }
  // The k-mers counted at least `threshold` times, a chunk at a time; false when a file
  // failed.
  bool for_each_solid_chunk(uint32_t threshold, const std::function<void(const std::vector<uint64_t>&)>& fn) {
    flush();
    if (!ok() || std::fseek(keys_, 0, SEEK_SET) != 0 || std::fseek(counts_, 0, SEEK_SET) != 0) return false;
    key_buf_.resize(kChunk);
    count_buf_.resize(kChunk);
    std::vector<uint64_t> solid;
    for (size_t n; (n = std::fread(key_buf_.data(), sizeof(uint64_t), kChunk, keys_)) > 0;) {
      if (std::fread(count_buf_.data(), sizeof(uint32_t), n, counts_) != n) return false;
      solid.clear();
      for (size_t i = 0; i < n; ++i) {
        if (count_buf_[i] >= threshold) solid.push_back(key_buf_[i]);
      }
      fn(solid);
    }
    return !std::ferror(keys_);
  }

 private:
  static constexpr size_t kChunk = size_t{1} << 20;
  void flush() {
    if (ok() && !key_buf_.empty()) {
      ok_ = std::fwrite(key_buf_.data(), sizeof(uint64_t), key_buf_.size(), keys_) == key_buf_.size() &&
            std::fwrite(count_buf_.data(), sizeof(uint32_t), count_buf_.size(), counts_) == count_buf_.size();
    }
    key_buf_.clear();
    count_buf_.clear();
  }
  FILE* keys_;
  FILE* counts_;
  bool ok_ = true;
  std::vector<uint64_t> key_buf_;
  std::vector<uint32_t> count_buf_;
};

}  // namespace

KmerSpectrum build_spectrum(const CountTable& table, uint32_t threshold, const std::string& kind, double fpr,
                            bool compact) {
  uint64_t n = 0;
  table.for_each_solid(threshold, [&](uint64_t) { ++n; });
  KmerSpectrum s = empty_spectrum(table.k(), n, kind, fpr, compact);
  table.insert_solid(threshold, s);
  return s;
}

KmerSpectrum count_and_build_spectrum(CountTable& table, ReadInput& input, const SpectrumOptions& opt,
                                      CountStats& stats) {
  // Round 1: every part counted, histograms summed. The first part is counted while the
  // input is read (or in the first replay, after a table that looks first has seen
  // it); a part narrowed on the way leaves its other halves for replays.
  const uint32_t max_count = std::max(kHistogramMax, opt.threshold);
  stats = CountStats{};
  stats.histogram.assign(max_count + 1, 0);
  std::vector<KmerPart> todo, counted;
  // With several parts, each part's k-mers that could be solid (seen at least twice, or
  // --solid times) are kept with their counts in files as soon as it is counted; once the
  // whole histogram gives the threshold, the spectrum is filled from the files instead of
  // a second round of passes over the reads (the round runs only if the files fail).
  const uint32_t lowest_threshold = opt.threshold ? opt.threshold : 2;  // first_valley's least
  CountFile kept;
  auto add_part = [&] {
    const auto h = table.histogram(max_count);
    for (size_t c = 0; c < h.size(); ++c) stats.histogram[c] += h[c];
    stats.distinct += table.distinct();
    stats.table_bytes = std::max(stats.table_bytes, table.bytes());
    counted.push_back(table.part());
    if (todo.empty() && counted.size() == 1) return;  // one part: the table keeps it
    if (kept.ok()) table.for_each_counted(lowest_threshold, [&](uint64_t x, uint32_t c) { kept.add(x, c); });
  };
  table.reset(KmerPart{});
  int64_t counted_reads = 0;
  const auto count = [&](const io::ReadBatch& b) {
    table.add(b.reads, todo);
    counted_reads += static_cast<int64_t>(b.size());
    log::info("correct", "counted k-mers of " + std::to_string(counted_reads) + " reads");
  };
  if (table.looks_first()) {
    input.first_pass([&](const io::ReadBatch& b) { table.look(b.reads); });
    input.replay(count);
  } else {
    input.first_pass(count);
  }
  stats.kmers = table.kmers_seen();
  add_part();
  log::debug("correct", "histogram of the first part taken");
  if (!todo.empty()) {
    log::info("correct", "the k-mer counts outgrow --count-mem: counting the rest in " + std::to_string(todo.size()) +
                             " more parts, one pass over the reads each");
  }
  count_parts(table, input, todo, add_part);
  stats.parts = static_cast<int>(counted.size());

  stats.threshold = opt.threshold ? opt.threshold : first_valley(stats.histogram);
  uint64_t solid = 0;
  for (size_t c = std::max<uint32_t>(stats.threshold, 1); stats.threshold && c < stats.histogram.size(); ++c) {
    solid += stats.histogram[c];
  }
  const log::Stopwatch t0;
  if (counted.size() == 1 && stats.threshold && is_exact(table.k(), solid, opt.kind, opt.compact)) {
    // The solid k-mers leave the table for the set (the CPU table empties itself before
    // the set is made: the counts and the set never take host memory at once; the GPU
    // table fills the set on the device).
    KmerSpectrum spectrum = table.take_exact_spectrum(stats.threshold, solid, opt.compact);
    log::debug("correct", "exact spectrum filled");
    stats.spectrum_s = t0.seconds();
    return spectrum;
  }
  KmerSpectrum spectrum = empty_spectrum(table.k(), solid, opt.kind, opt.bloom_fpr, opt.compact);
  if (!stats.threshold) return spectrum;
  const auto insert = [&] { table.insert_solid(stats.threshold, spectrum); };
  if (counted.size() == 1) {
    insert();  // the table still holds its one part
  } else if (kept.for_each_solid_chunk(stats.threshold,
                                       [&](const std::vector<uint64_t>& keys) { spectrum.insert_many(keys); })) {
    stats.rounds = 1;
    log::info("correct", "solid k-mers of " + std::to_string(counted.size()) + " parts taken from the counts kept");
  } else {
    // Round 2: each part again (the same counts), its solid k-mers into the spectrum.
    log::warn("correct", "the k-mer counts could not be kept in $TMPDIR: collecting the solid k-mers of " +
                             std::to_string(counted.size()) + " parts in a second round of passes");
    spectrum = empty_spectrum(table.k(), solid, opt.kind, opt.bloom_fpr, opt.compact);  // any filled from the file: again
    stats.rounds = 2;
    count_parts(table, input, counted, insert);
  }
  stats.spectrum_s = t0.seconds();
  return spectrum;
}

uint32_t first_valley(const std::vector<uint64_t>& h) {
  for (size_t c = 2; c + 1 < h.size(); ++c) {
    if (h[c] > h[c + 1]) continue;
    // A valley only counts when a coverage peak follows it and the k-mers above it
    // carry most of the data (at low coverage a few repeats would pass for a peak). The
    // last bin (every count above the range) is a peak only when it holds half the data:
    // coverage beyond the histogram, not repeats.
    uint64_t peak = 0;
    double above = 0, all = 0;
    for (size_t p = 1; p < h.size(); ++p) {
      all += static_cast<double>(p) * static_cast<double>(h[p]);
      if (p >= c) above += static_cast<double>(p) * static_cast<double>(h[p]);
      if (p > c && p + 1 < h.size()) peak = std::max(peak, h[p]);
    }
    const double last = static_cast<double>(h.size() - 1) * static_cast<double>(h.back());
    if (h.size() - 1 > c && last >= 0.5 * all) peak = std::max(peak, h.back());
    const bool real_peak = peak > 0 && peak * 2 >= h[c] * 3;
    return real_peak && above >= 0.5 * all ? static_cast<uint32_t>(c) : 0;
  }
  return 0;
}

}  // namespace gatemap::correct

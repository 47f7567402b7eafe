#pragma once
// An external sort of plain records (trivially copyable): records are kept in memory up
// to a byte budget, then sorted and written to a temporary file (a run, as compressed
// blocks: io/sort/run_blocks.hpp); at the end for_each_sorted merges the runs and what is left
// in memory, in order. For keys that grow
// with the input (duplicate marking): memory stays near the budget for any input size.
// Less must order the records strictly (no two equal, as keys ending in the record's
// input number do): the one order is then found on all threads (io/sort/parallel_sort.hpp).
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <type_traits>
#include <vector>

#include "common/error.hpp"
#include "io/mapped_buffer.hpp"
#include "io/sort/parallel_sort.hpp"
#include "io/sort/run_blocks.hpp"

namespace gatemap::io {

// How many runs one merge may open: half the open-file limit left after a margin for the
// rest of the process (4..256). More runs are merged in rounds, groups of runs into one.
inline size_t merge_width() {
  struct rlimit lim {};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return 256;
  const size_t soft = static_cast<size_t>(lim.rlim_cur);
  return std::clamp<size_t>(soft > 32 ? (soft - 32) / 2 : 0, 4, 256);
}

// Runs (temporary files, in order) merged in rounds until one merge can open them all:
// each group of `width` (>= 2) consecutive runs becomes the run merge_group(group) writes
// (ties stay in run order). Returns the runs left.
inline std::vector<std::string> merge_in_rounds(
    std::vector<std::string> runs, const std::function<std::string(const std::vector<std::string>&)>& merge_group,
    size_t width = merge_width()) {
  while (runs.size() > width) {
    std::vector<std::string> merged;
    for (size_t i = 0; i < runs.size(); i += width) {
      const std::vector<std::string> group(runs.begin() + i, runs.begin() + std::min(runs.size(), i + width));
      merged.push_back(group.size() == 1 ? group[0] : merge_group(group));
    }
    runs = std::move(merged);
  }
  return runs;
}

template <class T, class Less>
class SpilledSort {
  static_assert(std::is_trivially_copyable_v<T>, "runs hold raw records");

 public:
  // temp_path: a new temporary file's path for each run (its owner removes the folder).
  SpilledSort(size_t budget_bytes, std::function<std::string()> temp_path, Less less = Less())
      : cap_(std::max<size_t>(1024, budget_bytes / sizeof(T))), temp_path_(std::move(temp_path)), less_(less) {}
  ~SpilledSort() {
    for (const std::string& p : runs_) std::remove(p.c_str());
  }
  SpilledSort(const SpilledSort&) = delete;
  SpilledSort& operator=(const SpilledSort&) = delete;

  void push(const T& x) {
    buf_.push_back(x, cap_);  // grows, but never past the budget
    if (buf_.size() >= cap_) spill();
  }
  size_t runs() const { return spilled_; }  // runs written from memory

  // Calls f on every record in order. Once: the records are gone afterwards.
  template <class F>
  void for_each_sorted(F&& f) {
    sort_buffer();
    if (runs_.empty()) {
      for (const T& x : buf_) f(x);
      buf_.release();
      return;
    }
    if (!buf_.empty()) spill_sorted();
    buf_.release();
    runs_ =
        merge_in_rounds(std::move(runs_), [&](const std::vector<std::string>& group) { return merge_into_run(group); });
    merge(runs_, f);
  }

 private:
  void sort_buffer() {  // on all threads
    sort_on_all_threads(buf_, less_);
  }
  void spill() {
    sort_buffer();
    spill_sorted();
    buf_.clear();
  }
  // Records a run's block holds (io/sort/run_blocks.hpp): whole records only.
  static constexpr size_t kBlockRecords = kRunBlockBytes / sizeof(T);

  // The buffer as a run of compressed blocks, compressed on all threads.
  void spill_sorted() {
    const std::string path = temp_path_();
    runs_.push_back(path);
    ++spilled_;
    BlockRunWriter out(path);
    for (const auto& block : compress_run_blocks(reinterpret_cast<const char*>(buf_.data()), buf_.size() * sizeof(T),
                                                 kBlockRecords * sizeof(T), omp_get_max_threads())) {
      out.write_compressed(block);
    }
    out.close();
  }

  // The runs merged into a new one (a block at a time); the old ones removed.
  std::string merge_into_run(const std::vector<std::string>& group) {
    const std::string path = temp_path_();
    BlockRunWriter out(path);
    std::vector<T> chunk;
    chunk.reserve(kBlockRecords);
    const auto write = [&] {
      if (!chunk.empty()) out.write(reinterpret_cast<const char*>(chunk.data()), chunk.size() * sizeof(T));
      chunk.clear();
    };
    merge(group, [&](const T& x) {
      chunk.push_back(x);
      if (chunk.size() == kBlockRecords) write();
    });
    write();
    out.close();
    for (const std::string& p : group) std::remove(p.c_str());
    return path;
  }

  // k-way merge of these runs, each read a block at a time.
  template <class F>
  void merge(const std::vector<std::string>& paths, F&& f) {
    struct Run {
      std::unique_ptr<BlockRunReader> in;
      std::vector<T> buf;  // room for a whole block
      size_t at = 0, n = 0;
    };
    std::vector<Run> runs(paths.size());
    const auto refill = [&](size_t i) {
      Run& r = runs[i];
      r.n = r.in->next(reinterpret_cast<char*>(r.buf.data())) / sizeof(T);
      r.at = 0;
      return r.n > 0;
    };
    const auto later = [&](size_t a, size_t b) {  // min-heap; ties: the earlier run
      const T& x = runs[a].buf[runs[a].at];
      const T& y = runs[b].buf[runs[b].at];
      if (less_(y, x)) return true;
      return !less_(x, y) && a > b;
    };
    std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heap(later);
    for (size_t i = 0; i < runs.size(); ++i) {
      runs[i].in = std::make_unique<BlockRunReader>(paths[i]);
      runs[i].buf.resize((kRunBlockBytes + sizeof(T) - 1) / sizeof(T));
      if (refill(i)) heap.push(i);
    }
    while (!heap.empty()) {
      const size_t i = heap.top();
      heap.pop();
      f(runs[i].buf[runs[i].at]);
      if (++runs[i].at < runs[i].n || refill(i)) heap.push(i);
    }
  }

  size_t cap_;  // records in memory before a run is written
  std::function<std::string()> temp_path_;
  Less less_;
  MappedBuffer<T> buf_;
  std::vector<std::string> runs_;  // on disk now (merged ones replace theirs)
  size_t spilled_ = 0;
};

}  // namespace gatemap::io

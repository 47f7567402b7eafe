#pragma once
// correct's helpers for reading its input (correct/read_input.cpp): a copy of an input
// that cannot be read twice, spilled to a temporary folder (removed at the end and on
// signals), and batches parsed one ahead of the caller.
#include <algorithm>
#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/log.hpp"
#include "common/signal_cleanup.hpp"
#include "io/output_file.hpp"
#include "io/reads/fastq.hpp"
#include "io/text/fastq_writer.hpp"

namespace gatemap::correct {

// The input's reads, bgzipped to a temporary folder as they are first read.
class Spill {
 public:
  Spill(bool paired, int threads) {
    dir_ = io::make_temp_folder("gatemap-correct-");
    on_signal_ = RemovedOnSignal(dir_, true);
    for (int m = 0; m < (paired ? 2 : 1); ++m) {
      paths_.push_back(dir_ + "/reads_" + std::to_string(m + 1) + ".fq.gz");
      writers_.push_back(std::make_unique<io::FastqWriter>(paths_.back(), std::max(1, threads)));
    }
    log::info("correct", "the input cannot be read twice and outgrows --keep-reads-gb: spilling it to '" + dir_ + "'");
  }
  ~Spill() {
    writers_.clear();
    on_signal_.remove_now();  // allocates nothing: works when memory ran out
  }
  void write(const io::ReadBatch& batch) {
    for (size_t i = 0; i < batch.size(); ++i) writers_[batch.paired ? i % 2 : 0]->write(batch.reads[i]);
  }
  void close() {
    for (auto& w : writers_) w->close();
  }
  std::string path(int mate) const { return mate < static_cast<int>(paths_.size()) ? paths_[mate] : ""; }

 private:
  std::string dir_;
  RemovedOnSignal on_signal_;  // the folder and its reads go if a signal ends the run
  std::vector<std::string> paths_;
  std::vector<std::unique_ptr<io::FastqWriter>> writers_;
};

// Batches of a FASTQ source, the next one parsed on another thread while the caller
// works on the current one (parsing starts when it is made).
class ReadAhead {
 public:
  ReadAhead(const std::string& in1, const std::string& in2, size_t batch_reads, const std::string& reference)
      : src_(in1, in2, false, 1, reference), batch_reads_(batch_reads), pending_(parse()) {}
  ~ReadAhead() {
    if (pending_.valid()) pending_.wait();
  }
  // The next batch (the caller may change it until the next call), or null at the end;
  // wait_s grows by the time spent waiting for the parser.
  io::ReadBatch* next(double& wait_s) {
    bool more;
    {
      const log::StageTimer timing(wait_s);
      more = pending_.get();
    }
    if (!more) return nullptr;
    std::swap(current_, next_);
    pending_ = parse();
    return &current_;
  }

 private:
  std::future<bool> parse() {
    return std::async(std::launch::async, [this] { return src_.next_batch(next_, batch_reads_, batch_reads_ * 300); });
  }
  io::FastqSource src_;
  size_t batch_reads_;
  io::ReadBatch current_, next_;
  std::future<bool> pending_;
};

}  // namespace gatemap::correct

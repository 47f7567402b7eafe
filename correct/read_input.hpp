#pragma once
// The corrector's reads, read once from the input and then replayed as often as the
// count pass and the correction pass need: kept in memory while they fit the allowance
// (parsing FASTQ is most of a pass), else read again from the files, or, for inputs
// that cannot be read twice (a pipe, stdin), from a bgzipped copy spilled to a
// temporary folder during the first reading and removed at the end.
#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <future>
#include <vector>

#include "correct/kept_text.hpp"
#include "io/reads/fastq.hpp"

namespace gatemap::correct {

class Spill;
struct FirstReadItem;
class ReplayPass;

class ReadInput {
 public:
  // keep_gb < 0: files are read again, other input kept up to 4 GB.
  // reference: the FASTA a CRAM input is decoded against.
  ReadInput(const std::string& in1, const std::string& in2, size_t batch_reads, double keep_gb, int threads,
            const std::string& reference = "");
  ~ReadInput();
  const std::string& path() const { return in1_; }  // the (first) input, for messages
  // Starts parsing the first batches on another thread (first_pass does, if not yet).
  void start();
  // The first reading; fn sees every batch in input order. When fn throws a CudaError,
  // the reading still ends (so that replays work) and the error is thrown then. Called
  // again: a replay.
  void first_pass(const std::function<void(const io::ReadBatch&)>& fn);
  // Every batch again, in input order (after first_pass); fn may change the batch.
  void replay(const std::function<void(io::ReadBatch&)>& fn);
  // The first reading (called before it) also keeps every batch as the text the corrector
  // writes (KeptText), up to `bytes` in all (past them, or for FASTA, none is kept).
  // Called before start(), the lanes keep text from the first batch on; keep_text(0) after
  // it drops what they kept.
  void keep_text(size_t bytes) { text_allowance_ = bytes; }
  // The kept text of every batch when all of it was kept, else nothing; handed over.
  std::vector<KeptText> take_text();
  bool all_kept() const { return all_kept_; }
  // About how many bases the input files hold, from their sizes (FASTQ takes about 2.3
  // bytes a base; gzip, by its first two bytes, about a quarter of that); -1 when a file
  // cannot be read twice (a pipe, stdin) and so has no size to tell.
  double estimated_bases() const;
  int64_t reads() const { return reads_; }
  int passes() const { return passes_; }
  double read_wait_s() const { return read_wait_s_; }  // waiting for the parser, all passes

 private:
  friend class ReplayPass;
  void keep_text_of(FirstReadItem& item);  // first_pass's, in input order: the batch's text, while it fits
  // A replay from the files: they must be the ones read first. After one: as many reads.
  void check_unchanged() const;
  void check_replayed(int64_t replayed) const;
  int threads() const;  // -t, or all
  std::string in1_, in2_, reference_;
  size_t batch_reads_;
  double keep_bytes_;
  int threads_;
  std::vector<io::ReadBatch> kept_;
  bool all_kept_ = true;
  std::atomic<size_t> text_allowance_{0};  // read by the first reading's lane
  size_t text_bytes_ = 0;
  std::vector<KeptText> texts_;
  std::unique_ptr<Spill> spill_;
  // The first reading: a pipeline (common/ordered_lanes.hpp) running from start() on.
  struct FirstReading;
  std::unique_ptr<FirstReading> first_;
  std::shared_future<void> freeing_;  // frees the first reading's batches once it ended
  void take_first(FirstReadItem& item, const std::function<void(const io::ReadBatch&)>& fn);
  bool can_reread_ = true;
  double kept_bytes_ = 0;
  std::exception_ptr first_failed_;  // a CudaError of the first reading's fn, thrown when it ends
  int64_t reads_ = 0;
  int passes_ = 0;
  // Device, inode, size and time of the input files when first read: a replay from them
  // checks they are unchanged.
  static std::string file_identity(const std::string& path);
  std::string identity1_, identity2_;
  double read_wait_s_ = 0;
};

// One more pass over the reads (after first_pass), a batch at a time: replay's pull form,
// for the reading thread of a pipeline (common/ordered_lanes.hpp).
class ReplayPass {
 public:
  explicit ReplayPass(ReadInput& input);
  ~ReplayPass();
  // The next batch in input order: a kept one, or `space` filled from the files (or their
  // spilled copy); null at the end, once the files gave the first reading's reads.
  io::ReadBatch* next(io::ReadBatch& space);

 private:
  ReadInput& input_;
  size_t kept_ = 0;
  std::unique_ptr<io::FastqSource> source_;
  int64_t replayed_ = 0;
};

}  // namespace gatemap::correct

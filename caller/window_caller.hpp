#pragma once
// The caller's run: reads stream in by position; each window of the contig is turned
// into active regions, the regions are assembled in parallel, all their read x haplotype
// pairs go to the pair-HMM engine in one batch (one group per region), and the sites are
// genotyped and written in order. A cluster of regions cut by the window's end waits
// for the next window, which starts where the cluster does: regions are then the same
// wherever windows start, so calling a part of the genome (-L, e.g. scattered over a
// cluster) gives exactly the whole run's calls there.
// WindowCaller walks the genome (window_caller.cpp) and writes the records
// (window_emit.cpp); call.cpp runs it whole or in parts, one lane per GPU.
#include <omp.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "caller/caller.hpp"
#include "caller/detail.hpp"
#include "caller/gvcf.hpp"
#include "caller/input.hpp"
#include "caller/intervals.hpp"
#include "caller/pairhmm/pairhmm.hpp"
#include "caller/read_ahead.hpp"
#include "caller/window_steps.hpp"
#include "common/log.hpp"
#include "common/serial_worker.hpp"
#include "gpu/device.hpp"
#include "io/reads/fasta.hpp"
#include "io/text/vcf_writer.hpp"

namespace gatemap::caller {

using detail::AlignedRead;
using detail::Event;
using detail::Region;
using detail::RegionWork;
using detail::SiteRecord;

using Reference = std::vector<io::FastaRecord>;
using EngineFuture = std::shared_future<std::shared_ptr<pairhmm::PairHmmEngine>>;

// A part of the genome called on a lane of its own (one per GPU): its intervals, and
// what calling them gave, kept for the run's writer (which writes parts in order).
struct PartCalls {
  std::vector<Interval> intervals;
  std::vector<std::pair<int, detail::SiteCall>> calls;  // reference contig, call
  CallStats stats;
};

// The header of the run's VCF: the reference's contigs, the samples, the fields written.
io::VcfHeaderInfo vcf_header(const CallOptions& opt, const Reference& ref, const std::vector<std::string>& samples);

class WindowCaller {
 public:
  // `engine`: the pair-HMM engine being made on the backend chosen, waited for by the
  // first batch (a GPU's start-up overlaps opening the input and the first window's
  // assembly). With `in_parts`, a lane's caller: call_part() calls one part after
  // another, keeping their calls for the run's writer; otherwise run() calls the whole
  // run (or -L) into opt.output.
  WindowCaller(const CallOptions& opt, std::shared_ptr<const Reference> ref, gpu::Backend backend, EngineFuture engine,
               bool in_parts = false);

  CallStats run();

  // A lane's next part: its intervals called as -L calls them, the calls kept in p. The
  // input, its read-ahead and the reads' buffers serve the lane's parts one after another
  // (made afresh for each part, they were half of a part's time on 4 GPUs).
  CallStats call_part(PartCalls& p);

 private:
  static constexpr int64_t kReadReach = 2000;  // reads starting this far past a window cannot reach into it
  static constexpr int64_t kLeadIn = 2000;     // an interval's first window starts this far before it
  // A span's windows end at most this far past its stop, and a lead-in's first window this
  // far past the interval's start: a part of the genome decodes and assembles little more
  // than itself (a cluster such a window cuts is called whole by the next, widened one).
  int64_t span_tail() const { return std::min<int64_t>(10000, opt_.window / 10); }

  // The input's counts at a point of the run, read with the read-ahead stopped (its
  // thread counts them).
  struct InputMark {
    int64_t seen = 0, filtered = 0;
    double waited_s = 0;
  };
  InputMark input_mark();
  // The reads, filtered reads and input wait since `before` into the stats.
  void count_input_since(const InputMark& before);

  const std::string& contig_seq(int tid) { return ref_[ref_index_.at(input_.contigs()[tid])].seq; }
  int64_t contig_len(int tid) { return static_cast<int64_t>(contig_seq(tid).size()); }

  void advance() { has_pending_ = reader_.next(pending_tid_, pending_); }

  // Moves the pending reads of contig tid that start before `until` into the window, a
  // start position at a time (downsampled there).
  void pull_reads(int tid, int64_t until);

  // A window needs reads past the query's end (one widened over a long cluster at its
  // span's end): the query goes on from the first read not yet pulled.
  void extend_query(int tid, int64_t until);

  void call_everything();

  // The calls of the whole run inside iv: the reads from a lead-in before it on, through
  // the index; the lead-in grows until the cluster of regions it cuts ends before iv.
  void call_interval(const Interval& iv);

  // The whole genome's progress every 10 s: where the windows are, the share of the
  // reference's bases behind them, and the time left at this pace.
  void say_progress(int tid);

  // Reads that end before `from` leave the window (in order) and go back to the reader.
  void drop_reads_before(int64_t from);

  // Calls contig tid in windows of `window` bases from ws0 until a window starts at or
  // past `stop`, pulling reads as the windows need them. With lead_in, ws0 may fall inside a cluster
  // of regions: the first cluster, unless it starts 2 x padding past ws0, is dropped
  // (what lies before ws0 could have joined it). Returns false when that cluster reached
  // emit_begin_ (a longer lead-in is needed).
  bool call_span(int tid, int64_t ws0, int64_t stop, int64_t window, bool lead_in);

  // Calls the regions of [ws_, we) and returns where the next window starts: at the
  // cluster the window's end cuts (unless we is the contig's end), else at we. A cluster
  // starting at ws_ itself is called cut when `force`, else nothing is done and ws_ is
  // returned.
  int64_t process_window(int tid, int64_t we, bool force);

  // A window between its assembly and its records: its pair-HMM batch being scored
  // (on the GPU while the next window is assembled) and, for a gVCF, its bases'
  // reference confidence (taken before its reads are dropped).
  struct PendingWindow {
    int tid = -1;
    std::vector<RegionWork> work;
    pairhmm::PairHmmBatch batch;
    std::vector<double> lik;
    pairhmm::PairHmmStats ps;
    std::future<void> scoring;
    int64_t conf_begin = 0, conf_end = 0;  // gVCF: the bases this window writes
    RefConfidence conf;
  };

  // Assembles the window's regions, finishes the window before it, and starts scoring
  // this one. `until`: where the bases this window writes end.
  void start_window(int tid, int64_t until, const std::vector<Region>& regions);

  // The scored window's likelihoods (waited for), genotypes and records.
  void finish_window();

  pairhmm::PairHmmEngine& engine();

  // Output in order on writer_ (records, gVCF blocks: a gVCF is millions of them), while
  // this thread goes on to the next window; at most one job waits behind the running one.
  // A job's error is thrown here or by wait_written(), in order.
  void write_in_order(std::function<void()> job);
  void wait_written();

  void write(int tid, const detail::SiteCall& c);

  // Writes a window's calls and, for a gVCF, the reference blocks of its bases around
  // them (on writer_). (Sites of the next window lie at or after its first region's start, `padding`
  // before it: a window's bases end that far before its end.)
  void emit(const PendingWindow& w, const std::vector<detail::SiteCall>& calls);

  // gVCF: [begin, end) of reference contig c without reads: one block of depth 0.
  void emit_uncovered(int c, int64_t begin, int64_t end);

  static char upper(char b) { return static_cast<char>(std::toupper(static_cast<unsigned char>(b))); }

  const CallOptions& opt_;
  std::shared_ptr<const Reference> ref_owner_;  // shared by the parts of a run
  const Reference& ref_;
  std::map<std::string, int> ref_index_;
  ReadInput input_;
  ReadAhead reader_{input_, std::clamp(omp_get_max_threads() / 4, 1, 4)};  // converting threads
  std::unique_ptr<io::VcfWriter> vcf_;
  gpu::Backend backend_ = gpu::Backend::cpu;
  EngineFuture engine_future_;
  std::shared_ptr<pairhmm::PairHmmEngine> engine_;  // once the first batch needs it
  const bool in_parts_;
  PartCalls* part_ = nullptr;  // in parts: the part being called
  std::vector<Interval> intervals_;  // -L, merged and sorted
  std::vector<AlignedRead> reads_;   // the current window's reads, by position
  std::vector<AlignedRead> done_;    // reads on their way back to the reader
  AlignedRead pending_;              // the next read of the input, not yet in a window
  int pending_tid_ = -1;
  bool has_pending_ = false;
  int64_t ws_ = 0;                         // the current window's start
  int64_t queried_until_ = INT64_MAX;      // reads starting here or later are not in the input's query
  int64_t pulled_until_ = 0;               // reads starting before this are in the window (or done)
  int64_t emit_begin_ = 0, emit_end_ = 0;  // records are written for sites starting here
  bool lead_in_ = false;                   // the window starts inside an interval's lead-in
  bool lead_in_too_short_ = false;
  std::unique_ptr<PendingWindow> scoring_;  // scored while the next window is assembled
  std::unique_ptr<GvcfBlocks> blocks_;      // --gvcf (used on writer_)
  int64_t span_done_ = 0;                   // gVCF: positions before this are written
  int64_t covered_until_ = 0;               // gVCF, on writer_: the last variant record's reference allele ends here
  int64_t last_written_ = -1;               // position of the span's last record
  int64_t skipped_no_ref_ = 0;      // reads on contigs the reference lacks
  int64_t genome_bases_ = 0, bases_before_ = 0;  // whole-genome progress: the reference, contigs done
  double said_at_ = 0;                           // when progress was said last
  const log::Stopwatch began_;
  CallStats stats_;
  std::deque<std::future<void>> writing_;  // write_in_order's jobs not yet waited for
  SerialWorker writer_;  // last: joined before the members its jobs use are destroyed
};

}  // namespace gatemap::caller

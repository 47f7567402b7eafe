// The caller's run: reads stream in by position; each window of the contig is turned
// into active regions, the regions are assembled in parallel, all their read x haplotype
// pairs go to the pair-HMM engine in one batch (one group per region), and the sites are
// genotyped and written in order. A cluster of regions cut by the window's end waits
// for the next window, which starts where the cluster does: regions are then the same
// wherever windows start, so calling a part of the genome (-L, e.g. scattered over a
// cluster) gives exactly the whole run's calls there.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <map>
#include <memory>

#include "caller/caller.hpp"
#include "caller/detail.hpp"
#include "caller/gvcf.hpp"
#include "caller/input.hpp"
#include "caller/intervals.hpp"
#include "caller/pairhmm/pairhmm.hpp"
#include "caller/read_ahead.hpp"
#include "caller/vcf_records.hpp"
#include "caller/window_steps.hpp"
#include "common/error.hpp"
#include "common/leave_to_exit.hpp"
#include "common/log.hpp"
#include "common/ordered_lanes.hpp"
#include "common/parallel.hpp"
#include "common/stats_report.hpp"
#include "common/thread_budget.hpp"
#include "gpu/memory_cap.hpp"
#include "io/output_file.hpp"
#include "io/reads/fasta.hpp"
#include "io/text/vcf_writer.hpp"

namespace gatemap::caller {

namespace {

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
io::VcfHeaderInfo vcf_header(const CallOptions& opt, const Reference& ref, const std::vector<std::string>& samples) {
  io::VcfHeaderInfo info;
  for (const auto& r : ref) info.contigs.emplace_back(r.name, static_cast<int64_t>(r.seq.size()));
  info.reference = opt.reference;
  info.command_line = opt.command_line;
  info.version = opt.version;
  info.samples = samples;
  info.extra_lines = detail::site_header_lines(opt.gvcf);
  if (opt.gvcf) {
    const auto lines = gvcf_header_lines();
    info.extra_lines.insert(info.extra_lines.end(), lines.begin(), lines.end());
  }
  return info;
}

// A gVCF holds one sample (GATK's rule too): its blocks are one sample's confidence.
void check_samples(const CallOptions& opt, const std::vector<std::string>& samples) {
  if (opt.gvcf && samples.size() > 1) {
    throw UsageError("--gvcf calls one sample, and the input holds " + std::to_string(samples.size()) + " ('" +
                     samples[0] + "', '" + samples[1] + "'" + (samples.size() > 2 ? ", ..." : "") +
                     "): make each sample's gVCF apart and give them to 'gatemap joint', or call the BAMs together "
                     "without --gvcf");
  }
}

class Caller {
 public:
  // `engine`: the pair-HMM engine being made on the backend chosen, waited for by the
  // first batch (a GPU's start-up overlaps opening the input and the first window's
  // assembly). With `in_parts`, a lane's caller: call_part() calls one part after
  // another, keeping their calls for the run's writer; otherwise run() calls the whole
  // run (or -L) into opt.output.
  Caller(const CallOptions& opt, std::shared_ptr<const Reference> ref, gpu::Backend backend, EngineFuture engine,
         bool in_parts = false)
      : opt_(opt),
        ref_owner_(std::move(ref)),
        ref_(*ref_owner_),
        input_(opt.inputs, opt.min_mapq, std::min(8, std::max(1, omp_get_max_threads() / 2)), opt.reference),
        backend_(backend),
        engine_future_(std::move(engine)),
        in_parts_(in_parts) {
    for (size_t i = 0; i < ref_.size(); ++i) ref_index_[ref_[i].name] = static_cast<int>(i);
    // Header contigs the reference lacks are fine as long as no read is placed on them
    // (reads that are get skipped and counted, with a warning).
    int missing = 0;
    for (size_t c = 0; c < input_.contigs().size(); ++c) {
      const std::string& name = input_.contigs()[c];
      const auto it = ref_index_.find(name);
      if (it == ref_index_.end()) {
        ++missing;
        continue;
      }
      const int64_t ref_len = static_cast<int64_t>(ref_[it->second].seq.size());
      if (ref_len != input_.contig_lengths()[c]) {  // another assembly: every call would be wrong
        throw FormatError("contig '" + name + "' is " + std::to_string(input_.contig_lengths()[c]) + " bp in '" +
                          opt.inputs.front() + "' but " + std::to_string(ref_len) + " bp in '" + opt.reference +
                          "': use the reference the reads were mapped to");
      }
    }
    if (missing == static_cast<int>(input_.contigs().size())) {
      throw FormatError("no contig of '" + opt.inputs.front() + "' is in '" + opt.reference +
                        (input_.contigs().empty() ? "' (no @SQ lines: is it a SAM/BAM of mapped reads?)" : "'"));
    }
    if (missing && !in_parts_) {
      log::warn("call", std::to_string(missing) + " of the reads' " + std::to_string(input_.contigs().size()) +
                            " header contigs are not in '" + opt.reference + "'; reads placed there are skipped");
    }
    stats_.backend = gpu::backend_name(backend_);
    if (in_parts_) {
      input_.load_indexes();
      return;
    }
    check_samples(opt, input_.samples());
    const io::VcfHeaderInfo info = vcf_header(opt, ref_, input_.samples());
    if (!opt.intervals.empty()) {  // bad intervals or no index: errors before any output
      intervals_ = parse_intervals(opt.intervals, info.contigs);
      input_.load_indexes();
    }
    vcf_ = std::make_unique<io::VcfWriter>(opt.output, info, std::min(8, omp_get_max_threads()));
    if (opt.gvcf) blocks_ = std::make_unique<GvcfBlocks>(*vcf_);
  }

  CallStats run() {
    const log::Stopwatch t0;
    if (opt_.intervals.empty()) {
      call_everything();
    } else {
      // Progress every 10 s or so (an exome's BED has 200,000 intervals).
      double said = log::wall_seconds();
      int64_t bases = 0, total = 0;
      for (const Interval& iv : intervals_) total += iv.end - iv.begin;
      for (size_t i = 0; i < intervals_.size(); ++i) {
        call_interval(intervals_[i]);
        bases += intervals_[i].end - intervals_[i].begin;
        if (log::wall_seconds() - said >= 10 || i + 1 == intervals_.size()) {
          said = log::wall_seconds();
          log::info("call", "-L: " + std::to_string(i + 1) + " of " + std::to_string(intervals_.size()) +
                                " intervals (" + std::to_string(100 * bases / std::max<int64_t>(1, total)) +
                                "% of their bases) done: " + std::to_string(stats_.calls) + " calls so far");
        }
      }
    }
    if (releasing_.valid()) releasing_.get();
    count_input_since(InputMark{});
    if (vcf_) vcf_->close();
    if (skipped_no_ref_) {
      log::warn("call", std::to_string(skipped_no_ref_) + " reads on contigs missing from the reference were skipped");
    }
    stats_.total_s = t0.seconds();
    return stats_;
  }

  // A lane's next part: its intervals called as -L calls them, the calls kept in p. The
  // input, its read-ahead and the reads' buffers serve the lane's parts one after another
  // (made afresh for each part, they were half of a part's time on 4 GPUs).
  CallStats call_part(PartCalls& p) {
    const log::Stopwatch t0;
    part_ = &p;
    stats_ = CallStats{};
    stats_.backend = gpu::backend_name(backend_);
    const InputMark before = input_mark();
    for (const Interval& iv : p.intervals) call_interval(iv);
    count_input_since(before);
    stats_.total_s = t0.seconds();
    part_ = nullptr;
    return stats_;
  }

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
  InputMark input_mark() {
    reader_.stop();
    return {input_.seen(), input_.filtered() + skipped_no_ref_, reader_.waited_s()};
  }
  // The reads, filtered reads and input wait since `before` into the stats.
  void count_input_since(const InputMark& before) {
    const InputMark now = input_mark();
    stats_.reads = now.seen - before.seen;
    stats_.reads_filtered = now.filtered - before.filtered;
    stats_.input_wait_s = now.waited_s - before.waited_s;
  }

  const std::string& contig_seq(int tid) { return ref_[ref_index_.at(input_.contigs()[tid])].seq; }
  int64_t contig_len(int tid) { return static_cast<int64_t>(contig_seq(tid).size()); }

  void advance() { has_pending_ = reader_.next(pending_tid_, pending_); }

  // Moves the pending reads of contig tid that start before `until` into the window, a
  // start position at a time (downsampled there).
  void pull_reads(int tid, int64_t until) {
    if (until > queried_until_) extend_query(tid, until);
    while (has_pending_ && pending_tid_ == tid && pending_.pos < until) {
      const size_t first = reads_.size();
      for (const int64_t pos = pending_.pos; has_pending_ && pending_tid_ == tid && pending_.pos == pos;) {
        reads_.push_back(std::move(pending_));
        pending_ = AlignedRead();
        advance();
      }
      if (opt_.max_reads_per_start > 0 && reads_.size() - first > static_cast<size_t>(opt_.max_reads_per_start)) {
        stats_.reads_downsampled += detail::downsample_start(reads_, first, opt_.max_reads_per_start, done_);
        reader_.recycle(done_);
      }
    }
    pulled_until_ = std::max(pulled_until_, until);
  }

  // A window needs reads past the query's end (one widened over a long cluster at its
  // span's end): the query goes on from the first read not yet pulled.
  void extend_query(int tid, int64_t until) {
    const int64_t end = std::min(contig_len(tid), until);
    // Queried to the contig's end already: windows past it pull nothing more (a second
    // query would end before it begins, which the index refuses).
    if (end <= queried_until_) return;
    queried_until_ = end;
    reader_.query(tid, pulled_until_, queried_until_);
    advance();
    while (has_pending_ && pending_.pos < pulled_until_) advance();  // in the window already, or done
  }

  void call_everything() {
    std::vector<bool> visited(ref_.size(), false);  // gVCF: reference contigs without reads get one block
    for (const auto& r : ref_) genome_bases_ += static_cast<int64_t>(r.seq.size());
    advance();
    while (has_pending_) {
      const int tid = pending_tid_;
      const auto in_ref = ref_index_.find(input_.contigs()[tid]);
      if (in_ref == ref_index_.end()) {
        ++skipped_no_ref_;
        advance();
        continue;
      }
      const int c = in_ref->second;
      for (int u = 0; u < c; ++u) {  // gVCF: contigs before it without reads, in reference order
        if (!visited[u]) emit_uncovered(u, 0, static_cast<int64_t>(ref_[u].seq.size()));
        visited[u] = true;
      }
      visited[c] = true;
      emit_begin_ = 0, emit_end_ = contig_len(tid);
      call_span(tid, 0, contig_len(tid), opt_.window, false);
      bases_before_ += contig_len(tid);
      log::info("call", "contig " + input_.contigs()[tid] + " done: " + std::to_string(stats_.calls) + " calls so far");
    }
    for (size_t u = 0; u < ref_.size(); ++u) {
      if (!visited[u]) emit_uncovered(static_cast<int>(u), 0, static_cast<int64_t>(ref_[u].seq.size()));
    }
  }

  // The calls of the whole run inside iv: the reads from a lead-in before it on, through
  // the index; the lead-in grows until the cluster of regions it cuts ends before iv.
  void call_interval(const Interval& iv) {
    const std::string& name = ref_[iv.contig].name;
    const auto it = std::find(input_.contigs().begin(), input_.contigs().end(), name);
    if (it == input_.contigs().end()) return emit_uncovered(iv.contig, iv.begin, iv.end);  // no read can lie there
    const int tid = static_cast<int>(it - input_.contigs().begin());
    const int64_t len = contig_len(tid);
    // Sites lie inside their regions, which reach `padding` before their cluster's start.
    const int64_t stop = std::min(len, iv.end + opt_.region_padding + 1);
    emit_begin_ = iv.begin, emit_end_ = iv.end;
    for (int64_t lead = kLeadIn;; lead *= 4) {
      const int64_t start = std::max<int64_t>(0, iv.begin - lead);
      // Reads past the windows' end (span_tail() past stop) are not decoded unless a window
      // widened over a cluster needs them.
      queried_until_ = std::min(len, stop + span_tail() + kReadReach);
      pulled_until_ = start;
      reader_.query(tid, start, queried_until_);
      advance();
      if (call_span(tid, start, stop, std::min(opt_.window, stop - start + 10000), start > 0)) break;
    }
  }

  // The whole genome's progress every 10 s: where the windows are, the share of the
  // reference's bases behind them, and the time left at this pace.
  void say_progress(int tid) {
    if (genome_bases_ == 0 || log::wall_seconds() - said_at_ < 10) return;
    said_at_ = log::wall_seconds();
    const double done = static_cast<double>(bases_before_ + ws_) / static_cast<double>(genome_bases_);
    const double spent = began_.seconds();
    log::progress("call", input_.contigs()[tid] + ":" + std::to_string(ws_ + 1) + ", " +
                              std::to_string(static_cast<int>(100 * done)) + "% of the reference's bases, " +
                              std::to_string(stats_.calls) + " calls so far" +
                              (done > 0.01 ? ", " + log::time_left(spent, done) : std::string()));
  }

  // Reads that end before `from` leave the window (in order) and go back to the reader.
  void drop_reads_before(int64_t from) {
    size_t kept = 0;
    for (size_t i = 0; i < reads_.size(); ++i) {
      if (reads_[i].end < from) {
        done_.push_back(std::move(reads_[i]));
      } else if (kept++ != i) {
        reads_[kept - 1] = std::move(reads_[i]);
      }
    }
    reads_.resize(kept);
    reader_.recycle(done_);
  }

  // Calls contig tid in windows of `window` bases from ws0 until a window starts at or
  // past `stop`, pulling reads as the windows need them. With lead_in, ws0 may fall inside a cluster
  // of regions: the first cluster, unless it starts 2 x padding past ws0, is dropped
  // (what lies before ws0 could have joined it). Returns false when that cluster reached
  // emit_begin_ (a longer lead-in is needed).
  bool call_span(int tid, int64_t ws0, int64_t stop, int64_t window, bool lead_in) {
    const int64_t len = contig_len(tid);
    ws_ = ws0, last_written_ = -1, lead_in_ = lead_in, lead_in_too_short_ = false;
    span_done_ = emit_begin_, covered_until_ = 0;
    reads_.clear();
    for (;;) {
      int64_t we = std::min({len, ws_ + window, stop + span_tail()});
      if (lead_in_) we = std::min(we, std::max(ws_, emit_begin_) + span_tail());
      {
        const log::StageTimer timing(stats_.reads_s);
        pull_reads(tid, we + kReadReach);
      }
      int64_t next = process_window(tid, we, false);
      // One cluster fills the window: the window doubles until it holds the cluster, and at
      // a full window the cluster is called cut (doubling: an -L interval's short window
      // does not decode a full window's reads past it for a cluster of a few kb).
      const int64_t widest = std::max(window, opt_.window);
      for (int64_t wide = window; next == ws_ && !lead_in_too_short_;) {
        wide = std::min(2 * wide, widest);
        we = std::min(len, ws_ + wide);
        pull_reads(tid, we + kReadReach);
        next = process_window(tid, we, wide == widest);
      }
      if (lead_in_too_short_) return false;
      if (we >= len || next >= stop) {
        finish_window();
        if (blocks_) blocks_->flush();
        return true;
      }
      ws_ = next;
      say_progress(tid);
      // Reads that end before the next window's first possible region are done.
      const int64_t keep_from = ws_ - opt_.region_padding - 1;
      const log::StageTimer timing(stats_.reads_s);
      drop_reads_before(keep_from);
    }
  }

  // Calls the regions of [ws_, we) and returns where the next window starts: at the
  // cluster the window's end cuts (unless we is the contig's end), else at we. A cluster
  // starting at ws_ itself is called cut when `force`, else nothing is done and ws_ is
  // returned.
  int64_t process_window(int tid, int64_t we, bool force) {
    const std::string& seq = contig_seq(tid);
    const int64_t len = static_cast<int64_t>(seq.size());
    const int pad = opt_.region_padding;
    const log::Stopwatch t0;
    std::vector<Region> regions = detail::find_regions(seq, ws_, we, reads_, opt_.min_base_q, pad, opt_.max_region,
                                                       static_cast<int>(input_.samples().size()));
    const bool cut_at_end = we < len && !regions.empty() && regions.back().end >= we - pad;
    if (lead_in_ && !regions.empty() && regions.front().cluster < ws_ + 2 * pad) {
      const int64_t first = regions.front().cluster;
      for (const Region& r : regions) {
        if (r.cluster == first && (r.end > emit_begin_ || (cut_at_end && r.cluster == regions.back().cluster))) {
          lead_in_too_short_ = true;
          return ws_;
        }
      }
      regions.erase(std::remove_if(regions.begin(), regions.end(), [&](const Region& r) { return r.cluster == first; }),
                    regions.end());
    }
    int64_t next = we;
    if (cut_at_end && !regions.empty()) {
      const int64_t cut = regions.back().cluster;
      if (cut <= ws_ && !force) return ws_;
      if (cut > ws_) {
        next = cut;
        while (!regions.empty() && regions.back().cluster == cut) regions.pop_back();
      }
    }
    lead_in_ = false;
    stats_.regions_s += t0.seconds();
    start_window(tid, we >= len ? len : next - pad, regions);
    return next;
  }

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
  void start_window(int tid, int64_t until, const std::vector<Region>& regions) {
    const std::string& seq = contig_seq(tid);
    auto w = std::make_unique<PendingWindow>();
    w->tid = tid;
    {
      const log::StageTimer timing(stats_.assembly_s);
      w->work = detail::assemble_regions(regions, reads_, seq, opt_, static_cast<int>(input_.samples().size()));
    }
    for (const RegionWork& r : w->work) {
      ++stats_.regions;
      if (!r.assembled) ++stats_.regions_unassembled;
      if (r.capped && stats_.regions_capped++ == 0) {
        stats_.first_capped = input_.contigs()[tid] + ":" + std::to_string(r.region.begin + 1) + "-" +
                              std::to_string(r.region.end);
      }
      if (r.haps.size() >= 2 && !r.slices.empty()) stats_.haplotypes += static_cast<int64_t>(r.haps.size());
    }
    {
      const log::StageTimer timing(stats_.batch_s);
      w->batch = detail::pairhmm_batch(w->work);
      if (blocks_) {
        w->conf_begin = std::max(span_done_, emit_begin_), w->conf_end = std::min(until, emit_end_);
        if (w->conf_begin < w->conf_end) {
          reference_confidence(reads_, seq, w->conf_begin, w->conf_end, opt_.min_base_q, w->conf);
        }
      }
    }
    span_done_ = std::max(span_done_, until);
    finish_window();
    PendingWindow* p = w.get();
    pairhmm::PairHmmEngine& engine = this->engine();
    const auto score = [&engine, p] { engine.compute(p->batch, pairhmm::PairHmmOptions{}, p->lik, &p->ps); };
    if (backend_ == gpu::Backend::gpu) {
      p->scoring = std::async(std::launch::async, score);
    } else {
      const log::StageTimer timing(stats_.pairhmm_s);
      score();  // the CPU twin needs the threads the next assembly would take
    }
    scoring_ = std::move(w);
  }

  // The scored window's likelihoods (waited for), genotypes and records.
  void finish_window() {
    if (!scoring_) return;
    PendingWindow& w = *scoring_;
    {
      const log::StageTimer timing(stats_.pairhmm_s);
      if (w.scoring.valid()) w.scoring.get();
    }
    stats_.pairs += w.ps.pairs;
    stats_.pairhmm_kernel_ms += w.ps.kernel_ms;
    std::vector<SiteRecord> records;
    {
      const log::StageTimer timing(stats_.genotype_s);
      records = detail::genotype_regions(w.work, w.batch, w.lik, contig_seq(w.tid), opt_,
                                         static_cast<int>(input_.samples().size()));
    }
    const log::StageTimer timing(stats_.write_s);  // to the end: records written, the window released
    std::vector<detail::SiteCall> calls;
    for (SiteRecord& rec : records) {
      if (rec.pos <= last_written_) continue;                       // the same site from an overlapping region
      if (rec.pos < emit_begin_ || rec.pos >= emit_end_) continue;  // outside the -L interval
      calls.push_back(std::move(rec.call));
      last_written_ = rec.pos;
    }
    emit(w, calls);
    release(std::move(scoring_));
  }

  pairhmm::PairHmmEngine& engine() {
    if (!engine_) {
      const log::Stopwatch t0;
      engine_ = engine_future_.get();
      stats_.engine_wait_s = t0.seconds();
    }
    return *engine_;
  }

  // Frees a finished window (its regions' read slices: hundreds of thousands of
  // blocks) on another thread while this one goes on to the next window.
  void release(std::unique_ptr<PendingWindow> w) {
    if (releasing_.valid()) releasing_.get();
    releasing_ = std::async(std::launch::async, [w = std::move(w)]() mutable { w.reset(); });
  }

  void write(int tid, const detail::SiteCall& c) {
    ++stats_.calls;
    if (part_) {
      part_->calls.emplace_back(ref_index_.at(input_.contigs()[tid]), c);
      return;
    }
    detail::write_site(*vcf_, bcf_hdr_name2id(vcf_->header(), input_.contigs()[tid].c_str()), c, opt_.gvcf,
                       opt_.min_qd);
  }

  // Writes a window's calls and, for a gVCF, the reference blocks of its bases around
  // them. (Sites of the next window lie at or after its first region's start, `padding`
  // before it: a window's bases end that far before its end.)
  void emit(const PendingWindow& w, const std::vector<detail::SiteCall>& calls) {
    const int tid = w.tid;
    if (!blocks_) {
      for (const detail::SiteCall& c : calls) write(tid, c);
      return;
    }
    const std::string& seq = contig_seq(tid);
    const int64_t b = w.conf_begin, e = w.conf_end;
    const RefConfidence& conf = w.conf;
    const int rid = bcf_hdr_name2id(vcf_->header(), input_.contigs()[tid].c_str());
    size_t k = 0;
    const auto write_call = [&] {
      blocks_->flush();
      write(tid, calls[k]);
      covered_until_ = std::max(covered_until_, calls[k].site.pos + static_cast<int64_t>(calls[k].alleles[0].size()));
      ++k;
    };
    for (int64_t p = b; p < e; ++p) {
      while (k < calls.size() && calls[k].site.pos <= p) write_call();
      if (p < covered_until_) continue;  // inside a variant record's reference allele
      blocks_->add(rid, p, upper(seq[p]), conf.dp[p - b], conf.gq[p - b], conf.pl[p - b]);
    }
    while (k < calls.size()) write_call();  // only where a window-long cluster was called cut
  }

  // gVCF: [begin, end) of reference contig c without reads: one block of depth 0.
  void emit_uncovered(int c, int64_t begin, int64_t end) {
    if (!blocks_ || begin >= end) return;
    const int rid = bcf_hdr_name2id(vcf_->header(), ref_[c].name.c_str());
    for (int64_t p = begin; p < end; ++p) blocks_->add(rid, p, upper(ref_[c].seq[p]), 0, 0, {0, 0, 0});
    blocks_->flush();
  }

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
  std::future<void> releasing_;             // the window before it, being freed
  std::unique_ptr<GvcfBlocks> blocks_;      // --gvcf
  int64_t span_done_ = 0;                   // gVCF: positions before this are written
  int64_t covered_until_ = 0;               // gVCF: the last variant record's reference allele ends here
  int64_t last_written_ = -1;               // position of the span's last record
  int64_t skipped_no_ref_ = 0;      // reads on contigs the reference lacks
  int64_t genome_bases_ = 0, bases_before_ = 0;  // whole-genome progress: the reference, contigs done
  double said_at_ = 0;                           // when progress was said last
  const log::Stopwatch began_;
  CallStats stats_;
};

}  // namespace

CallStats& CallStats::operator+=(const CallStats& o) {
  for (auto [a, b] : {std::pair{&reads, o.reads}, {&reads_filtered, o.reads_filtered}, {&regions, o.regions},
                      {&haplotypes, o.haplotypes}, {&pairs, o.pairs}, {&calls, o.calls},
                      {&regions_unassembled, o.regions_unassembled}, {&reads_downsampled, o.reads_downsampled},
                      {&regions_capped, o.regions_capped}}) {
    *a += b;
  }
  if (first_capped.empty()) first_capped = o.first_capped;
  for (auto [a, b] : {std::pair{&regions_s, o.regions_s}, {&assembly_s, o.assembly_s}, {&pairhmm_s, o.pairhmm_s},
                      {&genotype_s, o.genotype_s}, {&batch_s, o.batch_s}, {&write_s, o.write_s},
                      {&reads_s, o.reads_s}, {&input_wait_s, o.input_wait_s}, {&engine_wait_s, o.engine_wait_s},
                      {&pairhmm_kernel_ms, o.pairhmm_kernel_ms}}) {
    *a += b;
  }
  return *this;
}

namespace {

// Parts of at least two windows: each re-reads a lead-in (2 kb) and starts its windows
// afresh.
constexpr int64_t kMinPartWindows = 2;
constexpr int kPartsPerLane = 8;  // lanes that finish early take more

// With several GPUs: the genome (or -L) cut into parts, called on one lane per GPU, each
// with its own engine and a share of the threads; the parts' calls written in order.
// Each part is called as -L would call it, so the VCF is the one-GPU run's.
CallStats call_in_parts(const CallOptions& opt, std::shared_ptr<const Reference> ref, gpu::Backend backend,
                        const std::vector<EngineFuture>& engines, ReadInput& input) {
  std::vector<std::pair<std::string, int64_t>> contigs;
  for (const auto& r : *ref) contigs.emplace_back(r.name, static_cast<int64_t>(r.seq.size()));
  std::vector<Interval> wanted;
  if (!opt.intervals.empty()) {
    wanted = parse_intervals(opt.intervals, contigs);
  } else {
    for (const std::string& name : input.contigs()) {  // in the reads' order, as the one-GPU run goes
      const auto it = std::find_if(contigs.begin(), contigs.end(), [&](const auto& c) { return c.first == name; });
      if (it != contigs.end()) wanted.push_back({static_cast<int>(it - contigs.begin()), 0, it->second});
    }
  }
  const int lanes = static_cast<int>(engines.size());
  const std::vector<std::vector<Interval>> parts = split_intervals(wanted, lanes * kPartsPerLane, kMinPartWindows * opt.window);
  const int threads = omp_get_max_threads();
  io::VcfWriter vcf(opt.output, vcf_header(opt, *ref, input.samples()), std::min(8, threads));
  log::info("call", std::to_string(parts.size()) + " parts on " + std::to_string(lanes) + " lanes (" +
                        gpu::backend_name(backend) + "), " + std::to_string(std::max(1, threads / lanes)) +
                        " threads each");
  size_t next_part = 0;
  OrderedLanes<PartCalls> lanes_run(2 * static_cast<size_t>(lanes), [&](PartCalls& p) {
    if (next_part == parts.size()) return false;
    p.intervals = parts[next_part++];
    p.calls.clear();
    return true;
  });
  const auto lane = [&](int i) {
    omp_set_num_threads(std::max(1, threads / lanes));
    Caller caller(opt, ref, backend, engines[static_cast<size_t>(i)], true);
    while (PartCalls* p = lanes_run.next(false)) {
      p->stats = caller.call_part(*p);
      lanes_run.done(p);
    }
  };
  CallStats stats;
  size_t written = 0;
  lanes_run.run(lanes, lane, [&](PartCalls& p) {
    for (const auto& [contig, call] : p.calls) {
      detail::write_site(vcf, bcf_hdr_name2id(vcf.header(), (*ref)[contig].name.c_str()), call, false, opt.min_qd);
    }
    stats += p.stats;
    const Interval& first = p.intervals.front();
    log::debug("call", "part " + std::to_string(written + 1) + ": " + stats_line(format_stats(p.stats)));
    log::info("call", "part " + std::to_string(++written) + " of " + std::to_string(parts.size()) + " (from " +
                          (*ref)[first.contig].name + ":" + std::to_string(first.begin + 1) + ") done: " +
                          std::to_string(stats.calls) + " calls so far");
  });
  vcf.close();
  stats.backend = gpu::backend_name(backend);
  return stats;
}

// Several GPUs call in parts where the parts can be read on their own (indexed input)
// and written apart (a VCF; a gVCF's blocks would be cut at the parts' edges).
bool can_call_in_parts(const CallOptions& opt, ReadInput& input) {
  if (opt.gvcf) {
    log::info("call", "--gvcf: called in one part (the parts would cut reference blocks at their edges)");
    return false;
  }
  try {
    input.load_indexes();
  } catch (const Error& e) {
    log::info("call", std::string("called in one part: the input has no index to read parts by (") + e.what() + ")");
    return false;
  }
  return true;
}

// The run, its warnings left to run_call.
CallStats run_call_quietly(const CallOptions& opt) {
  use_threads(opt.threads, 2);  // the read-ahead's team and the caller's
  if (opt.reference.empty()) throw UsageError("-r REF.fa is required");
  gpu::resolve_devices(opt.device, gpu::Backend::cpu);  // its syntax, before any work
  std::vector<std::string> inputs = opt.inputs;
  inputs.push_back(opt.reference);
  io::check_not_input(opt.output, "-o", inputs);
  io::check_vcf_name(opt.output, "-o");
  const log::Stopwatch t0;
  // The backend is chosen, and the first device's engine made, while the reference is read.
  std::promise<std::pair<gpu::Backend, std::vector<int>>> chosen;
  auto choice = chosen.get_future();
  std::unique_ptr<gpu::MemoryCap> capped;  // --gpu-mem, before any engine sizes itself
  EngineFuture first = std::async(std::launch::async, [&opt, &capped, chosen = std::move(chosen)]() mutable {
                         gpu::Backend b = gpu::Backend::cpu;
                         std::vector<int> devices;
                         try {
                           b = gpu::choose_backend(opt.backend);
                           devices = gpu::resolve_devices(opt.device, b);
                           capped = std::make_unique<gpu::MemoryCap>(devices, opt.gpu_memory, "call");
                         } catch (...) {
                           chosen.set_exception(std::current_exception());
                           throw;
                         }
                         chosen.set_value({b, devices});
                         return std::make_shared<pairhmm::PairHmmEngine>(b, devices.empty() ? 0 : devices.front());
                       }).share();
  auto ref = std::make_shared<const Reference>(io::read_fasta(opt.reference));
  const auto [backend, devices] = choice.get();  // (no GPU for --backend gpu: an error before any output)
  CallStats stats;
  const size_t lanes = opt.lanes > 0 ? static_cast<size_t>(opt.lanes) : devices.size();
  if (lanes > 1) {
    ReadInput input(opt.inputs, opt.min_mapq, 1, opt.reference);
    if (can_call_in_parts(opt, input)) {
      std::vector<EngineFuture> engines{first};
      for (size_t i = 1; i < lanes; ++i) {
        const int device = devices.empty() ? 0 : devices[i % devices.size()];
        engines.push_back(std::async(std::launch::async, [b = backend, device] {
                            return std::make_shared<pairhmm::PairHmmEngine>(b, device);
                          }).share());
      }
      const double setup_s = t0.seconds();
      stats = call_in_parts(opt, ref, backend, engines, input);
      stats.setup_s = setup_s;
      stats.total_s = t0.seconds();
      if (opt.leave_to_exit) {  // the engines' GPU memory
        auto kept = std::make_unique<std::vector<EngineFuture>>(std::move(engines));
        leave_to_exit(kept);
      }
      return stats;
    }
  }
  auto caller = std::make_unique<Caller>(opt, ref, backend, first);
  const double setup_s = t0.seconds();
  stats = caller->run();  // the VCF is closed
  stats.setup_s = setup_s;
  if (opt.leave_to_exit) leave_to_exit(caller);  // its reference, reads and pair-HMM engine
  return stats;
}

}  // namespace

CallStats run_call(const CallOptions& opt) {
  const CallStats stats = run_call_quietly(opt);
  if (stats.reads_downsampled > 0) {
    log::warn("call", std::to_string(stats.reads_downsampled) + " of " + std::to_string(stats.reads) +
                          " reads left out: more than " + std::to_string(opt.max_reads_per_start) +
                          " of one sample started at one position (--max-reads-per-start; 0 keeps all)");
  }
  if (stats.regions_capped > 0) {
    log::warn("call", std::to_string(stats.regions_capped) + " of " + std::to_string(stats.regions) +
                          " regions had more candidate haplotypes than the cap (--max-haplotypes " +
                          std::to_string(opt.max_haplotypes) + " per sample), the first " + stats.first_capped +
                          ": the best-supported were kept");
  }
  return stats;
}

std::string format_stats(const CallStats& s) {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "reads\t%lld\nreads_filtered\t%lld\nreads_downsampled\t%lld\nregions\t%lld\nregions_unassembled\t%lld\n"
                "regions_capped\t%lld\nhaplotypes\t%lld\n"
                "pairhmm_pairs\t%lld\ncalls\t%lld\nbackend\t%s\nregions_s\t%.3f\nassembly_s\t%.3f\npairhmm_s\t%.3f\n"
                "pairhmm_kernel_ms\t%.3f\ngenotype_s\t%.3f\nbatch_s\t%.3f\nwrite_s\t%.3f\nreads_s\t%.3f\n"
                "input_wait_s\t%.3f\nsetup_s\t%.3f\nengine_wait_s\t%.3f\ntotal_s\t%.3f\n",
                static_cast<long long>(s.reads), static_cast<long long>(s.reads_filtered),
                static_cast<long long>(s.reads_downsampled), static_cast<long long>(s.regions),
                static_cast<long long>(s.regions_unassembled), static_cast<long long>(s.regions_capped),
                static_cast<long long>(s.haplotypes), static_cast<long long>(s.pairs), static_cast<long long>(s.calls),
                s.backend.c_str(), s.regions_s, s.assembly_s, s.pairhmm_s, s.pairhmm_kernel_ms, s.genotype_s, s.batch_s,
                s.write_s, s.reads_s, s.input_wait_s, s.setup_s, s.engine_wait_s, s.total_s);
  return buf;
}

}  // namespace gatemap::caller

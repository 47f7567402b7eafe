// The caller's walk: windows over the genome (or -L intervals, or a lane's parts), reads
// pulled into them, regions assembled and scored, records handed to window_emit.cpp.
#include "caller/window_caller.hpp"

#include <chrono>
#include <cmath>

#include "caller/vcf_records.hpp"
#include "common/error.hpp"
#include "common/parallel.hpp"

namespace gatemap::caller {

namespace {

// A gVCF holds one sample (GATK's rule too): its blocks are one sample's confidence.
void check_samples(const CallOptions& opt, const std::vector<std::string>& samples) {
  if (opt.gvcf && samples.size() > 1) {
    throw UsageError("--gvcf calls one sample, and the input holds " + std::to_string(samples.size()) + " ('" +
                     samples[0] + "', '" + samples[1] + "'" + (samples.size() > 2 ? ", ..." : "") +
                     "): make each sample's gVCF apart and give them to 'gatemap joint', or call the BAMs together "
                     "without --gvcf");
  }
}

}  // namespace

WindowCaller::WindowCaller(const CallOptions& opt, std::shared_ptr<const Reference> ref, gpu::Backend backend,
                           EngineFuture engine, bool in_parts)
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

CallStats WindowCaller::run() {
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
  wait_written();
  count_input_since(InputMark{});
  if (vcf_) vcf_->close();
  if (skipped_no_ref_) {
    log::warn("call", std::to_string(skipped_no_ref_) + " reads on contigs missing from the reference were skipped");
  }
  stats_.total_s = t0.seconds();
  return stats_;
}

CallStats WindowCaller::call_part(PartCalls& p) {
  const log::Stopwatch t0;
  part_ = &p;
  stats_ = CallStats{};
  stats_.backend = gpu::backend_name(backend_);
  const InputMark before = input_mark();
  for (const Interval& iv : p.intervals) call_interval(iv);
  wait_written();  // p.calls complete
  count_input_since(before);
  stats_.total_s = t0.seconds();
  part_ = nullptr;
  return stats_;
}

WindowCaller::InputMark WindowCaller::input_mark() {
  reader_.stop();
  return {input_.seen(), input_.filtered() + skipped_no_ref_, reader_.waited_s()};
}

void WindowCaller::count_input_since(const InputMark& before) {
  const InputMark now = input_mark();
  stats_.reads = now.seen - before.seen;
  stats_.reads_filtered = now.filtered - before.filtered;
  stats_.input_wait_s = now.waited_s - before.waited_s;
}

void WindowCaller::pull_reads(int tid, int64_t until) {
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

void WindowCaller::extend_query(int tid, int64_t until) {
  const int64_t end = std::min(contig_len(tid), until);
  // Queried to the contig's end already: windows past it pull nothing more (a second
  // query would end before it begins, which the index refuses).
  if (end <= queried_until_) return;
  queried_until_ = end;
  reader_.query(tid, pulled_until_, queried_until_);
  advance();
  while (has_pending_ && pending_.pos < pulled_until_) advance();  // in the window already, or done
}

void WindowCaller::call_everything() {
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

void WindowCaller::call_interval(const Interval& iv) {
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

void WindowCaller::say_progress(int tid) {
  if (genome_bases_ == 0 || log::wall_seconds() - said_at_ < 10) return;
  said_at_ = log::wall_seconds();
  const double done = static_cast<double>(bases_before_ + ws_) / static_cast<double>(genome_bases_);
  const double spent = began_.seconds();
  log::progress("call", input_.contigs()[tid] + ":" + std::to_string(ws_ + 1) + ", " +
                            std::to_string(static_cast<int>(100 * done)) + "% of the reference's bases, " +
                            std::to_string(stats_.calls) + " calls so far" +
                            (done > 0.01 ? ", " + log::time_left(spent, done) : std::string()));
}

void WindowCaller::drop_reads_before(int64_t from) {
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

bool WindowCaller::call_span(int tid, int64_t ws0, int64_t stop, int64_t window, bool lead_in) {
  const int64_t len = contig_len(tid);
  ws_ = ws0, last_written_ = -1, lead_in_ = lead_in, lead_in_too_short_ = false;
  span_done_ = emit_begin_;
  write_in_order([this] { covered_until_ = 0; });
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
      if (blocks_) write_in_order([this] { blocks_->flush(); });
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

int64_t WindowCaller::process_window(int tid, int64_t we, bool force) {
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

void WindowCaller::start_window(int tid, int64_t until, const std::vector<Region>& regions) {
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

void WindowCaller::finish_window() {
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
  auto calls = std::make_shared<std::vector<detail::SiteCall>>();
  for (SiteRecord& rec : records) {
    if (rec.pos <= last_written_) continue;                       // the same site from an overlapping region
    if (rec.pos < emit_begin_ || rec.pos >= emit_end_) continue;  // outside the -L interval
    calls->push_back(std::move(rec.call));
    last_written_ = rec.pos;
  }
  stats_.calls += static_cast<int64_t>(calls->size());
  // The regions' read slices, haplotypes and the batch are not written: freed here, on all
  // threads (hundreds of thousands of blocks, allocated on all of them; freed one by one on
  // the writer, they made the next window wait for it). The job owns the rest.
  {
    const log::StageTimer timing(stats_.genotype_s);
    std::vector<RegionWork>& work = w.work;
#pragma omp parallel for schedule(dynamic, 16)
    for (size_t i = 0; i < work.size(); ++i) work[i] = RegionWork{};
    work = {}, w.batch = {}, w.lik = {};
  }
  std::shared_ptr<PendingWindow> window(std::move(scoring_));
  write_in_order([this, window, calls] { emit(*window, *calls); });
}

void WindowCaller::write_in_order(std::function<void()> job) {
  writing_.push_back(writer_.submit(std::move(job)));
  const log::StageTimer timing(stats_.write_s);  // waiting for the writer
  for (; writing_.size() > 2; writing_.pop_front()) writing_.front().get();
}

void WindowCaller::wait_written() {
  const log::StageTimer timing(stats_.write_s);
  for (; !writing_.empty(); writing_.pop_front()) writing_.front().get();
}

pairhmm::PairHmmEngine& WindowCaller::engine() {
  if (!engine_) {
    const log::Stopwatch t0;
    engine_ = engine_future_.get();
    stats_.engine_wait_s = t0.seconds();
  }
  return *engine_;
}

}  // namespace gatemap::caller

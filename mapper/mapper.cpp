// The mapper's batch pipeline: seed -> filter -> verify -> finish (MAPQ, pairing, records).
#include "mapper/mapper.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>

#include "common/error.hpp"
#include "common/log.hpp"
#include "gpu/gatekeeper.hpp"
#include "mapper/affine.hpp"
#include "mapper/chimeric.hpp"
#include "mapper/detail.hpp"
#include "mapper/myers.hpp"
#include "mapper/sam_record.hpp"

namespace gatemap::mapper {
using namespace detail;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Deterministic tie-breaking: a hash of the read name, never thread or arrival order.
uint64_t name_hash(const std::string& name) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h ^ 0x5bd1e9955bd1e995ULL;
}

int edit_threshold(const MapOptions& opt, int m) {
  if (opt.max_edits >= 0) return std::min(opt.max_edits, gpu::kMaxEdits);
  return std::min(gpu::kMaxEdits, std::max(2, static_cast<int>(std::ceil(0.04 * m))));
}

struct PairChoice {
  const Hit* h[2] = {nullptr, nullptr};  // the chosen proper pair, if any
  int mapq = 0;
};

// A mostly clipped alignment says little about where the read belongs: its MAPQ is
// capped by the aligned fraction (60 from 70% aligned down to 0 at 30%).
int clipped_mapq_cap(const Alignment& aln, const ReadWork& w) {
  const double m = static_cast<double>(std::max<size_t>(1, w.codes[0].size()));
  const double aligned = (m - aln.clipped) / m;
  return std::clamp(static_cast<int>(std::lround(60 * (aligned - 0.3) / 0.4)), 0, 60);
}

// One best hit (ties share the best edits).
bool unique(const std::vector<Hit>& hits) {
  return hits.size() == 1 || (hits.size() > 1 && hits[1].edits > hits[0].edits);
}

struct Finished {
  const Hit* hit = nullptr;  // primary hit, null = unmapped
  int mapq = 0;
  int second = -1;  // second-best edits, -1 = none
};

// The best of a read's hits (sorted best first; ties broken by `tie`), its second-best
// edits and its MAPQ. The clipped fallback's costs (edits, clip penalties, a quarter per
// clipped base) are a coarser measure than edits, and it tries only a few candidates: a
// unit of its margin is worth half an edit's.
Finished best_placement(const std::vector<Hit>& hits, uint64_t tie, bool capped) {
  Finished f;
  if (hits.empty()) return f;
  const int best = hits[0].edits;
  int nb = 0;
  while (nb < static_cast<int>(hits.size()) && hits[nb].edits == best) ++nb;
  f.second = nb > 1 ? best : (nb < static_cast<int>(hits.size()) ? hits[nb].edits : -1);
  f.hit = &hits[tie % static_cast<uint64_t>(nb)];
  const int price = hits[0].clipped ? kEditPhred / 2 : kEditPhred;
  std::vector<int> scores;
  for (const Hit& h : hits) scores.push_back(price * h.edits);
  f.mapq = mapq_from_scores(scores, price * best, best, capped);
  return f;
}

}  // namespace

struct Mapper::Impl {
  const index::Index& idx;
  MapOptions opt;
  std::vector<int64_t> contig_begin, contig_end;
  gpu::FilterReference fref;
  PlaneRef planes;
  std::unique_ptr<gpu::GateKeeperGpu> engine;
  // The GPU engine (CUDA context, the reference on the device) is made on a thread of its
  // own while the first batch is read and seeded; the first submit waits for it.
  std::future<std::unique_ptr<gpu::GateKeeperGpu>> engine_pending;
  bool insert_known = false;
  double insert_mean = 0, insert_sd = 0;
  int64_t insert_low = 0, insert_high = 0;  // proper pairs' inserts (bwa-mem's bounds)
  // A batch between begin_batch and finish_batch. Two exist, so that the next batch is
  // seeded while the GPU filters the current one; their buffers are reused (unified
  // memory in particular is slow to touch fresh).
  struct BatchState {
    std::vector<ReadWork> work;
    std::vector<int64_t> first;  // candidates of read r: [first[r], first[r+1])
    int e_max = 0;
    std::vector<uint8_t> codes;  // filter result per candidate
    int ticket = -1;             // GPU filter in flight
    gpu::FilterCandidates cand;
    gpu::FilterReads reads;
    std::vector<std::string_view> seqs;
  };
  BatchState batches[2];
  int64_t begun = 0, finished = 0;

  // Out of device memory (or another device failure): this batch takes the CPU twin,
  // which gives the same codes; later batches try the GPU again.
  void filter_on_cpu(BatchState& bs, const CudaError& err, MapStats& stats) const {
    log::warn("map", std::string("GPU filter failed for this batch (") + err.what() + "); using the CPU twin");
    ++stats.filter_cpu_fallbacks;
    bs.ticket = -1;
    if (opt.encode_on_device) gpu::pack_reads(bs.seqs, bs.reads, true);  // the twin needs host planes
    gpu::gatekeeper_cpu(fref, bs.reads, bs.cand, bs.e_max, bs.codes);
  }

  Impl(const index::Index& i, const MapOptions& o) : idx(i), opt(o) {
    for (const auto& c : idx.contigs()) {
      contig_begin.push_back(c.begin);
      contig_end.push_back(c.begin + c.length);
    }
    planes = {idx.hi(), idx.lo(), idx.length()};
    fref.hi = reinterpret_cast<const uint32_t*>(idx.hi());
    fref.lo = reinterpret_cast<const uint32_t*>(idx.lo());
    fref.words = idx.words64() * 2;
    fref.contig_begin = contig_begin.data();
    fref.contig_end = contig_end.data();
    fref.n_contigs = static_cast<int32_t>(contig_begin.size());
    fref.n_begin = idx.n_begin();
    fref.n_end = idx.n_end();
    fref.n_runs = idx.n_runs();
    if (opt.max_occ == 0) opt.max_occ = idx.max_occ();
    if (opt.insert_mean > 0) {
      insert_known = true;
      insert_mean = opt.insert_mean;
      insert_sd = opt.insert_sd > 0 ? opt.insert_sd : 0.1 * opt.insert_mean;
      set_insert_bounds(insert_mean - 4 * insert_sd, insert_mean + 4 * insert_sd);
    }
    if (opt.filter == FilterMode::gpu) {
      engine_pending = std::async(std::launch::async, [this] {
        const auto t0 = std::chrono::steady_clock::now();
        auto made = std::make_unique<gpu::GateKeeperGpu>(fref, opt.device);
        log::info("map", "GPU filter ready (reference on device " + std::to_string(opt.device) + ") in " +
                             std::to_string(seconds_since(t0)) + " s");
        return made;
      });
    }
  }

  // Waits for the GPU engine; without one (no memory, no usable device) the CPU twin
  // filters every batch.
  void await_engine() {
    if (!engine_pending.valid()) return;
    try {
      engine = engine_pending.get();
    } catch (const CudaError& e) {
      log::warn("map", std::string("GPU filter unavailable (") + e.what() + "); using the CPU twin");
      opt.filter = FilterMode::cpu;
    }
  }

  // The bit-vector verifier needs the whole band inside the contig, free of N.
  bool myers_applies(int m, int64_t cb, int64_t ce, int64_t diag, int band) const {
    return band <= kMyersMaxBand && diag - band >= cb && diag + m + band <= ce && !idx.has_n(diag - band, diag + m + band);
  }

  Hit verify_one(const ReadWork& w, const Candidate& c, RefWindow& win, std::vector<int>& scratch, int band,
                 int64_t diag, int max_cost = -1, int clip = 0) const {
    const int m = static_cast<int>(w.codes[0].size());
    const int64_t cb = contig_begin[c.contig], ce = contig_end[c.contig];
    const int max_edits = max_cost < 0 ? w.e : max_cost;
    BandResult r;
    if (clip == 0 && myers_applies(m, cb, ce, diag, band)) {
      r = myers_banded_distance(w.codes[c.strand].data(), m, planes, diag, band, max_edits);
    } else {  // contig ends, N, wide bands and clipping take the DP
      fetch_window(idx, std::max(cb, diag - band), std::min(ce, diag + m + band), win);
      r = banded_distance(w.codes[c.strand].data(), m, win, cb, ce, diag, band, max_edits, scratch, clip);
    }
    Hit h;
    h.strand = c.strand;
    h.contig = c.contig;
    h.diag = diag;
    h.edits = r.edits;
    h.ref_end = r.ref_end;
    h.clipped = clip > 0;
    return h;
  }

  // Reads with no hit within e (long indels, adapters, contig ends): the best-supported
  // candidates, whatever the filter said, aligned again in a band of 2e where each read
  // end may also be soft-clipped (kClipPenalty plus a quarter per clipped base, so that
  // long alignments win as under bwa's scoring); accepted at fallback_max_cost with 30%
  // of the read aligned. It sees all candidates so that
  // --filter gpu|cpu|off give the same records.
  void clip_fallback(ReadWork& w, RefWindow& win, std::vector<int>& scratch) const {
    std::vector<const Candidate*> order;
    for (const Candidate& c : w.cand) order.push_back(&c);
    std::stable_sort(order.begin(), order.end(),
                     [](const Candidate* a, const Candidate* b) { return a->support > b->support; });
    const int m = static_cast<int>(w.codes[0].size());
    for (size_t i = 0; i < order.size() && i < static_cast<size_t>(kClipCandidates); ++i) {
      const Hit h = verify_one(w, *order[i], win, scratch, fallback_band(w), order[i]->diag, fallback_max_cost(w),
                               kClipPenalty);
      if (h.edits < 0) continue;
      const Alignment a = align(w, h, scratch);
      if (10 * (m - a.clipped) >= 3 * m) w.hits.push_back(h);
    }
  }

  static int fallback_band(const ReadWork& w) { return std::min(gpu::kMaxEdits, 2 * w.e); }
  // e, one clip, and a quarter of at most 70% of the read clipped.
  static int fallback_max_cost(const ReadWork& w) {
    return w.e + kClipPenalty + static_cast<int>(7 * w.codes[0].size() / 40);
  }
  // Next to a placed mate, where a short aligned part is no chance match: e, one clip,
  // and a quarter of at most 80% of the read clipped.
  static int rescue_max_cost(const ReadWork& w) {
    return w.e + kClipPenalty + static_cast<int>(w.codes[0].size() / 5);
  }

  // The insert of two hits on opposite strands: from the forward mate's first base to the
  // reverse mate's end.
  static int64_t insert_of(const Hit& a, const Hit& b) {
    const Hit& fwd = a.strand == 0 ? a : b;
    const Hit& rev = a.strand == 0 ? b : a;
    return rev.ref_end - fwd.diag;
  }

  // FR pairs on one contig with an insert within the proper-pair bounds.
  bool proper(const Hit& a, const Hit& b) const {
    if (a.contig != b.contig || a.strand == b.strand) return false;
    const int64_t insert = insert_of(a, b);
    return insert >= insert_low && insert <= insert_high;  // insert_low >= 1
  }

  // A pair's score in phred units: kEditPhred per edit plus how improbable its insert is
  // under a normal insert model (-10 log10 of the density ratio to the mean, capped below
  // one edit), so that pairs tied on edits, as in a tandem repeat, are told apart by
  // their insert size as bwa-mem tells them apart.
  int pair_score(const Hit& a, const Hit& b) const {
    const double z = (static_cast<double>(insert_of(a, b)) - insert_mean) / insert_sd;
    const int insert_phred = std::min(kMaxInsertPhred, static_cast<int>(std::lround(5 * z * z / std::log(10.0))));
    return kEditPhred * (a.edits + b.edits) + insert_phred;
  }

  PairChoice choose_pair(const ReadWork& w1, const ReadWork& w2, uint64_t tie_hash) const {
    const bool capped = w1.capped || w2.capped;
    PairChoice pc;
    std::vector<std::pair<const Hit*, const Hit*>> pairs;
    std::vector<int> scores;
    for (const Hit& a : w1.hits) {
      for (const Hit& b : w2.hits) {
        if (!proper(a, b)) continue;
        pairs.emplace_back(&a, &b);
        scores.push_back(pair_score(a, b));
      }
    }
    if (pairs.empty()) return pc;
    const int best = *std::min_element(scores.begin(), scores.end());
    std::vector<size_t> best_pairs;
    for (size_t i = 0; i < pairs.size(); ++i) {
      if (scores[i] == best) best_pairs.push_back(i);
    }
    const size_t chosen = best_pairs[tie_hash % best_pairs.size()];
    pc.h[0] = pairs[chosen].first;
    pc.h[1] = pairs[chosen].second;
    pc.mapq = mapq_from_scores(scores, best, pc.h[0]->edits + pc.h[1]->edits, capped);
    return pc;
  }

  // Looks for `lost` near each of `found`'s best hits, on the opposite strand, where a
  // proper pair's insert puts it: on the window's best k-mer diagonals, in the fallback's
  // band, soft clips allowed, at a cost of at most max_cost, with a fifth of the read (and
  // kMinRescuedBases) aligned, as bwa-mem's local mate rescue. Returns the number of hits added.
  int rescue(const ReadWork& found, ReadWork& lost, int max_cost, RefWindow& win, std::vector<int>& scratch) const {
    const int m = static_cast<int>(lost.codes[0].size());
    if (m < kWindowSeedK || found.hits.empty()) return 0;
    const int band = fallback_band(lost);
    const int best = found.hits[0].edits;
    int added = 0;
    for (size_t i = 0; i < found.hits.size() && i < 4 && found.hits[i].edits == best; ++i) {
      const Hit& h = found.hits[i];
      const uint8_t strand = static_cast<uint8_t>(1 - h.strand);
      // Forward mate at diag: the reverse mate ends at diag + insert; and vice versa.
      const int64_t begin = h.strand == 0 ? h.diag + insert_low - m : h.ref_end - insert_high;
      const int64_t end = h.strand == 0 ? h.diag + insert_high : h.ref_end - insert_low + m;
      const int64_t cb = contig_begin[h.contig], ce = contig_end[h.contig];
      fetch_window(idx, std::max(cb, begin - band), std::min(ce, end + band), win);
      for (int64_t diag : window_diagonals(lost.codes[strand].data(), m, win, 2, band)) {
        const Candidate c{strand, h.contig, diag, 0};
        Hit r = verify_one(lost, c, win, scratch, band, diag, max_cost, kClipPenalty);
        if (r.edits < 0) continue;
        if (m - align(lost, r, scratch).clipped < std::max(kMinRescuedBases, m / 5)) continue;
        lost.hits.push_back(r);
        ++added;
      }
    }
    if (added) dedupe_hits(lost.hits, lost.e);
    return added;
  }

  // The parts of a chimeric read, as bwa-mem's supplementary alignments: each soft clip of
  // the primary alignment of at least kMinSplitPart bases is seeded and verified by
  // itself (within the threshold for its length, whatever the filter said) and kept
  // where it maps away from the primary's reference span.
  std::vector<SplitPart> split_parts(const ReadWork& w, const Hit& primary, const Alignment& aln, uint64_t tie,
                                     std::vector<int>& scratch) const {
    std::vector<SplitPart> parts;
    const int m = static_cast<int>(w.codes[0].size());
    thread_local ReadWork part;
    RefWindow win;
    for (const bool front : {true, false}) {
      const uint32_t c = front ? aln.cigar.front() : aln.cigar.back();
      const int len = static_cast<int>(bam_cigar_oplen(c));
      if (bam_cigar_op(c) != BAM_CSOFT_CLIP || len < kMinSplitPart) continue;
      // [a, b) on the primary's strand, then in the read's own orientation.
      int a = front ? 0 : m - len;
      if (primary.strand == 1) a = m - (a + len);
      const int b = a + len;
      part.codes[0].assign(w.codes[0].begin() + a, w.codes[0].begin() + b);
      part.codes[1].assign(w.codes[1].begin() + (m - b), w.codes[1].begin() + (m - a));
      part.e = edit_threshold(opt, len);
      part.hits.clear();
      collect_candidates(idx, part, opt.max_occ, opt.max_candidates);
      for (const Candidate& cand : part.cand) {
        const Hit h = verify_one(part, cand, win, scratch, part.e, cand.diag);
        const bool on_primary = h.contig == primary.contig && h.diag < aln.ref_end && h.ref_end > aln.ref_begin;
        if (h.edits >= 0 && !on_primary) part.hits.push_back(h);
      }
      if (part.hits.empty()) continue;
      dedupe_hits(part.hits, part.e);
      const Finished placed = best_placement(part.hits, tie, part.capped);
      const Hit& best = *placed.hit;
      SplitPart sp;
      sp.strand = best.strand;
      sp.contig = best.contig;
      sp.read_begin = a;
      sp.read_end = b;
      sp.aln = align(part, best, scratch);
      sp.mapq = placed.mapq;
      sp.second = placed.second;
      parts.push_back(std::move(sp));
    }
    return parts;
  }

  // Insert size from fragments whose mates each have exactly one hit.
  void estimate_insert(const std::vector<ReadWork>& work, int64_t fragments) {
    std::vector<double> inserts;
    for (int64_t f = 0; f < fragments; ++f) {
      const ReadWork& a = work[2 * f];
      const ReadWork& b = work[2 * f + 1];
      if (a.hits.size() != 1 || b.hits.size() != 1) continue;
      const Hit& x = a.hits[0];
      const Hit& y = b.hits[0];
      if (x.contig != y.contig || x.strand == y.strand) continue;
      const int64_t insert = insert_of(x, y);
      if (insert > 0 && insert < 10000) inserts.push_back(static_cast<double>(insert));
    }
    if (inserts.size() < 30) {  // too few this batch: be tolerant, try again next batch
      insert_mean = 500;
      insert_sd = 250;
      set_insert_bounds(0, 1500);
      return;
    }
    // As bwa-mem: mean and sd of the inserts within 2 IQR of the quartiles; proper pairs
    // within 3 IQR of the quartiles or 4 sd of the mean, whichever is wider.
    std::sort(inserts.begin(), inserts.end());
    const double p25 = inserts[inserts.size() / 4], p75 = inserts[inserts.size() * 3 / 4], iqr = p75 - p25;
    double sum = 0, sum2 = 0;
    int64_t kept = 0;
    for (double v : inserts) {
      if (v < p25 - 2 * iqr || v > p75 + 2 * iqr) continue;
      sum += v;
      sum2 += v * v;
      ++kept;
    }
    insert_mean = sum / static_cast<double>(kept);
    insert_sd = std::max(1.0, std::sqrt(std::max(0.0, sum2 / static_cast<double>(kept) - insert_mean * insert_mean)));
    set_insert_bounds(std::min(p25 - 3 * iqr, insert_mean - 4 * insert_sd),
                      std::max(p75 + 3 * iqr, insert_mean + 4 * insert_sd));
    insert_known = true;
    log::info("map", "insert size: mean " + std::to_string(static_cast<int>(insert_mean)) + ", sd " +
                         std::to_string(static_cast<int>(insert_sd)) + ", proper pairs within [" +
                         std::to_string(insert_low) + ", " + std::to_string(insert_high) + "], from " +
                         std::to_string(inserts.size()) + " pairs");
  }

  void set_insert_bounds(double low, double high) {
    insert_low = std::max<int64_t>(1, std::llround(low));
    insert_high = std::max<int64_t>(insert_low, std::llround(high));
  }

  // The alignment of a hit, in the band it was found in.
  Alignment align(const ReadWork& w, const Hit& h, std::vector<int>& scratch) const {
    const int band = h.clipped ? fallback_band(w) : w.e;
    const int m = static_cast<int>(w.codes[0].size());
    const int64_t cb = contig_begin[h.contig], ce = contig_end[h.contig];
    thread_local RefWindow win;
    fetch_window(idx, std::max(cb, h.diag - band), std::min(ce, h.diag + m + band), win);
    if (!h.clipped && myers_applies(m, cb, ce, h.diag, band)) {
      return myers_banded_align(w.codes[h.strand].data(), m, planes, win, cb, ce, h.diag, band);
    }
    return banded_align(w.codes[h.strand].data(), m, win, cb, ce, h.diag, band, scratch,
                        h.clipped ? kClipPenalty : 0);
  }

  // The alignment a record reports: the hit's path drawn again with affine gaps
  // (mapper/affine.hpp) when it holds two indels or a clip, in the band it was found in,
  // widened for a clip of c bases to 2c (up to kWideBand, bwa-mem's -w): bases that come
  // back from a clip pay for their gap (6 + its length) with their matches, so a gap
  // next to a clip is shorter than the bases it brings back, which are the clip and a
  // few aligned by chance before it (real reads: a 20-base deletion behind an 18S).
  // Hits of the clipped fallback (no hit within e) take the whole kWideBand: their edit
  // path may have crossed a long deletion with mismatches and short gaps, unclipped
  // (45M1D5M3I5M9I83M for a read with a 41-base deletion, bwa's 68M41D82M).
  Alignment reported_alignment(const ReadWork& w, const Hit& h, std::vector<int>& scratch) const {
    Alignment a = align(w, h, scratch);
    const auto gaps = std::count_if(a.cigar.begin(), a.cigar.end(), [](uint32_t c) {
      return bam_cigar_op(c) == BAM_CINS || bam_cigar_op(c) == BAM_CDEL;
    });
    if (gaps < 2 && a.clipped == 0) return a;  // one gap is drawn as affine gaps would draw it
    const int m = static_cast<int>(w.codes[0].size());
    int longest_clip = 0;
    for (uint32_t c : {a.cigar.front(), a.cigar.back()}) {
      if (bam_cigar_op(c) == BAM_CSOFT_CLIP) longest_clip = std::max<int>(longest_clip, bam_cigar_oplen(c));
    }
    const int band = h.clipped ? kWideBand : std::max(w.e, std::min(kWideBand, 2 * longest_clip));
    const int64_t cb = contig_begin[h.contig], ce = contig_end[h.contig];
    thread_local RefWindow win;
    fetch_window(idx, std::max(cb, h.diag - band), std::min(ce, h.diag + m + band), win);
    Alignment b = affine_align(w.codes[h.strand].data(), m, win, cb, ce, h.diag, band, a.score);
    return b.clipped < m ? b : a;
  }
};

Mapper::Mapper(const index::Index& idx, const MapOptions& opt)
    : impl_(std::make_unique<Impl>(idx, opt)) {}
Mapper::~Mapper() = default;

void Mapper::map_batch(const io::ReadBatch& batch, std::vector<bam1_t*>& out) {
  begin_batch(batch);
  finish_batch(batch, out);
}

void Mapper::begin_batch(const io::ReadBatch& batch) {
  Impl& im = *impl_;
  if (im.begun - im.finished >= 2) throw Error("internal: more than two batches begun");
  Impl::BatchState& bs = im.batches[im.begun % 2];
  ++im.begun;
  const MapOptions& opt = im.opt;
  const int64_t n = static_cast<int64_t>(batch.size());
  auto& work = bs.work;
  work.resize(static_cast<size_t>(n));
  if (opt.copy_comment) {  // here, not inside the parallel record building, which cannot throw
    for (const io::Read& read : batch.reads) check_comment_tags(read);
  }

  // 1. Seeds and candidates.
  auto t0 = std::chrono::steady_clock::now();
  int64_t capped = 0, cap_hits = 0, ncand = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : capped, cap_hits, ncand)
  for (int64_t r = 0; r < n; ++r) {
    ReadWork& w = work[r];
    const std::string& seq = batch.reads[r].seq;
    set_read_codes(w, seq);
    w.e = edit_threshold(opt, static_cast<int>(seq.size()));
    w.hits.clear();
    collect_candidates(im.idx, w, opt.max_occ, opt.max_candidates);
    capped += w.capped;
    cap_hits += w.cand_cap_hit;
    ncand += static_cast<int64_t>(w.cand.size());
  }
  stats_.capped_reads += capped;
  stats_.candidate_cap_hits += cap_hits;
  stats_.candidates += ncand;
  stats_.seed_s += seconds_since(t0);

  // 2. GateKeeper filter over all candidates of the batch (one threshold: the largest).
  // On the GPU it is only started here: finish_batch collects it.
  t0 = std::chrono::steady_clock::now();
  auto& first = bs.first;
  first.assign(n + 1, 0);
  int e_max = 0;
  for (int64_t r = 0; r < n; ++r) {
    first[r + 1] = first[r] + static_cast<int64_t>(work[r].cand.size());
    e_max = std::max(e_max, work[r].e);
  }
  bs.e_max = e_max;
  auto& codes = bs.codes;
  bs.ticket = -1;
  if (opt.filter == FilterMode::gpu) im.await_engine();
  if (opt.filter == FilterMode::off) {
    codes.assign(static_cast<size_t>(ncand), 0);
  } else {
    gpu::FilterCandidates& fc = bs.cand;
    fc.resize(ncand);
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t i = first[r]; i < first[r + 1]; ++i) {
        const Candidate& c = work[r].cand[i - first[r]];
        fc.set(i, static_cast<uint32_t>(r), c.strand, c.diag);
      }
    }
    auto& seqs = bs.seqs;
    seqs.resize(n);
    for (int64_t r = 0; r < n; ++r) seqs[r] = batch.reads[r].seq;
    gpu::FilterReads& fr = bs.reads;
    if (opt.filter == FilterMode::cpu) {
      gpu::pack_reads(seqs, fr, true);
      gpu::gatekeeper_cpu(im.fref, fr, fc, e_max, codes);
    } else {
      gpu::pack_reads(seqs, fr, !opt.encode_on_device);
      stats_.filter_prepare_s += seconds_since(t0);
      const auto t_submit = std::chrono::steady_clock::now();
      try {
        bs.ticket = im.engine->submit(fr, fc, e_max, opt.encode_on_device);
      } catch (const CudaError& err) {
        im.filter_on_cpu(bs, err, stats_);
      }
      stats_.filter_engine_s += seconds_since(t_submit);
    }
  }
  stats_.filter_s += seconds_since(t0);
}

void Mapper::finish_batch(const io::ReadBatch& batch, std::vector<bam1_t*>& out) {
  Impl& im = *impl_;
  if (im.finished >= im.begun) throw Error("internal: finish_batch without begin_batch");
  Impl::BatchState& bs = im.batches[im.finished % 2];
  ++im.finished;
  const MapOptions& opt = im.opt;
  const int64_t n = static_cast<int64_t>(batch.size());
  if (static_cast<int64_t>(bs.work.size()) != n) throw Error("internal: finish_batch with another batch");
  auto& work = bs.work;
  const auto& first = bs.first;
  const auto& codes = bs.codes;
  const int e_max = bs.e_max;

  // 2b. The GPU filter's results (host time spent waiting counts as filter time).
  auto t0 = std::chrono::steady_clock::now();
  if (bs.ticket >= 0) {
    try {
      gpu::FilterTiming timing;
      im.engine->collect(bs.ticket, bs.codes, &timing);
      stats_.filter_kernel_s += timing.kernel_ms / 1000;
    } catch (const CudaError& err) {
      im.filter_on_cpu(bs, err, stats_);
    }
    bs.ticket = -1;
    const double waited = seconds_since(t0);
    stats_.filter_engine_s += waited;
    stats_.filter_s += waited;
  }

  // 3. Verify what passed.
  t0 = std::chrono::steady_clock::now();
  int64_t rejected = 0, unfiltered = 0, verified = 0;
#pragma omp parallel reduction(+ : rejected, unfiltered, verified)
  {
    RefWindow win;
    std::vector<int> scratch;
#pragma omp for schedule(dynamic, 64)
    for (int64_t r = 0; r < n; ++r) {
      ReadWork& w = work[r];
      for (int64_t i = first[r]; i < first[r + 1]; ++i) {
        const uint8_t code = codes[i];
        unfiltered += (code & gpu::kFilterUnfiltered) != 0;
        if (!gpu::filter_accepts(code, e_max)) {
          ++rejected;
          continue;
        }
        ++verified;
        const Candidate& c = w.cand[i - first[r]];
        const Hit h = im.verify_one(w, c, win, scratch, w.e, c.diag);
        if (h.edits >= 0) w.hits.push_back(h);
      }
    }
  }
  stats_.filter_rejected += rejected;
  stats_.filter_unfiltered += unfiltered;
  stats_.verified += verified;
  stats_.verify_s += seconds_since(t0);

  // Reads with no hit within e: the clipped fallback, which sees every candidate
  // whatever the filter said (the same work with the filter and without: timed apart
  // from the verification the filter saves).
  t0 = std::chrono::steady_clock::now();
#pragma omp parallel
  {
    RefWindow win;
    std::vector<int> scratch;
#pragma omp for schedule(dynamic, 64)
    for (int64_t r = 0; r < n; ++r) {
      ReadWork& w = work[r];
      if (w.hits.empty()) im.clip_fallback(w, win, scratch);
      dedupe_hits(w.hits, w.e);
    }
  }
  stats_.fallback_s += seconds_since(t0);

  // 4. Finish: MAPQ, pairing, records, in input order.
  t0 = std::chrono::steady_clock::now();
  std::vector<std::vector<bam1_t*>> recs(static_cast<size_t>(n));
  const auto finish_single = [&](int64_t r) {
    const ReadWork& w = work[r];
    Finished f = best_placement(w.hits, name_hash(batch.reads[r].name), w.capped);
    // A repetitive read (candidates cut at --max-cand) placed only by the fallback: its
    // full-length home may be among the candidates the fallback did not try.
    if (f.hit && w.cand_cap_hit && w.hits[0].clipped) f.mapq = std::min(f.mapq, kTruncatedClippedMapq);
    return f;
  };
  // Records of read r: primary (aln null = unmapped) and, with -a, its other hits.
  ChimericStyle chimeric;
  chimeric.as_secondary = opt.split_as_secondary;
  chimeric.soft_clip = opt.split_soft_clip;
  chimeric.read_group = opt.read_group_id;
  chimeric.copy_comment = opt.copy_comment;
  const auto emit = [&](int64_t r, const Finished& f, const Alignment* aln, uint16_t flags, const MateInfo& mate,
                        std::vector<int>& scratch) {
    const ReadWork& w = work[r];
    RecordFields rf;
    rf.flag = flags;
    rf.mate = mate;
    if (!aln) {
      rf.flag |= BAM_FUNMAP;
      if (!mate.unmapped) {  // an unmapped read takes its mate's place
        rf.tid = mate.tid;
        rf.pos = mate.pos;
      }
      rf.mate.tlen = 0;
    } else {
      rf.aln = aln;
      rf.reverse = f.hit->strand == 1;
      if (rf.reverse) rf.flag |= BAM_FREVERSE;
      rf.tid = static_cast<int32_t>(f.hit->contig);
      rf.pos = aln->ref_begin - im.contig_begin[f.hit->contig];
      rf.mapq = f.mapq;
      rf.score = -aln->score;
      rf.has_second = f.second >= 0;
      rf.second = -f.second;
    }
    // XA:Z, as bwa mem: the read's other placements when there are at most kMaxXaHits
    // (more say only "repeat"; -a writes them as records instead).
    if (aln && !opt.all_hits && w.hits.size() > 1 && w.hits.size() <= kMaxXaHits + 1) {
      for (const Hit& h : w.hits) {
        if (&h == f.hit) continue;
        const Alignment xa = im.align(w, h, scratch);
        rf.xa += xa_entry(im.idx.contigs()[h.contig].name, xa.ref_begin - im.contig_begin[h.contig], h.strand == 1,
                          xa.cigar, xa.edits);
      }
    }
    std::vector<SplitPart> parts;
    if (aln && aln->clipped >= kMinSplitPart) {
      parts = im.split_parts(w, *f.hit, *aln, name_hash(batch.reads[r].name), scratch);
    }
    if (parts.empty()) {
      recs[r].push_back(make_record(batch.reads[r], rf, opt.read_group_id, opt.copy_comment));
    } else {
      append_chimeric_records(batch.reads[r], rf, parts, im.idx, chimeric, recs[r]);
    }
    if (!opt.all_hits || !aln) return;
    for (const Hit& h : w.hits) {
      if (&h == f.hit) continue;
      // Secondary hits keep their edit-distance path: with -a at high e they are many,
      // and the affine redraw (serial along each band row) would double the finish stage.
      const Alignment sa = im.align(w, h, scratch);
      RecordFields sf = rf;
      sf.flag = static_cast<uint16_t>((flags & ~BAM_FPROPER_PAIR) | BAM_FSECONDARY | (h.strand ? BAM_FREVERSE : 0));
      sf.aln = &sa;
      sf.reverse = h.strand == 1;
      sf.tid = static_cast<int32_t>(h.contig);
      sf.pos = sa.ref_begin - im.contig_begin[h.contig];
      sf.mapq = 0;
      sf.score = -h.edits;
      sf.sa.clear();  // the primary's chimeric parts are not this placement's
      recs[r].push_back(make_record(batch.reads[r], sf, opt.read_group_id, opt.copy_comment));
    }
  };

  if (!batch.paired) {
#pragma omp parallel
    {
      std::vector<int> scratch;
#pragma omp for schedule(dynamic, 256)
      for (int64_t r = 0; r < n; ++r) {
        Finished f = finish_single(r);
        Alignment aln;
        if (f.hit) {
          aln = im.reported_alignment(work[r], *f.hit, scratch);
          f.mapq = std::min(f.mapq, clipped_mapq_cap(aln, work[r]));
        }
        emit(r, f, f.hit ? &aln : nullptr, 0, MateInfo{}, scratch);
      }
    }
  } else {
    if (!im.insert_known) im.estimate_insert(work, n / 2);
    int64_t proper = 0, rescued = 0;
#pragma omp parallel reduction(+ : proper, rescued)
    {
      std::vector<int> scratch;
      RefWindow win;
#pragma omp for schedule(dynamic, 128)
      for (int64_t frag = 0; frag < n / 2; ++frag) {
        const int64_t r[2] = {2 * frag, 2 * frag + 1};
        // Rescue a mate with no hit, or only clipped fallback hits, near its partner's best hits.
        for (int m = 0; m < 2; ++m) {
          const auto& lost = work[r[m]].hits;
          const auto& found = work[r[1 - m]].hits;
          if ((lost.empty() || (lost[0].clipped && unique(found))) && !found.empty()) {
            rescued += im.rescue(work[r[1 - m]], work[r[m]], Impl::rescue_max_cost(work[r[m]]), win, scratch) > 0;
          }
        }
        const uint64_t tie = name_hash(batch.reads[r[0]].name);
        PairChoice pc = im.choose_pair(work[r[0]], work[r[1]], tie);
        // No proper pair though both mates have hits (a mate with a few more edits than
        // e at home, or a paralog closer than its true place): look for it next to its
        // uniquely placed partner, as bwa does, at up to kUnpairedPenalty more edits than
        // its own best hit (the price of leaving the pair unpaired).
        if (!pc.h[0] && !work[r[0]].hits.empty() && !work[r[1]].hits.empty()) {
          int added = 0;
          for (int m = 0; m < 2; ++m) {
            const ReadWork& found = work[r[1 - m]];
            if (!unique(found.hits) || found.hits[0].clipped) continue;
            added += im.rescue(found, work[r[m]], work[r[m]].hits[0].edits + kUnpairedPenalty, win, scratch);
          }
          if (added) {
            ++rescued;
            pc = im.choose_pair(work[r[0]], work[r[1]], tie);
          }
        }
        Finished f[2] = {finish_single(r[0]), finish_single(r[1])};
        if (pc.h[0]) {
          ++proper;
          const int q_pair = pc.mapq;
          for (int m = 0; m < 2; ++m) {
            int q;
            if (pc.h[m] == f[m].hit) {
              q = std::max(q_pair, f[m].mapq);
            } else {  // the mate's own best lies elsewhere: leaving the pair unpaired is the alternative
              const int extra = pc.h[m]->edits - work[r[m]].hits[0].edits;
              q = std::max(0, std::min(q_pair, kUnpairedPhred - 20 * extra));
            }
            f[m].hit = pc.h[m];
            f[m].mapq = std::min(60, q);
          }
        }
        Alignment aln[2];
        for (int m = 0; m < 2; ++m) {
          if (!f[m].hit) continue;
          aln[m] = im.reported_alignment(work[r[m]], *f[m].hit, scratch);
          if (!pc.h[0]) f[m].mapq = std::min(f[m].mapq, clipped_mapq_cap(aln[m], work[r[m]]));
        }
        MateInfo info[2];
        for (int m = 0; m < 2; ++m) {
          if (!f[m].hit) continue;
          info[m].unmapped = false;
          info[m].tid = static_cast<int32_t>(f[m].hit->contig);
          info[m].pos = aln[m].ref_begin - im.contig_begin[f[m].hit->contig];
          info[m].reverse = f[m].hit->strand == 1;
          info[m].aln = &aln[m];
        }
        int64_t tlen = 0;
        if (f[0].hit && f[1].hit && info[0].tid == info[1].tid) {
          const int64_t left = std::min(aln[0].ref_begin, aln[1].ref_begin);
          const int64_t right = std::max(aln[0].ref_end, aln[1].ref_end);
          tlen = right - left;
        }
        for (int m = 0; m < 2; ++m) {
          uint16_t flags = BAM_FPAIRED | (m == 0 ? BAM_FREAD1 : BAM_FREAD2);
          if (pc.h[0]) flags |= BAM_FPROPER_PAIR;
          MateInfo mate = info[1 - m];
          if (mate.unmapped) {
            flags |= BAM_FMUNMAP;
            if (f[m].hit) {  // the unmapped mate sits at this read's place
              mate.tid = info[m].tid;
              mate.pos = info[m].pos;
            }
          } else if (mate.reverse) {
            flags |= BAM_FMREVERSE;
          }
          if (tlen) {
            const bool leftmost = aln[m].ref_begin < aln[1 - m].ref_begin ||
                                  (aln[m].ref_begin == aln[1 - m].ref_begin && m == 0);
            mate.tlen = leftmost ? tlen : -tlen;
          }
          emit(r[m], f[m], f[m].hit ? &aln[m] : nullptr, flags, mate, scratch);
        }
      }
    }
    stats_.proper_pairs += proper;
    stats_.rescued += rescued;
  }
  int64_t records = 0, mapped = 0, secondary = 0, supplementary = 0;
  for (int64_t r = 0; r < n; ++r) {
    for (bam1_t* b : recs[r]) {
      if (b->core.flag & BAM_FSUPPLEMENTARY) {
        ++supplementary;
      } else if (b->core.flag & BAM_FSECONDARY) {
        ++secondary;
      } else {
        mapped += !(b->core.flag & BAM_FUNMAP);
      }
      out.push_back(b);
      ++records;
    }
  }
  stats_.reads += n;
  stats_.records += records;
  stats_.secondary += secondary;
  stats_.supplementary += supplementary;
  stats_.mapped += mapped;
  stats_.unmapped += n - mapped;
  stats_.pair_s += seconds_since(t0);
  stats_.insert_mean = im.insert_mean;
  stats_.insert_sd = im.insert_sd;
}

}  // namespace gatemap::mapper

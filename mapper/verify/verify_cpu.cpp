#include "mapper/verify/verifier.hpp"

#include <htslib/sam.h>

#include <algorithm>
#include <cstdint>

#include "mapper/align/affine.hpp"
#include "mapper/align/myers.hpp"

namespace gatemap::mapper::detail {

bool Verifier::myers_applies(int m, uint32_t contig, int64_t diag, int band) const {
  return band <= kMyersMaxBand && diag - band >= ref_.contig_begin(contig) &&
         diag + m + band <= ref_.contig_end(contig) && !ref_.has_n(diag - band, diag + m + band);
}

Hit Verifier::verify_one(const SeededRead& w, const Candidate& c, int band, int64_t diag, Workspace& ws,
                         int max_cost) const {
  const int m = w.length();
  const int max_edits = max_cost < 0 ? w.max_edits : max_cost;
  BandResult r;
  if (myers_applies(m, c.contig, diag, band)) {
    r = myers_banded_distance(w.codes[c.strand].data(), m, ref_.planes(), diag, band, max_edits);
  } else {  // contig ends, N and wide bands take the DP
    ref_.window(c.contig, diag - band, diag + m + band, ws.window);
    r = banded_distance(w.codes[c.strand].data(), m, ws.window, ref_.contig_begin(c.contig), ref_.contig_end(c.contig),
                        diag, band, max_edits, ws.dp);
  }
  return make_hit(c, diag, r, false);
}

Hit Verifier::verify_clipped(const SeededRead& w, const Candidate& c, int64_t diag, Workspace& ws, int max_cost,
                             Alignment& aln) const {
  const int m = w.length(), band = fallback_band(w);
  ref_.window(c.contig, diag - band, diag + m + band, ws.window);
  const BandResult r = banded_align_within(w.codes[c.strand].data(), m, ws.window, ref_.contig_begin(c.contig),
                                           ref_.contig_end(c.contig), diag, band, max_cost, ws.dp, kClipPenalty, aln);
  Hit h = make_hit(c, diag, r, true);
  if (h.edits >= 0) note_clips(aln, h);
  return h;
}

Hit Verifier::make_hit(const Candidate& c, int64_t diag, const BandResult& r, bool clipped) {
  Hit h;
  h.strand = c.strand;
  h.contig = c.contig;
  h.diag = diag;
  h.edits = r.edits;
  h.ref_end = r.ref_end;
  h.clipped = clipped;
  return h;
}

void Verifier::clip_candidates(const SeededRead& w, std::vector<const Candidate*>& order) {
  order.clear();
  for (const Candidate& c : w.cand) order.push_back(&c);
  std::stable_sort(order.begin(), order.end(),
                   [](const Candidate* a, const Candidate* b) { return a->support > b->support; });
  if (order.size() > static_cast<size_t>(kClipCandidates)) order.resize(static_cast<size_t>(kClipCandidates));
}

void Verifier::clip_fallback(const SeededRead& w, ReadHits& hits, Workspace& ws,
                             const verifying::ClipResult* known) const {
  std::vector<const Candidate*>& order = ws.clip_order;
  clip_candidates(w, order);
  const int m = w.length();
  Alignment& a = ws.clipped_aln;
  for (size_t i = 0; i < order.size(); ++i) {
    Hit h;
    if (known) {  // verified already: a hit is aligned here (the same DP as verify_clipped's)
      // The traceback aligns no more than the rows the DP's path spans: too few, no hit.
      if (10 * (known[i].last_row - known[i].first_row) < 3 * m) continue;
      h = make_hit(*order[i], order[i]->diag, known[i].band, true);
      if (h.edits >= 0) a = align_noting_clips(w, h, ws);
    } else {
      h = verify_clipped(w, *order[i], order[i]->diag, ws, fallback_max_cost(w), a);
    }
    if (h.edits >= 0 && 10 * (m - a.clipped) >= 3 * m) hits.push_back(h);
  }
}

int Verifier::fallback_band(const SeededRead& w) { return std::min(filter::kMaxEdits, 2 * w.max_edits); }

int Verifier::fallback_max_cost(const SeededRead& w) {
  return w.max_edits + kClipPenalty + static_cast<int>(7 * w.codes[0].size() / 40);
}

int Verifier::rescue_max_cost(const SeededRead& w) {
  return w.max_edits + kClipPenalty + static_cast<int>(w.codes[0].size() / 5);
}

Alignment Verifier::align(const SeededRead& w, const Hit& h, Workspace& ws) const {
  const int band = h.clipped ? fallback_band(w) : w.max_edits;
  const int m = w.length();
  const int64_t cb = ref_.contig_begin(h.contig), ce = ref_.contig_end(h.contig);
  ref_.window(h.contig, h.diag - band, h.diag + m + band, ws.align_window);
  if (!h.clipped && myers_applies(m, h.contig, h.diag, band)) {
    const uint8_t* read = w.codes[h.strand].data();
    // The straight diagonal into the hit's end holding exactly its edits as mismatches is
    // the path myers_banded_align would trace: a cheaper way into any cell of it would
    // make the whole hit cheaper than its edits, so the traceback, which takes the
    // diagonal move first, never leaves it. Most hits are such (no indel).
    Alignment a;
    if (ungapped_alignment(read, m, ws.align_window, h.ref_end - m, h.edits, a)) return a;
    return myers_banded_align(read, m, ref_.planes(), ws.align_window, cb, ce, h.diag, band, ws.myers_rows);
  }
  return banded_align(w.codes[h.strand].data(), m, ws.align_window, cb, ce, h.diag, band, ws.dp,
                      h.clipped ? kClipPenalty : 0);
}

Alignment Verifier::align_noting_clips(const SeededRead& w, Hit& h, Workspace& ws) const {
  Alignment a = align(w, h, ws);
  note_clips(a, h);
  return a;
}

void Verifier::note_clips(const Alignment& a, Hit& h) {
  const auto soft_clip = [](uint32_t op) {  // (clips beyond int16 compare as equal: fine for dedupe_hits)
    return bam_cigar_op(op) == BAM_CSOFT_CLIP ? std::min<uint32_t>(bam_cigar_oplen(op), INT16_MAX) : 0u;
  };
  h.clip_head = static_cast<int16_t>(a.cigar.empty() ? 0 : soft_clip(a.cigar.front()));
  h.clip_tail = static_cast<int16_t>(a.cigar.size() < 2 ? 0 : soft_clip(a.cigar.back()));
  h.aligned_from = static_cast<int32_t>(a.ref_begin - h.diag);
}

// In the band the hit was found in, widened for a clip of c bases to 2c (up to
// kWideBand, bwa-mem's -w): bases that come back from a clip pay for their gap (6 + its
// length) with their matches, so a gap next to a clip is shorter than the bases it
// brings back, which are the clip and a few aligned by chance before it (real reads: a
// 20-base deletion behind an 18S). Hits of the clipped fallback (no hit within
// max_edits) take the whole kWideBand: their edit path may have crossed a long deletion
// with mismatches and short gaps, unclipped (45M1D5M3I5M9I83M for a read with a 41-base
// deletion, bwa's 68M41D82M).
Alignment Verifier::reported_alignment(const SeededRead& w, const Hit& h, Workspace& ws) const {
  const int m = w.length();
  // A clipped hit whose path soft-clips (noted when it was found) is drawn again in the
  // whole kWideBand, at its path's cost: the path itself only when the redraw clips all.
  if (h.clipped && (h.clip_head > 0 || h.clip_tail > 0)) {
    Alignment b = affine_redraw(w, h, kWideBand, h.edits, ws);
    return b.clipped < m ? b : align(w, h, ws);
  }
  Alignment a = align(w, h, ws);
  int gaps = 0, gap_bases = 0;
  for (uint32_t c : a.cigar) {
    if (bam_cigar_op(c) == BAM_CINS || bam_cigar_op(c) == BAM_CDEL) {
      ++gaps;
      gap_bases += static_cast<int>(bam_cigar_oplen(c));
    }
  }
  // A lone gap is drawn as affine gaps would draw it, unless two or more mismatches come
  // with it: a gap among mismatches may stand in for a longer gap, cheaper under affine
  // scores (an 11-base deletion next to a repeat's period costs 8 edits as 1I and 7
  // mismatches).
  const bool among_mismatches = a.edits - gap_bases >= 2;
  if (a.clipped == 0 && (gaps == 0 || (gaps == 1 && !among_mismatches))) return a;
  int longest_clip = 0;
  for (uint32_t c : {a.cigar.front(), a.cigar.back()}) {
    if (bam_cigar_op(c) == BAM_CSOFT_CLIP) longest_clip = std::max<int>(longest_clip, bam_cigar_oplen(c));
  }
  // A gap among mismatches may be longer than the hit's edits: the band takes twice them.
  const int gap_band = gaps == 1 && among_mismatches ? 2 * a.edits : 0;
  const int band = h.clipped ? kWideBand : std::min(kWideBand, std::max({w.max_edits, 2 * longest_clip, gap_band}));
  Alignment b = affine_redraw(w, h, band, a.score, ws);
  return b.clipped < m ? b : a;
}

Alignment Verifier::affine_redraw(const SeededRead& w, const Hit& h, int band, int score, Workspace& ws) const {
  const int m = w.length();
  ref_.window(h.contig, h.diag - band, h.diag + m + band, ws.align_window);
  return affine_align(w.codes[h.strand].data(), m, ws.align_window, ref_.contig_begin(h.contig),
                      ref_.contig_end(h.contig), h.diag, band, score, ws.affine);
}

}  // namespace gatemap::mapper::detail

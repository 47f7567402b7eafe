#include "mapper/placement.hpp"

#include <htslib/sam.h>

#include <algorithm>
#include <cmath>

#include "mapper/alignment_score.hpp"

namespace gatemap::mapper::detail {

namespace {

// A mostly clipped alignment says little about where the read belongs: its MAPQ is
// capped by the aligned fraction (60 from 70% aligned down to 0 at 30%).
int clipped_mapq_cap(const Alignment& aln, const SeededRead& read) {
  const double m = static_cast<double>(std::max(1, read.length()));
  const double aligned = (m - aln.clipped) / m;
  return std::clamp(static_cast<int>(std::lround(60 * (aligned - 0.3) / 0.4)), 0, 60);
}

// Appends rescued hits and merges loci again; returns how many were added.
int add_hits(ReadHits& hits, const std::vector<Hit>& more, int max_edits) {
  if (more.empty()) return 0;
  hits.insert(hits.end(), more.begin(), more.end());
  dedupe_hits(hits, max_edits);
  return static_cast<int>(more.size());
}

}  // namespace

BestPlacement Placer::best_of(const SeededRead& read, const ReadHits& hits, uint64_t tie) const {
  BestPlacement f = best_placement(hits, tie, read.capped);
  // A repetitive read (candidates cut at --max-cand) placed only by the fallback: its
  // full-length home may be among the candidates the fallback did not try.
  if (f.hit && read.cand_cap_hit && hits[0].clipped) f.mapq = std::min(f.mapq, kTruncatedClippedMapq);
  return f;
}

void Placer::describe(const SeededRead& read, const ReadHits& hits, uint64_t tie, ReadPlacement& p,
                      Workspace& ws) const {
  p.aln = verifier_.reported_alignment(read, *p.hit, ws);
  p.score = score_of(read, *p.hit, p.aln, ws);
  // Other placements: XA:Z when there are at most kMaxXaHits (more say only "repeat"), or
  // every one with -a. They keep their edit-distance path: with -a at high -e they are
  // many, and the affine redraw (serial along each band row) would double the stage.
  if (opt_.output.all_hits || (hits.size() > 1 && hits.size() <= kMaxXaHits + 1)) {
    for (const Hit& h : hits) {
      if (&h == p.hit) continue;
      OtherPlacement o{&h, verifier_.align(read, h, ws)};
      o.score = score_of(read, h, o.aln, ws);
      p.others.push_back(std::move(o));
    }
  }
  p.second_score = second_score(read, hits, *p.hit, p.others, ws);
  if (p.aln.clipped >= kMinSplitPart) p.parts = split_parts(read, *p.hit, p.aln, tie, ws);
}

int Placer::score_of(const SeededRead& read, const Hit& h, const Alignment& aln, Workspace& ws) const {
  // Past either end by the gaps' length: the score may follow a diagonal on past a gap.
  int64_t reach = 0;
  for (const uint32_t c : aln.cigar) {
    if (bam_cigar_op(c) == BAM_CINS || bam_cigar_op(c) == BAM_CDEL) reach += bam_cigar_oplen(c);
  }
  // The window the alignment was just drawn in holds it (and a band around it) as a
  // rule: fetched again only when it does not.
  const RefWindow& w = ws.align_window;
  const int64_t need_begin = std::max(ref_.contig_begin(h.contig), aln.ref_begin - reach);
  const int64_t need_end = std::min(ref_.contig_end(h.contig), aln.ref_end + reach);
  if (w.begin > need_begin || w.begin + static_cast<int64_t>(w.codes.size()) < need_end) {
    ref_.window(h.contig, need_begin, need_end, ws.align_window);
  }
  return alignment_score(read.codes[h.strand].data(), aln, ws.align_window);
}

int Placer::second_score(const SeededRead& read, const ReadHits& hits, const Hit& chosen,
                         const std::vector<OtherPlacement>& others, Workspace& ws) const {
  int best = 0;
  if (!others.empty()) {
    for (const OtherPlacement& o : others) best = std::max(best, o.score);
    return best;
  }
  for (const Hit& h : hits) {  // best first
    if (&h != &chosen) return std::max(0, score_of(read, h, verifier_.align(read, h, ws), ws));
  }
  return 0;
}

ReadPlacement Placer::place_single(const SeededRead& read, const ReadHits& hits, uint64_t tie, Workspace& ws) const {
  const BestPlacement f = best_of(read, hits, tie);
  ReadPlacement p;
  p.hit = f.hit;
  p.mapq = f.mapq;
  if (!p.hit) return p;
  describe(read, hits, tie, p, ws);
  p.mapq = std::min(p.mapq, clipped_mapq_cap(p.aln, read));
  return p;
}

Placer::PairChoice Placer::choose_pair(const SeededRead* const read[2], ReadHits* const hits[2], uint64_t tie,
                                       const InsertModel& insert) const {
  PairChoice pc;
  std::vector<std::pair<const Hit*, const Hit*>> pairs;
  std::vector<int> scores;
  for (const Hit& a : *hits[0]) {
    for (const Hit& b : *hits[1]) {
      if (!insert.proper(a, b)) continue;
      pairs.emplace_back(&a, &b);
      scores.push_back(insert.pair_score(a, b));
    }
  }
  if (pairs.empty()) return pc;
  const int best = *std::min_element(scores.begin(), scores.end());
  std::vector<size_t> best_pairs;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (scores[i] == best) best_pairs.push_back(i);
  }
  const size_t chosen = best_pairs[tie % best_pairs.size()];
  pc.h[0] = pairs[chosen].first;
  pc.h[1] = pairs[chosen].second;
  // A mate's MAPQ weighs only the pairs that put it elsewhere: a unique mate keeps 60
  // beside an ambiguous partner, and a mate whose own best hit pairs no better than its
  // second (the partner's evidence points the other way) shares the pair's doubt.
  for (int m = 0; m < 2; ++m) {
    double elsewhere = 0;
    for (size_t i = 0; i < pairs.size(); ++i) {
      if ((m == 0 ? pairs[i].first : pairs[i].second) != pc.h[m]) elsewhere += odds_against(scores[i], best);
    }
    pc.mapq[m] = mapq_from_odds(elsewhere, pc.h[m]->edits, read[m]->capped);
  }
  return pc;
}

// A mate with no hit, or only clipped fallback hits, near its partner's best hits.
int Placer::rescue_lost_mates(const SeededRead* const read[2], ReadHits* const hits[2], const InsertModel& insert,
                              Workspace& ws) const {
  int rescued = 0;
  for (int m = 0; m < 2; ++m) {
    const ReadHits& lost = *hits[m];
    const ReadHits& found = *hits[1 - m];
    if ((lost.empty() || (lost[0].clipped && unique(found))) && !found.empty()) {
      const auto more = rescue(found, *read[m], Verifier::rescue_max_cost(*read[m]), insert, ws);
      rescued += add_hits(*hits[m], more, read[m]->max_edits) > 0;
    }
  }
  return rescued;
}

// No proper pair though both mates have hits (a mate with a few more edits than its
// threshold at home, or a paralog closer than its true place): look for it next to its
// uniquely placed partner, as bwa does, at up to kUnpairedPenalty more edits than its
// own best hit (the price of leaving the pair unpaired).
int Placer::rescue_next_to_partner(const SeededRead* const read[2], ReadHits* const hits[2], const InsertModel& insert,
                                   Workspace& ws) const {
  int added = 0;
  for (int m = 0; m < 2; ++m) {
    const ReadHits& found = *hits[1 - m];
    if (!unique(found) || found[0].clipped) continue;
    const auto more = rescue(found, *read[m], (*hits[m])[0].edits + kUnpairedPenalty, insert, ws);
    added += add_hits(*hits[m], more, read[m]->max_edits);
  }
  return added;
}

PairPlacement Placer::place_pair(const SeededRead* const read[2], ReadHits* const hits[2], const uint64_t tie[2],
                                 const InsertModel& insert, Workspace& ws) const {
  PairPlacement pp;
  pp.rescued = rescue_lost_mates(read, hits, insert, ws);
  PairChoice pc = choose_pair(read, hits, tie[0], insert);
  if (!pc.h[0] && !hits[0]->empty() && !hits[1]->empty() && rescue_next_to_partner(read, hits, insert, ws) > 0) {
    ++pp.rescued;
    pc = choose_pair(read, hits, tie[0], insert);
  }
  pp.proper = pc.h[0] != nullptr;
  for (int m = 0; m < 2; ++m) {
    const BestPlacement f = best_of(*read[m], *hits[m], tie[m]);
    ReadPlacement& p = pp.read[m];
    p.hit = f.hit;
    p.mapq = f.mapq;
    if (pp.proper) {
      int q;
      if (pc.h[m] == f.hit) {
        q = pc.mapq[m];
      } else {  // the mate's own best lies elsewhere: leaving the pair unpaired is the alternative
        const int extra = pc.h[m]->edits - (*hits[m])[0].edits;
        q = std::max(0, std::min(pc.mapq[m], kUnpairedPhred - kEditPhred * extra));
      }
      p.hit = pc.h[m];
      p.mapq = std::min(60, q);
    }
  }
  // A clipped hit of a read whose candidates were cut at --max-cand: the fallback did not
  // try them all, so it says nothing against its partner's other placements (the partner
  // keeps the MAPQ its own hits give), and it is placed no surer than the partner it was
  // paired through.
  for (int m = 0; pp.proper && m < 2; ++m) {
    if (!pc.h[m]->clipped || !read[m]->cand_cap_hit) continue;
    int& partner = pp.read[1 - m].mapq;
    partner = std::min(partner, best_placement(*hits[1 - m], tie[1 - m], read[1 - m]->capped).mapq);
    pp.read[m].mapq = std::min(pp.read[m].mapq, partner);
  }
  for (int m = 0; m < 2; ++m) {
    ReadPlacement& p = pp.read[m];
    if (!p.hit) continue;
    describe(*read[m], *hits[m], tie[m], p, ws);
    if (!pp.proper) p.mapq = std::min(p.mapq, clipped_mapq_cap(p.aln, *read[m]));
  }
  return pp;
}

}  // namespace gatemap::mapper::detail

#pragma once
// Verification (mapper stage 4): a candidate that passed the filter is aligned in the
// diagonal band of its read's edit threshold, by the Myers bit-vector verifier where the
// band lies inside the contig and free of N, else by the banded DP (same edits and ends).
// Reads with no hit within their threshold take the clipped fallback. Also the alignment
// of a hit (CIGAR, NM, MD) and the one a record reports (affine redraw).
#include <cstdint>
#include <vector>

#include "mapper/align/banded_dp.hpp"
#include "mapper/base/options.hpp"
#include "mapper/base/reference.hpp"
#include "mapper/base/types.hpp"
#include "mapper/base/workspace.hpp"
#include "mapper/verify/verify_gpu.hpp"

namespace gatemap::mapper::detail {

class Verifier {
 public:
  explicit Verifier(const Reference& ref) : ref_(ref) {}

  // The hit of read w on candidate c, aligned at `diag` in `band`, within max_cost
  // (-1: the read's threshold); hit.edits is -1 when above max_cost. Thread-safe with one
  // ws per thread.
  Hit verify_one(const SeededRead& w, const Candidate& c, int band, int64_t diag, Workspace& ws,
                 int max_cost = -1) const;
  // verify_one with clipping (kClipPenalty) in the fallback's band, and for a hit its
  // alignment as align_noting_clips gives it, from the same pass.
  Hit verify_clipped(const SeededRead& w, const Candidate& c, int64_t diag, Workspace& ws, int max_cost,
                     Alignment& aln) const;

  // Reads with no hit within their threshold (long indels, adapters, contig ends): the
  // best-supported candidates, whatever the filter said, aligned again in a band of
  // 2 * max_edits where either end may be soft-clipped; appended to hits when 30% of the
  // read aligns. It sees all candidates so that every filter setting gives the same records.
  // known: the clipped verification of the candidates clip_candidates lists, in order,
  // done already (on the GPU), or null.
  void clip_fallback(const SeededRead& w, ReadHits& hits, Workspace& ws,
                     const verifying::ClipResult* known = nullptr) const;
  // The candidates the clipped fallback tries: the best supported kClipCandidates, ties
  // in candidate order.
  static void clip_candidates(const SeededRead& w, std::vector<const Candidate*>& order);

  // mapper/deep_search.cpp: whether a read's candidates were cut at --max-cand (below
  // kDeepCandidates) leaving out clusters whose support can hold a hit, and its best hit
  // has more than half its threshold's edits (or there is none); if so,
  // deep_search verifies the candidates of up to kDeepCandidates per strand not tried
  // before and appends the hits.
  static bool needs_deep_search(const SeededRead& w, const ReadHits& hits, const SeedOptions& opt);
  void deep_search(const SeededRead& w, const SeedOptions& opt, ReadHits& hits, Workspace& ws) const;

  // The hit a band result stands for (r.edits -1: none).
  static Hit make_hit(const Candidate& c, int64_t diag, const BandResult& r, bool clipped);
  // Whether the bit-vector verifier (and the GPU one) takes a read of m bases at diag in
  // band: the whole band inside the contig, free of N.
  bool myers_applies(int m, uint32_t contig, int64_t diag, int band) const;

  // The alignment of a hit, in the band it was found in.
  Alignment align(const SeededRead& w, const Hit& h, Workspace& ws) const;
  // align(), noting in h which bases it soft-clips at each end and where it begins.
  Alignment align_noting_clips(const SeededRead& w, Hit& h, Workspace& ws) const;
  static void note_clips(const Alignment& a, Hit& h);
  // The alignment a record reports: align()'s path drawn again with affine gaps when it
  // holds two indels or a clip (mapper/affine.hpp).
  Alignment reported_alignment(const SeededRead& w, const Hit& h, Workspace& ws) const;

  // The fallback's band and costs (a quarter per clipped base: long alignments win, as
  // under bwa's scoring).
  static int fallback_band(const SeededRead& w);
  // max_edits, one clip, and a quarter of at most 70% of the read clipped.
  static int fallback_max_cost(const SeededRead& w);
  // Next to a placed mate, where a short aligned part is no chance match: max_edits, one
  // clip, and a quarter of at most 80% of the read clipped.
  static int rescue_max_cost(const SeededRead& w);

 private:
  // The hit drawn with affine gaps in `band`, at the cost `score` of its edit path.
  Alignment affine_redraw(const SeededRead& w, const Hit& h, int band, int score, Workspace& ws) const;

  const Reference& ref_;
};

}  // namespace gatemap::mapper::detail

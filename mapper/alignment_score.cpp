#include "mapper/alignment_score.hpp"

#include <htslib/sam.h>

#include <algorithm>

namespace gatemap::mapper {

namespace {

// The best run of a sequence of step scores (Kadane): a run that falls below 0 is
// dropped, as a local alignment drops it.
class BestRun {
 public:
  void add(int x) {
    run_ = std::max(run_, 0) + x;
    best_ = std::max(best_, run_);
  }
  int best() const { return best_; }

 private:
  int run_ = 0, best_ = 0;
};

// One step of a path: an aligned base pair, or a whole gap.
struct Step {
  int read = -1;      // the read base, -1 for a gap
  int64_t ref = -1;   // the reference base (global), -1 for a gap
  int gap_score = 0;  // a gap's score
};

}  // namespace

int alignment_score(const uint8_t* read, const Alignment& aln, const RefWindow& window, const AffineScores& sc) {
  const auto pair_score = [&](int i, int64_t g) {
    const uint8_t r = read[i], c = window.codes[static_cast<size_t>(g - window.begin)];
    return (r > 3 || c > 3) ? -sc.n : r == c ? sc.match : -sc.mismatch;
  };
  const auto in_window = [&](int64_t g) {
    return g >= window.begin && g < window.begin + static_cast<int64_t>(window.codes.size());
  };
  // Most alignments have no gap: scored from MD (runs of matches, and the mismatched
  // bases), nothing allocated and only the edits looked at.
  bool gapped = false;
  int clip = 0;  // read bases soft-clipped before the first aligned one
  for (const uint32_t c : aln.cigar) {
    gapped |= bam_cigar_op(c) == BAM_CINS || bam_cigar_op(c) == BAM_CDEL;
  }
  if (!gapped) {
    if (!aln.cigar.empty() && bam_cigar_op(aln.cigar.front()) == BAM_CSOFT_CLIP) {
      clip = static_cast<int>(bam_cigar_oplen(aln.cigar.front()));
    }
    BestRun run;
    int at = clip;
    for (size_t k = 0; k < aln.md.size();) {
      if (aln.md[k] >= '0' && aln.md[k] <= '9') {
        int matches = 0;
        while (k < aln.md.size() && aln.md[k] >= '0' && aln.md[k] <= '9') matches = 10 * matches + (aln.md[k++] - '0');
        if (matches > 0) run.add(matches * sc.match);
        at += matches;
      } else {  // a mismatched reference base; against an N on either side bwa scores -1
        const bool n = aln.md[k] == 'N' || read[at] > 3;
        run.add(n ? -sc.n : -sc.mismatch);
        ++at;
        ++k;
      }
    }
    return run.best();
  }
  std::vector<Step> steps;
  std::vector<size_t> gaps;  // indices of the gap steps
  int i = 0, first = -1;     // read bases; first aligned
  int64_t g = aln.ref_begin;
  for (const uint32_t c : aln.cigar) {
    const int len = static_cast<int>(bam_cigar_oplen(c));
    switch (bam_cigar_op(c)) {
      case BAM_CMATCH:
      case BAM_CEQUAL:
      case BAM_CDIFF:
        if (first < 0) first = i;
        for (int k = 0; k < len; ++k) steps.push_back({i++, g++, 0});
        break;
      case BAM_CINS:
      case BAM_CDEL:
        gaps.push_back(steps.size());
        steps.push_back({-1, -1, -(sc.gap_open + sc.gap_extend * len)});
        if (bam_cigar_op(c) == BAM_CINS) {
          i += len;
        } else {
          g += len;
        }
        break;
      case BAM_CSOFT_CLIP:
        i += len;
        break;
      default:  // hard clips, skips, pads: no read or scored reference base
        break;
    }
  }
  const auto score_of = [&](const Step& s) { return s.read < 0 ? s.gap_score : pair_score(s.read, s.ref); };
  BestRun whole;
  for (const Step& s : steps) whole.add(score_of(s));
  int best = whole.best();
  // bwa extends from a seed on either side of a gap near an end, and may do better by
  // going on along the seed's diagonal past the gap (bases matching by chance) than
  // across it: its AS is that score. Each gap: the path before it continued on its
  // diagonal to the aligned end, and the path after it continued back to the aligned start.
  const int last = i - (aln.cigar.empty() || bam_cigar_op(aln.cigar.back()) != BAM_CSOFT_CLIP
                            ? 0
                            : static_cast<int>(bam_cigar_oplen(aln.cigar.back())));
  for (const size_t gap : gaps) {
    if (gap == 0 || gap + 1 >= steps.size()) continue;
    BestRun on;  // before the gap, then straight on
    for (size_t k = 0; k < gap; ++k) on.add(score_of(steps[k]));
    const Step& before = steps[gap - 1];
    for (int r = before.read + 1; r < last && before.read >= 0 && in_window(before.ref + (r - before.read)); ++r) {
      on.add(pair_score(r, before.ref + (r - before.read)));
    }
    BestRun back;  // straight back, then after the gap
    const Step& after = steps[gap + 1];
    if (after.read >= 0) {
      int r = after.read - 1;
      while (r >= first && in_window(after.ref - (after.read - r))) --r;  // the run's start, scored left to right
      for (++r; r < after.read; ++r) back.add(pair_score(r, after.ref - (after.read - r)));
    }
    for (size_t k = gap + 1; k < steps.size(); ++k) back.add(score_of(steps[k]));
    best = std::max({best, on.best(), back.best()});
  }
  return best;
}

}  // namespace gatemap::mapper

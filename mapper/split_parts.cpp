// The parts of a chimeric read, as bwa-mem's supplementary alignments: each soft clip of
// the primary alignment of at least kMinSplitPart bases is seeded and verified by itself
// (within the threshold for its length, whatever the filter said) and kept where it
// maps away from the primary's reference span.
#include <htslib/sam.h>

#include "mapper/placement.hpp"
#include "mapper/seeding/seed.hpp"

namespace gatemap::mapper::detail {

std::vector<SplitPart> Placer::split_parts(const SeededRead& read, const Hit& primary, const Alignment& aln,
                                           uint64_t tie, Workspace& ws) const {
  std::vector<SplitPart> parts;
  const int m = read.length();
  SeededRead& part = ws.part;
  for (const bool front : {true, false}) {
    const uint32_t c = front ? aln.cigar.front() : aln.cigar.back();
    const int len = static_cast<int>(bam_cigar_oplen(c));
    if (bam_cigar_op(c) != BAM_CSOFT_CLIP || len < kMinSplitPart) continue;
    // [a, b) on the primary's strand, then in the read's own orientation.
    int a = front ? 0 : m - len;
    if (primary.strand == 1) a = m - (a + len);
    const int b = a + len;
    part.codes[0].assign(read.codes[0].begin() + a, read.codes[0].begin() + b);
    part.codes[1].assign(read.codes[1].begin() + (m - b), read.codes[1].begin() + (m - a));
    part.max_edits = edit_threshold(opt_.verify, len);
    collect_candidates(ref_.index(), part, opt_.seed, ws.seed);
    ReadHits hits;
    for (const Candidate& cand : part.cand) {
      const Hit h = verifier_.verify_one(part, cand, part.max_edits, cand.diag, ws);
      const bool on_primary = h.contig == primary.contig && h.diag < aln.ref_end && h.ref_end > aln.ref_begin;
      if (h.edits >= 0 && !on_primary) hits.push_back(h);
    }
    if (hits.empty()) continue;
    dedupe_hits(hits, part.max_edits);
    const BestPlacement placed = best_placement(hits, tie, part.capped);
    SplitPart sp;
    sp.strand = placed.hit->strand;
    sp.contig = placed.hit->contig;
    sp.read_begin = a;
    sp.read_end = b;
    sp.aln = verifier_.align(part, *placed.hit, ws);
    sp.mapq = placed.mapq;
    sp.score = score_of(part, *placed.hit, sp.aln, ws);
    sp.second_score = second_score(part, hits, *placed.hit, {}, ws);
    parts.push_back(std::move(sp));
  }
  return parts;
}

}  // namespace gatemap::mapper::detail

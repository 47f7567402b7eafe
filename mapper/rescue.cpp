// Mate rescue: a mate is looked for where a proper pair's insert puts it next to its
// partner's best hits, on the window's best k-mer diagonals, in the fallback's band with
// soft clips allowed, as bwa-mem's local mate rescue.
#include <algorithm>

#include "mapper/placement.hpp"
#include "mapper/seeding/seed.hpp"

namespace gatemap::mapper::detail {

// Up to the first four of found's best hits; on the opposite strand; at a cost of at
// most max_cost, with a fifth of the read (and kMinRescuedBases) aligned.
std::vector<Hit> Placer::rescue(const ReadHits& found, const SeededRead& lost, int max_cost, const InsertModel& insert,
                                Workspace& ws) const {
  std::vector<Hit> out;
  const int m = lost.length();
  if (m < kWindowSeedK || found.empty()) return out;
  const int band = Verifier::fallback_band(lost);
  const int best = found[0].edits;
  Alignment& aln = ws.clipped_aln;
  for (size_t i = 0; i < found.size() && i < 4 && found[i].edits == best; ++i) {
    const Hit& h = found[i];
    const uint8_t strand = static_cast<uint8_t>(1 - h.strand);
    // Forward mate at diag: the reverse mate ends at diag + insert; and vice versa.
    const int64_t begin = h.strand == 0 ? h.diag + insert.low() - m : h.ref_end - insert.high();
    const int64_t end = h.strand == 0 ? h.diag + insert.high() : h.ref_end - insert.low() + m;
    ref_.window(h.contig, begin - band, end + band, ws.window);
    for (int64_t diag : window_diagonals(lost.codes[strand].data(), m, ws.window, 2, band)) {
      const Candidate c{strand, h.contig, diag, 0};
      const Hit r = verifier_.verify_clipped(lost, c, diag, ws, max_cost, aln);
      if (r.edits < 0 || m - aln.clipped < std::max(kMinRescuedBases, m / 5)) continue;
      out.push_back(r);
    }
  }
  return out;
}

}  // namespace gatemap::mapper::detail

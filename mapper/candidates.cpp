#include "mapper/candidates.hpp"

#include <algorithm>

namespace gatemap::mapper::detail {

void build_candidates(const io::ReadBatch& batch, const std::vector<SeededRead>& seeded, bool for_filter,
                      CandidateBatch& cb) {
  const int64_t n = static_cast<int64_t>(seeded.size());
  cb.first.assign(n + 1, 0);
  cb.max_edits = 0;
  for (int64_t r = 0; r < n; ++r) {
    cb.first[r + 1] = cb.first[r] + static_cast<int64_t>(seeded[r].cand.size());
    cb.max_edits = std::max(cb.max_edits, seeded[r].max_edits);
  }
  if (!for_filter) return;
  cb.cand.resize(cb.size());
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t i = cb.first[r]; i < cb.first[r + 1]; ++i) {
      const Candidate& c = seeded[r].cand[i - cb.first[r]];
      cb.cand.set(i, static_cast<uint32_t>(r), c.strand, c.diag);
    }
  }
  cb.seqs.resize(n);
  for (int64_t r = 0; r < n; ++r) cb.seqs[r] = batch.reads[r].seq;
}

}  // namespace gatemap::mapper::detail

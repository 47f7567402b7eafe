#pragma once
// Candidates (mapper stage 2): the seeded reads of a batch -> one CandidateBatch, the
// unit the filter takes (on the GPU through unified memory): a (read, strand, diagonal)
// entry per candidate, read by read, and the reads' bases.
#include <cstdint>
#include <string_view>
#include <vector>

#include "io/reads/fastq.hpp"
#include "mapper/base/types.hpp"
#include "mapper/filter/gatekeeper.hpp"

namespace gatemap::mapper::detail {

struct CandidateBatch {
  std::vector<int64_t> first;          // candidates of read r: [first[r], first[r + 1])
  int max_edits = 0;                   // the batch's largest threshold: the filter's one e
  filter::FilterCandidates cand;       // reused across batches (fresh unified memory is slow to touch)
  filter::FilterReads reads;           // packed by the filter stage, as its device wants them
  std::vector<std::string_view> seqs;  // the reads' bases (views into the ReadBatch)
  int ticket = -1;                     // a GPU filter in flight for this batch
  int engine = -1;                     // on which of the filter's GPU engines
  int64_t size() const { return first.empty() ? 0 : first.back(); }
};

// Offsets and the batch's threshold; with for_filter also the filter's arrays and bases
// (`batch` must then outlive cb's use).
void build_candidates(const io::ReadBatch& batch, const std::vector<SeededRead>& seeded, bool for_filter,
                      CandidateBatch& cb);

}  // namespace gatemap::mapper::detail

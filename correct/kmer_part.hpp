#pragma once
// A part of the canonical k-mer space, for counting in bounded memory: at depth d the
// space is cut into 2^d parts by the top d bits of a hash (independent of the hashes
// of the count tables and the spectrum). A table that outgrows its budget keeps the
// first half of its part (child 0) and hands the other half back to be counted in a
// later pass over the reads: counts stay exact, whatever the order of the reads.
#include <cstdint>

#include "correct/kmer_correct_core.hpp"
#include "gpu/host_device.hpp"

namespace gatemap::correct {

struct KmerPart {
  int depth = 0;       // 0: every k-mer
  uint64_t index = 0;  // which of the 2^depth parts

  static constexpr int kMaxDepth = 48;
  GATEMAP_HD static uint64_t hash(uint64_t canonical_kmer) { return detail::mix64(canonical_kmer ^ 0x2545f4914f6cdd1dULL); }
  GATEMAP_HD bool holds(uint64_t canonical_kmer) const {
    return depth == 0 || hash(canonical_kmer) >> (64 - depth) == index;
  }
  KmerPart child(int half) const { return {depth + 1, index * 2 + static_cast<uint64_t>(half)}; }
};

}  // namespace gatemap::correct

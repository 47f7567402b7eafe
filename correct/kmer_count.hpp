#pragma once
// Exact counts of canonical k-mers over a read set (both strands fold together), held
// in hash shards that grow as needed; a batch is counted in parallel, each thread
// owning whole shards. The count histogram gives the solidity threshold.
#include <cstdint>
#include <vector>

#include "io/fastq.hpp"

namespace gatemap::correct {

class KmerCounter {
 public:
  explicit KmerCounter(int k);
  int k() const { return k_; }
  void add(const std::vector<io::Read>& reads);  // OpenMP inside
  uint64_t distinct() const;
  uint64_t total() const { return total_; }
  // h[c] = number of distinct k-mers seen c times, c = 0..max_count (the last bin
  // holds everything above).
  std::vector<uint64_t> histogram(int max_count = 255) const;
  // Calls fn(canonical_kmer) for every k-mer seen at least `threshold` times.
  template <typename Fn>
  void for_each_solid(uint32_t threshold, Fn&& fn) const {
    for (const Shard& s : shards_) {
      for (size_t i = 0; i < s.keys.size(); ++i) {
        if (s.keys[i] != kEmpty && s.counts[i] >= threshold) fn(s.keys[i]);
      }
    }
  }
  uint64_t count(uint64_t canonical_kmer) const;  // 0 when absent

 private:
  static constexpr uint64_t kEmpty = ~uint64_t(0);
  struct Shard {
    std::vector<uint64_t> keys;
    std::vector<uint32_t> counts;
    uint64_t used = 0;
  };
  void insert(Shard& s, uint64_t key);
  void grow(Shard& s);

  int k_;
  uint64_t total_ = 0;
  std::vector<Shard> shards_;
  std::vector<uint64_t> kmers_;  // per-batch scratch
  std::vector<uint16_t> shard_of_;
  std::vector<uint64_t> sorted_;  // per-batch k-mers grouped by shard
};

// Solidity threshold from a count histogram: the first valley after the error peak
// (the smallest c >= 2 with h[c] <= h[c + 1]), provided a coverage peak at least 1.5x
// its height follows and k-mers seen at least c times make half of all occurrences; 0
// otherwise (coverage too low to tell errors apart).
uint32_t first_valley(const std::vector<uint64_t>& histogram);

}  // namespace gatemap::correct

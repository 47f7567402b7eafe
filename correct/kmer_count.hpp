#pragma once
// Exact counts of canonical k-mers over a read set (both strands fold together), held
// in hash shards that grow as needed; a batch is counted in parallel, each thread
// owning whole shards. The count histogram gives the solidity threshold. This is the
// CPU twin of the GPU count table: with a budget it narrows its part of the k-mer
// space when its shards outgrow it (after a batch: a batch may pass it for a moment).
//
// A slot is one 64-bit word: a k-mer's hash h = mix64(k-mer) is invertible, its top
// bits pick the shard (so need not be stored), the other 54 bits share the word with a
// 10-bit count (saturating at kMaxCount; 0: an empty slot).
#include <cstdint>
#include <memory>
#include <vector>

#include "correct/count_table.hpp"
#include "correct/seen_twice.hpp"
#include "io/reads/fastq.hpp"

namespace gatemap::correct {

class KmerCounter : public CountTable {
 public:
  // budget_bytes 0: no budget. seen_twice_counters > 0: k-mers seen once are left out of
  // the table (a SeenTwice filter of that many counters, filled by look()); their number
  // still counts in distinct() and histogram()[1], and count() says 0 for them.
  explicit KmerCounter(int k, size_t budget_bytes = 0, uint64_t seen_twice_counters = 0);
  int k() const override { return k_; }
  void add(const std::vector<io::Read>& reads);  // OpenMP inside; without a budget
  uint64_t total() const { return total_; }
  uint64_t count(uint64_t canonical_kmer) const;  // 0 when absent; at most kMaxCount
  static constexpr uint32_t kMaxCount = kHistogramMax;

  void reset(KmerPart part) override;
  bool looks_first() const override { return seen_twice_ != nullptr; }
  void look(const std::vector<io::Read>& reads) override;
  void add(const std::vector<io::Read>& reads, std::vector<KmerPart>& dropped) override;
  KmerPart part() const override { return part_; }
  uint64_t kmers_seen() const override { return total_; }
  uint64_t distinct() const override;
  size_t bytes() const override;
  std::vector<uint64_t> histogram(uint32_t max_count = kHistogramMax) const override;
  void for_each_counted(uint32_t threshold, const std::function<void(uint64_t, uint32_t)>& fn) const override;
  void insert_solid(uint32_t threshold, KmerSpectrum& spectrum) const override;
  std::vector<uint64_t> take_solid(uint32_t threshold) override;  // frees shard by shard

 private:
  static constexpr int kShardBits = 10;
  static constexpr int kCountBits = 10;  // the shard's bits of h make room for the count
  static_assert(kCountBits == kShardBits && kMaxCount == (1u << kCountBits) - 1);
  static constexpr uint64_t kNoKmer = ~uint64_t(0);
  struct Shard {
    std::vector<uint64_t> slots;  // (h << kShardBits) | count, 0 when empty
    uint64_t used = 0;
  };
  static void insert(Shard& s, uint64_t h);  // h = mix64(k-mer)
  static void grow(Shard& s);
  // Puts a slot word into a table of another size (where its hash's low bits say).
  static void place(std::vector<uint64_t>& slots, uint64_t slot_word);
  void narrow();  // keeps part_.child(0)
  // The hashes of reads [begin, end)'s k-mers of `part` into hashes_ (kNoKmer
  // elsewhere); returns the k-mers seen (windows without N, every part).
  uint64_t hash_chunk(const std::vector<io::Read>& reads, size_t begin, size_t end, KmerPart part);
  void add_chunk(const std::vector<io::Read>& reads, size_t begin, size_t end);
  template <class Fn>  // fn(canonical k-mer, count) for every counted k-mer of a shard
  static void for_each_in(size_t shard, const Shard& s, Fn&& fn);

  int k_;
  size_t budget_;
  KmerPart part_;
  uint64_t total_ = 0;
  // The k-mers the filter left out (each seen once), by the top kOnceBits of their part
  // hash: a part of depth <= kOnceBits knows its own even after narrowing.
  static constexpr int kOnceBits = 16;
  std::vector<uint64_t> seen_once_;
  uint64_t seen_once() const;  // of the current part
  std::unique_ptr<SeenTwice> seen_twice_;
  std::vector<Shard> shards_;
  std::vector<uint64_t> hashes_;  // a chunk's k-mer hashes (scratch)
  std::vector<uint64_t> sorted_;  // the same grouped by shard
};

}  // namespace gatemap::correct

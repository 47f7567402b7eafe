#pragma once
// Exact counts of canonical k-mers over a read set (both strands fold together), held
// in hash shards that grow as needed; a batch is counted in parallel, each thread
// owning whole shards. The count histogram gives the solidity threshold. This is the
// CPU twin of the GPU count table: with a budget it narrows its part of the k-mer
// space when its shards outgrow it (after a batch: a batch may pass it for a moment).
#include <cstdint>
#include <vector>

#include "correct/count_table.hpp"
#include "io/fastq.hpp"

namespace gatemap::correct {

class KmerCounter : public CountTable {
 public:
  explicit KmerCounter(int k, size_t budget_bytes = 0);  // 0: no budget
  int k() const override { return k_; }
  void add(const std::vector<io::Read>& reads);  // OpenMP inside; without a budget
  uint64_t total() const { return total_; }
  uint64_t count(uint64_t canonical_kmer) const;  // 0 when absent

  void reset(KmerPart part) override;
  void add(const std::vector<io::Read>& reads, std::vector<KmerPart>& dropped) override;
  KmerPart part() const override { return part_; }
  uint64_t kmers_seen() const override { return total_; }
  uint64_t distinct() const override;
  size_t bytes() const override;
  std::vector<uint64_t> histogram(uint32_t max_count = 255) const override;
  void for_each_counted(uint32_t threshold, const std::function<void(uint64_t, uint32_t)>& fn) const override;
  void insert_solid(uint32_t threshold, KmerSpectrum& spectrum) const override;

 private:
  static constexpr uint64_t kEmpty = ~uint64_t(0);
  struct Shard {
    std::vector<uint64_t> keys;
    std::vector<uint32_t> counts;
    uint64_t used = 0;
  };
  void insert(Shard& s, uint64_t key);
  void grow(Shard& s);
  void narrow();  // keeps part_.child(0)

  int k_;
  size_t budget_;
  KmerPart part_;
  uint64_t total_ = 0;
  std::vector<Shard> shards_;
  std::vector<uint64_t> kmers_;  // per-batch scratch
  std::vector<uint16_t> shard_of_;
  std::vector<uint64_t> sorted_;  // per-batch k-mers grouped by shard
};

}  // namespace gatemap::correct

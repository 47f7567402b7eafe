#pragma once
// The k-mer count table on the GPU: open addressing over device memory (64-bit keys,
// 32-bit counts, inserted with atomicCAS/atomicAdd, so counts do not depend on the
// order of the reads), growing up to a byte budget and the device's free memory. Reads
// are encoded on the host threads and counted in chunks that always fit the table; the
// table doubles, and at the budget narrows its part of the k-mer space (KmerPart), before
// a chunk could overflow it. Same counts as the CPU twin (KmerCounter) for every part.
#include <cstddef>
#include <cstdint>

#include "correct/count_table.hpp"

namespace gatemap::correct {

class KmerCountGpu : public CountTable {
 public:
  // budget_bytes: device memory for the table and its scratch (0: half the free memory).
  // first_slots (a power of two; 0: kFirstSlots): the table's size before it grows.
  KmerCountGpu(int k, size_t budget_bytes, int device = 0, size_t first_slots = 0);
  static constexpr size_t kFirstSlots = size_t(1) << 27;  // 1.5 GB: a bacterial set's k-mers
  ~KmerCountGpu() override;
  KmerCountGpu(const KmerCountGpu&) = delete;
  KmerCountGpu& operator=(const KmerCountGpu&) = delete;

  int k() const override;
  void reset(KmerPart part) override;
  void add(const std::vector<io::Read>& reads, std::vector<KmerPart>& dropped) override;
  KmerPart part() const override;
  uint64_t kmers_seen() const override;
  uint64_t distinct() const override;
  size_t bytes() const override;  // the table and its scratch
  std::vector<uint64_t> histogram(uint32_t max_count) const override;
  void for_each_counted(uint32_t threshold, const std::function<void(uint64_t, uint32_t)>& fn) const override;
  void insert_solid(uint32_t threshold, KmerSpectrum& spectrum) const override;  // a Bloom filter on the device
  // The exact set filled on the device, then copied to the host.
  KmerSpectrum take_exact_spectrum(uint32_t threshold, uint64_t solid, bool compact) override;

  size_t slots() const;
  double kernel_ms() const;  // counting kernels so far (CUDA events)

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace gatemap::correct

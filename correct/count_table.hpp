#pragma once
// What the corrector's count pass needs from a k-mer count table, the CPU twin
// (kmer_count.hpp) and the GPU table (kmer_count_gpu.hpp) alike: exact counts of the
// canonical k-mers in one part of the k-mer space, in memory bounded by a budget.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "correct/kmer_correct.hpp"
#include "correct/kmer_part.hpp"
#include "io/reads/fastq.hpp"

namespace gatemap::correct {

// The count histogram's bins: 1..kHistogramMax, the last holding every count above. Wide
// enough for the coverage peak of deep sets (150 bp reads at 1000x peak near 870 at k = 21).
constexpr uint32_t kHistogramMax = 1023;

class CountTable {
 public:
  virtual ~CountTable() = default;
  virtual int k() const = 0;
  // Empties the table; from now on only k-mers of `part` are counted.
  virtual void reset(KmerPart part) = 0;
  // A table that looks first wants every read through look() once before any add().
  virtual bool looks_first() const { return false; }
  virtual void look(const std::vector<io::Read>&) {}
  // Counts the reads' k-mers (windows without N) of the current part. When the table
  // would outgrow its budget it narrows to the first half of its part, dropping the
  // counts of the other half and appending that half to `dropped`.
  virtual void add(const std::vector<io::Read>& reads, std::vector<KmerPart>& dropped) = 0;
  virtual KmerPart part() const = 0;
  // Windows without N added since reset, in every part.
  virtual uint64_t kmers_seen() const = 0;
  virtual uint64_t distinct() const = 0;
  // Memory the table holds now (host or device), for the report.
  virtual size_t bytes() const = 0;
  // h[c] = distinct k-mers seen c times, c = 0..max_count (the last bin holds all above).
  virtual std::vector<uint64_t> histogram(uint32_t max_count) const = 0;
  // Calls fn with every k-mer seen at least `threshold` times and its count (in no
  // particular order).
  virtual void for_each_counted(uint32_t threshold, const std::function<void(uint64_t, uint32_t)>& fn) const = 0;
  // The same k-mers without their counts.
  void for_each_solid(uint32_t threshold, const std::function<void(uint64_t)>& fn) const {
    for_each_counted(threshold, [&](uint64_t x, uint32_t) { fn(x); });
  }
  // The k-mers seen at least `threshold` times, after which the table is empty (a
  // table may free its memory as it goes: the k-mers and the counts need not fit at
  // once). For the end of counting only: the table counts nothing correctly after it.
  virtual std::vector<uint64_t> take_solid(uint32_t threshold) {
    std::vector<uint64_t> keys;
    for_each_solid(threshold, [&](uint64_t x) { keys.push_back(x); });
    reset(KmerPart{});
    return keys;
  }
  // The exact spectrum of the k-mers seen at least `threshold` times (`solid` of them; in
  // compact slots where they fit, with `compact`), after which the table is empty as after
  // take_solid.
  virtual KmerSpectrum take_exact_spectrum(uint32_t threshold, uint64_t solid, bool compact) {
    const std::vector<uint64_t> keys = take_solid(threshold);
    KmerSpectrum spectrum = KmerSpectrum::make_exact(k(), solid, compact);
    spectrum.insert_many(keys);
    return spectrum;
  }
  // Inserts those k-mers into the spectrum, in chunks on all threads (tables may fill a
  // Bloom filter their own way: its bits do not depend on the order).
  virtual void insert_solid(uint32_t threshold, KmerSpectrum& spectrum) const {
    std::vector<uint64_t> chunk;
    for_each_solid(threshold, [&](uint64_t x) {
      chunk.push_back(x);
      if (chunk.size() == (1 << 20)) {
        spectrum.insert_many(chunk);
        chunk.clear();
      }
    });
    spectrum.insert_many(chunk);
  }
};

}  // namespace gatemap::correct

#pragma once
// Reads from a random genome with known truth, shared by the corrector tests.
#include <string>
#include <vector>

#include "correct/correct.hpp"
#include "correct/kmer_count.hpp"
#include "io/reads/fastq.hpp"
#include "sim/rng.hpp"

namespace gatemap::test {

struct CorrectionSet {
  std::string genome;
  std::vector<io::Read> reads;       // what the corrector sees
  std::vector<std::string> truth;    // the same reads without errors
};

// Error-free reads at `coverage`, then `errors` per read in a fraction of them (each a
// substitution, or an N once in a while), at random positions. A fraction `end_indels` of
// the reads holds a 1-3 base insertion or deletion 2-20 bases from an end (their truth is
// the read with the indel: no substitution can make it right).
inline CorrectionSet make_correction_set(int genome_len, int read_len, double coverage, double erroneous_fraction,
                                         int errors, uint64_t seed, double end_indels = 0) {
  sim::Rng rng(seed);
  CorrectionSet set;
  set.genome.resize(genome_len);
  for (char& c : set.genome) c = "ACGT"[rng.below(4)];
  const int n = static_cast<int>(coverage * genome_len / read_len);
  for (int r = 0; r < n; ++r) {
    const int64_t start = rng.below(genome_len - read_len + 1);
    std::string s = set.genome.substr(start, read_len);
    if (end_indels > 0 && rng.uniform() < end_indels && start + read_len + 3 <= genome_len) {
      s = set.genome.substr(start, read_len + 3);
      const bool left = rng.below(2);
      const int64_t len = 1 + rng.below(3), at = 2 + rng.below(19);
      const size_t p = left ? at : s.size() - at;
      if (rng.below(2)) {
        s.insert(p, std::string(len, "ACGT"[rng.below(4)]));
      } else {
        s.erase(p, len);
      }
      s = left ? s.substr(s.size() - read_len) : s.substr(0, read_len);
    }
    if (rng.below(2)) {  // reverse strand
      std::string rc(s.rbegin(), s.rend());
      for (char& c : rc) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
      s = rc;
    }
    set.truth.push_back(s);
    if (rng.uniform() < erroneous_fraction) {
      for (int e = 0; e < errors; ++e) {
        const int64_t p = rng.below(read_len);
        if (rng.uniform() < 0.1) {
          s[p] = 'N';
        } else {
          s[p] = "ACGT"[(std::string("ACGT").find(s[p]) + 1 + rng.below(3)) % 4];
        }
      }
    }
    set.reads.push_back({"r" + std::to_string(r), s, std::string(read_len, 'I'), ""});
  }
  return set;
}

// The set's reads as one FASTQ file.
inline std::string fastq_of(const CorrectionSet& set) {
  std::string fq;
  for (const auto& r : set.reads) fq += "@" + r.name + "\n" + r.seq + "\n+\n" + r.qual + "\n";
  return fq;
}

}  // namespace gatemap::test

#pragma once
// The corrector's first pass: exact k-mer counts in a bounded table (CPU or GPU), the
// solidity threshold from their histogram, then the solid spectrum. When the table
// outgrows its budget it counts one part of the k-mer space at a time, one more pass
// over the reads per part; with more than one part the k-mers seen at least twice are
// kept with their counts in temporary files as each part is counted, and the solid ones
// taken from there once the threshold is known (a second round of passes over the reads
// only if the files cannot be written).
#include <cstdint>
#include <string>
#include <vector>

#include "correct/count_table.hpp"
#include "correct/kmer_correct.hpp"
#include "correct/read_input.hpp"

namespace gatemap::correct {

struct SpectrumOptions {
  uint32_t threshold = 0;  // 0: the histogram's first valley
  std::string kind = "auto";  // auto | bloom | exact
  double bloom_fpr = 1e-4;
  // An exact set in compact slots where the k-mers fit them: for correcting on a GPU (its L2
  // holds a bacterium's set then: kernels 22% faster on an H200); the CPU twin's lookups
  // took 35% longer in them (2 cores), so it gets whole k-mers.
  bool compact = true;
};

struct CountStats {
  uint64_t kmers = 0, distinct = 0;
  uint32_t threshold = 0;  // 0: no coverage peak (the spectrum is empty)
  int parts = 1;           // parts of the k-mer space counted one after another
  int rounds = 1;          // 2: the parts counted again to collect the solid k-mers (no temp files)
  double spectrum_s = 0;   // the solid k-mers into the spectrum
  size_t table_bytes = 0;  // the count table's largest size
  std::vector<uint64_t> histogram;
};

// Counts the reads of `input` (its first reading and as many replays as the parts need).
KmerSpectrum count_and_build_spectrum(CountTable& table, ReadInput& input, const SpectrumOptions& opt,
                                      CountStats& stats);

// The solid spectrum of a table counted in one part (tests, and the one-part case).
KmerSpectrum build_spectrum(const CountTable& table, uint32_t threshold, const std::string& kind, double fpr,
                            bool compact = true);

// Solidity threshold from a count histogram: the first valley after the error peak
// (the smallest c >= 2 with h[c] <= h[c + 1]), provided a coverage peak at least 1.5x
// its height follows and k-mers seen at least c times make half of all occurrences; 0
// otherwise (coverage too low to tell errors apart). The last bin counts as a peak only
// when it holds half of all occurrences (coverage past the histogram's range).
uint32_t first_valley(const std::vector<uint64_t>& histogram);

}  // namespace gatemap::correct

#pragma once
// FASTA reading (plain, gzip, bgzip) for references and haplotypes.
// Names are the first word of the '>' line. Sequences come back uppercase ACGTN:
// lowercase (soft-masked) bases are uppercased and every other letter (IUPAC codes)
// becomes N; both are counted. Empty contigs and duplicate names are errors.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

namespace gatemap::io {

class LineReader;

struct FastaRecord {
  std::string name;
  std::string seq;  // uppercase A, C, G, T, N
};

struct FastaStats {
  int64_t contigs = 0;
  int64_t bases = 0;
  int64_t lowercase_bases = 0;  // uppercased
  int64_t iupac_to_n = 0;       // non-ACGTN letters turned into N
  int64_t n_bases = 0;          // N after conversion
};

class FastaReader {
 public:
  explicit FastaReader(const std::string& path);  // throws IoError
  ~FastaReader();
  FastaReader(const FastaReader&) = delete;
  FastaReader& operator=(const FastaReader&) = delete;

  // Reads the next contig into rec; false at end of file. Throws FormatError
  // naming the file and line for malformed input.
  bool next(FastaRecord& rec);
  const FastaStats& stats() const { return stats_; }

 private:
  std::unique_ptr<LineReader> in_;
  std::unordered_set<std::string> names_;
  FastaStats stats_;
};

// Reads every contig of a FASTA file (small references, haplotypes, tests).
std::vector<FastaRecord> read_fasta(const std::string& path, FastaStats* stats = nullptr);

// Writes records as FASTA with `width` bases per line; throws IoError on failure.
void write_fasta(const std::string& path, const std::vector<FastaRecord>& records, int width = 60);

}  // namespace gatemap::io

#pragma once
// index/: the reference as the mapper needs it. FASTA -> 2-bit packed contigs (bit-planes,
// N runs kept aside as intervals) + a k-mer -> positions table over all contigs
// concatenated (32-bit global coordinates, checked). k-mers are sampled every `stride`
// positions and never span an N or a contig boundary. Saved to one file (magic, version,
// parameters, contig table, checksummed sections) and loaded by mmap.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/packed_seq.hpp"
#include "io/output_file.hpp"

namespace gatemap::index {

struct IndexOptions {
  int k = 15;              // -k: k-mer length (8..16)
  int stride = 0;          // -s: sample a k-mer every `stride` positions; 0 = auto (1 up to 1 Gbp, else 2)
  uint32_t max_occ = 500;  // -c: k-mers seen more often are "capped" (stored, reported, skipped by seeding)
  int threads = 1;         // -t
};

struct Contig {
  std::string name;
  int64_t length = 0;
  int64_t begin = 0;  // global coordinate of the first base
};

// What a k-mer lookup gives: its sampled positions (sorted), and whether it is capped.
struct KmerHits {
  const uint32_t* pos = nullptr;
  uint32_t count = 0;
  bool capped = false;
};

// When load_index checks the sections' checksums: damage the layout checks cannot see
// (a flipped reference base). The layout (sizes, the bucket table, positions inside the
// reference) is always checked first, so an index loaded with `later` is safe to read;
// its answers are trusted once verify_checksums() returned (the mapper checks them while
// CUDA starts and the index goes to the device: 0.3 s of GRCh37's load on 16 cores).
enum class Checksums { now, later };

struct IndexStats {
  int64_t positions = 0;        // sampled k-mer positions stored
  int64_t distinct_kmers = 0;
  int64_t capped_kmers = 0;     // k-mers with more than max_occ positions
  int64_t capped_positions = 0;
  int64_t n_bases = 0;
  int64_t iupac_to_n = 0;
  int64_t lowercase = 0;
};

class Index {
 public:
  // Parameters stored in the file.
  int k() const { return k_; }
  int stride() const { return stride_; }
  uint32_t max_occ() const { return max_occ_; }
  int bucket_bits() const { return bucket_bits_; }

  const std::vector<Contig>& contigs() const { return contigs_; }
  int64_t length() const { return length_; }
  const uint64_t* hi() const { return hi_; }
  const uint64_t* lo() const { return lo_; }
  int64_t words64() const { return (length_ + 63) / 64; }
  const int64_t* n_begin() const { return n_begin_; }
  const int64_t* n_end() const { return n_end_; }
  int64_t n_runs() const { return n_runs_; }
  const IndexStats& stats() const { return stats_; }
  // The k-mer table (for a device copy): the positions of bucket b (the key's top
  // bucket_bits bits) are positions()[bucket_offsets()[b] .. bucket_offsets()[b + 1]),
  // sorted by k-mer, then position; bucket_offsets()[2^bucket_bits] of them.
  const uint32_t* bucket_offsets() const { return bucket_offsets_; }
  const uint32_t* positions() const { return positions_; }
  int64_t file_bytes() const { return file_bytes_; }

  // Base code (0..3) at a global position; positions inside N runs read as A (check has_n).
  uint8_t base(int64_t pos) const {
    return static_cast<uint8_t>((((hi_[pos >> 6] >> (pos & 63)) & 1) << 1) | ((lo_[pos >> 6] >> (pos & 63)) & 1));
  }
  // True when [begin, end) overlaps an N run.
  bool has_n(int64_t begin, int64_t end) const;
  // Contig holding a global position (binary search).
  int32_t contig_of(int64_t pos) const;
  // Copies [begin, end) as ASCII (N inside N runs).
  std::string sequence(int64_t begin, int64_t end) const;

  // k-mer key of the k bases at a global position: hi-plane bits, then lo-plane bits.
  uint64_t key_at(int64_t pos) const;
  // Key of k bases given as codes 0..3 (for reads).
  static uint64_t key_of(const uint8_t* codes, int k);
  // Sorted sampled positions of a key. Thread-safe.
  KmerHits lookup(uint64_t key) const;
  // Software prefetch for a batch of lookups, so that their cache misses overlap: call
  // stage 0 for every key, then stage 1 (the bucket's positions), then stage 2 (the
  // reference words its binary search reads), then lookup(). Only a hint.
  void prefetch(uint64_t key, int stage) const;

  // The sections' checksums that load_index(path, Checksums::later) left unchecked;
  // throws FormatError naming the file and the section (none left: returns at once).
  void verify_checksums() const;

 private:
  friend std::unique_ptr<Index> build_index(const std::string&, const IndexOptions&);
  friend std::unique_ptr<Index> load_index(const std::string&, Checksums);
  friend class IndexFile;
  friend struct IndexBuilder;  // build_index's steps (index_build.cpp)

  int k_ = 15, stride_ = 1, bucket_bits_ = 0;
  uint32_t max_occ_ = 500;
  std::vector<Contig> contigs_;
  int64_t length_ = 0;
  const uint64_t* hi_ = nullptr;
  const uint64_t* lo_ = nullptr;
  const int64_t* n_begin_ = nullptr;
  const int64_t* n_end_ = nullptr;
  int64_t n_runs_ = 0;
  const uint32_t* bucket_offsets_ = nullptr;  // 2^bucket_bits + 1
  const uint32_t* positions_ = nullptr;
  IndexStats stats_;
  int64_t file_bytes_ = 0;
  // Owners: vectors after build, a mapping after load.
  PackedSeq packed_;
  std::vector<int64_t> n_begin_v_, n_end_v_;
  std::vector<uint32_t> offsets_v_, positions_v_;
  std::shared_ptr<void> mapping_;
  struct SectionSum {
    uint64_t offset, bytes, checksum;
  };
  std::vector<SectionSum> unchecked_;  // loaded with Checksums::later
  std::string path_;
};

// Builds from a FASTA file (plain/gzip/bgzip). Progress on stderr. Throws on bad input
// and when the reference does not fit 32-bit coordinates.
std::unique_ptr<Index> build_index(const std::string& fasta_path, const IndexOptions& opt);
// An index file being written: opened (under a temporary name) before the index is
// built, so that an output that cannot be written is said before the work, not after it.
class IndexFile {
 public:
  explicit IndexFile(const std::string& path);  // throws IoError naming it
  ~IndexFile();
  IndexFile(const IndexFile&) = delete;
  IndexFile& operator=(const IndexFile&) = delete;
  // Writes `index` and gives the file its name; throws IoError on any failed write.
  void save(const Index& index);

 private:
  std::string path_;
  io::OutputFile out_;
  std::FILE* fp_ = nullptr;
};
// Writes the index file (IndexFile's two steps at once).
void save_index(const Index& index, const std::string& path);
// Maps an index file; truncated, corrupted or wrong-version files throw FormatError.
std::unique_ptr<Index> load_index(const std::string& path, Checksums when = Checksums::now);

}  // namespace gatemap::index

#pragma once
// k-mer spectrum read error correction (CUDA-EC, Shi et al., as improved by Mangal and
// Jain: one warp per read, votes in shared memory, warp reductions), with its CPU twin.
//
// A k-mer is solid when its canonical form is in the spectrum (the k-mers seen at least
// `threshold` times, see correct/). Windows holding two or more N are ignored; a window
// holding one N is weak and can only be fixed at the N. Up to max_corrections times:
// list the weak (non-solid) windows; if none, stop; if there are more than k per
// correction left (a substitution fixes at most k windows), give up. For every weak window, every
// position in it and every other base, vote for (position, base) when the substituted
// window is solid. Take the largest vote (the first position on ties:
// two errors in a read draw equal votes, and the other is fixed next round); if it is
// zero, or another base at the same position has as many votes, stop. Else apply it. A
// read that still has weak windows at the end keeps only the corrections that no weak
// window covers (away from what could not be fixed, e.g. an indel); the others are put
// back, and with none kept the read is uncorrectable and unchanged. Last, the ends of a
// corrected read that substitutions rewrote as an indel's shifted sequence are put back
// (detail::undo_indel_shifts). Nothing is trimmed.
// Both twins follow exactly these steps, so their outputs are identical.
#include <cstdint>
#include <string>
#include <vector>

namespace gatemap::correct {

constexpr int kCorrectMaxReadLen = 1024;  // longer reads pass unchanged (counted)
constexpr int kMaxK = 31;

// What inserting a k-mer into an exact set did.
enum class SlotClaim : uint8_t { added, present, too_far };

// The solid k-mers: a blocked Bloom filter (kmer_correct_core.hpp) or an exact hash set (open
// addressing, linear probing): whole k-mers in 64-bit slots (empty ones hold kEmptyKmer) or,
// where a k-mer's remainder and distance fit, 32-bit slots (compact, kmer_correct_core.hpp).
struct KmerSpectrum {
  enum class Kind : uint8_t { bloom, exact, compact };
  static constexpr uint64_t kEmptyKmer = ~uint64_t(0);
  int k = 21;
  Kind kind = Kind::bloom;
  std::vector<uint64_t> words;  // bloom: the bit array; exact: the slots; compact: two slots a word
  uint64_t mask = 0;            // bloom: bits - 1; exact, compact: slots - 1 (both powers of two)
  int hashes = 0;               // bloom only
  int rem_bits = 0;             // compact only: the bits of a k-mer its slot keeps
  uint64_t n_kmers = 0;

  // Sized for n k-mers: a Bloom filter at false-positive rate fpr, or an exact set (with
  // `compact`, in compact slots where the k-mers fit them).
  static KmerSpectrum make_bloom(int k, uint64_t n, double fpr);
  static KmerSpectrum make_exact(int k, uint64_t n, bool compact = true);
  static size_t exact_bytes(int k, uint64_t n, bool compact = true);  // what make_exact takes
  void insert(uint64_t canonical_kmer);
  // Many at once, on all threads (a Bloom filter's bits do not depend on the order, nor
  // does which k-mers an exact set holds).
  void insert_many(const std::vector<uint64_t>& canonical_kmers);
  // A Bloom filter's bits for one k-mer, safe beside other threads doing the same (the
  // caller adds to n_kmers).
  void set_bloom_bits_atomic(uint64_t canonical_kmer);
  bool contains(uint64_t canonical_kmer) const;
  size_t bytes() const { return words.size() * sizeof(uint64_t); }
  uint64_t slots_filled() const;  // exact sets: slots holding a k-mer
  // A compact set made an exact one of 64-bit slots (the same k-mers): what an insertion
  // too far from its home does.
  void widen();

 private:
  SlotClaim claim_slot(uint64_t canonical_kmer);  // exact sets
  void check_capacity() const;
};

// Reads as 2-bit codes (A C G T = 0..3, N = 4), corrected in place.
struct CorrectBatch {
  std::vector<uint8_t> codes;
  std::vector<int64_t> offset;
  std::vector<int32_t> len;
  std::vector<uint8_t> status;  // out: CorrectStatus per read
  std::vector<uint8_t> changed; // out: bases changed per read
  size_t size() const { return len.size(); }
  void add(const std::string& seq);
  std::string sequence(size_t i) const;
};

enum class CorrectStatus : uint8_t { clean, corrected, uncorrectable, too_long };

struct CorrectOptions {
  int max_corrections = 6;  // substitutions per read
};

// The CPU twin (OpenMP across reads).
void correct_reads_cpu(const KmerSpectrum& spectrum, const CorrectOptions& opt, CorrectBatch& batch);

// The GPU engine: the spectrum is copied to the device once; then batches.
class KmerCorrectGpu {
 public:
  explicit KmerCorrectGpu(const KmerSpectrum& spectrum, int device = 0);
  // Another engine on `same_spectrum`'s device and spectrum (not copied again), with its
  // own stream and buffers: engines that run at once overlap their copies and kernels.
  struct SharingSpectrum {};
  KmerCorrectGpu(SharingSpectrum, const KmerCorrectGpu& same_spectrum);
  ~KmerCorrectGpu();
  KmerCorrectGpu(const KmerCorrectGpu&) = delete;
  KmerCorrectGpu& operator=(const KmerCorrectGpu&) = delete;
  // kernel_ms (optional): kernel time from CUDA events.
  void correct(const CorrectOptions& opt, CorrectBatch& batch, double* kernel_ms = nullptr);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace gatemap::correct

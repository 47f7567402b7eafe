#pragma once
// GateKeeper pre-alignment filter (Alser et al. 2017) as improved by GateKeeper-GPU
// (Bingol et al.): for each (read, candidate diagonal) pair decide whether the read can
// align within `e` edits on diagonals [pos-e, pos+e]; rejected pairs skip verification.
//
// Per pair: Hamming mask plus 2e shifted masks (the reference window shifted one base at
// a time, carry between words), each the XOR of the 2-bit codes with the two bits ORed;
// short zero streaks (1-2 bases flanked by mismatches) amended to ones; bits whose
// reference base lies outside the contig (exposed by the shift) set to one; AND of all
// masks; then a windowed count. Sequences are stored as bit-planes (see PackedSeq), so
// "XOR then OR the bit pair" is (hi^hi')|(lo^lo').
//
// Soundness (no false rejects against banded edit distance): an amended streak that an
// optimal alignment uses is flanked by edits on both sides, so a run of L ones in the
// final mask hides at most 2 matches per edit; each run is charged ceil(L/3) edits
// (GateKeeper charges one per 1-bit, which can reject pairs within e). Pairs with N in
// the read or the reference window, and reads longer than kMaxReadLen, pass unfiltered.
#include <cstdint>
#include <string_view>
#include <vector>

#include "gpu/host_device.hpp"

#include "gpu/unified_alloc.hpp"

namespace gatemap::mapper::filter {

constexpr int kMaxReadLen = 512;
constexpr int kMaxEdits = 64;
constexpr uint8_t kFilterUnfiltered = 0x80;  // result flag: passed without filtering (N or too long)

// The reference as the filter sees it (a view; global coordinates over all contigs).
struct FilterReference {
  const uint32_t* hi = nullptr;  // bit-planes as 32-bit words
  const uint32_t* lo = nullptr;
  int64_t words = 0;
  const int64_t* contig_begin = nullptr;  // [begin, end) of each contig
  const int64_t* contig_end = nullptr;
  int32_t n_contigs = 0;
  const int64_t* n_begin = nullptr;  // sorted, disjoint N runs [begin, end)
  const int64_t* n_end = nullptr;
  int64_t n_runs = 0;
};

// Reads of one batch, both strands packed. Read r on strand s (0 forward, 1 reverse
// complement) starts at word (2r+s)*stride_words of hi/lo.
struct FilterReads {
  int32_t stride_words = 0;
  std::vector<int32_t> len;
  std::vector<uint8_t> has_n;
  std::vector<uint32_t> hi, lo;    // filled by pack_reads(..., pack_on_host=true)
  std::vector<char> ascii;         // the bases, for encoding on the device
  std::vector<int64_t> offset;     // start of each read in ascii
  size_t size() const { return len.size(); }
};

// Candidate pairs of one batch (structure of arrays, one entry per pair): 8 bytes a
// pair, since moving them to the device is most of the filter's cost. Large arrays live
// in unified memory (see unified_alloc.hpp), where the GPU engine reads them in place.
// The diagonal is global and 32-bit (the index's coordinates); the filter takes the
// contig that holds the read's middle base (see gatekeeper_core.hpp for why that is
// sound). A diagonal outside 32 bits (a read hanging off the reference's first or last
// base) is flagged and passes unfiltered.
struct FilterCandidates {
  static constexpr uint32_t kOutside = 0x80000000u;  // read_strand flag: diagonal not representable
  static constexpr uint32_t kMaxReads = 1u << 30;     // reads per batch
  gpu::UnifiedVector<uint32_t> read_strand;  // read index (into FilterReads) * 2 + strand (1: reverse complement), | kOutside
  gpu::UnifiedVector<uint32_t> diagonal;     // global position of the read's first base
  size_t size() const { return read_strand.size(); }
  uint32_t read(size_t i) const { return (read_strand[i] & ~kOutside) >> 1; }
  uint8_t strand(size_t i) const { return static_cast<uint8_t>(read_strand[i] & 1); }
  int64_t diag(size_t i) const { return (read_strand[i] & kOutside) ? -1 : int64_t{diagonal[i]}; }
  void clear() { read_strand.clear(); diagonal.clear(); }
  void resize(size_t n) { read_strand.resize(n); diagonal.resize(n); }
  void set(size_t i, uint32_t r, uint8_t s, int64_t diag) {
    const bool outside = diag < 0 || diag > int64_t{0xffffffff};
    read_strand[i] = (r << 1) | s | (outside ? kOutside : 0u);
    diagonal[i] = outside ? 0u : static_cast<uint32_t>(diag);
  }
  void push(uint32_t r, uint8_t s, int64_t diag) {
    resize(size() + 1);
    set(size() - 1, r, s, diag);
  }
};

// Result code per pair: low 7 bits = edit estimate capped at e+1 (a lower bound on the
// banded edit distance), or kFilterUnfiltered.
GATEMAP_HD bool filter_accepts(uint8_t code, int e) {
  return (code & kFilterUnfiltered) || static_cast<int>(code) <= e;
}

// Collects the bases of each read (and packs both strands on the host when asked).
// Throws UsageError beyond FilterCandidates::kMaxReads reads.
void pack_reads(const std::vector<std::string_view>& seqs, FilterReads& out, bool pack_on_host = true);

// CPU twin: OpenMP across pairs, bit-identical to the GPU kernel. Thread-safe.
void gatekeeper_cpu(const FilterReference& ref, const FilterReads& reads, const FilterCandidates& cand,
                    int e, std::vector<uint8_t>& out);

struct FilterTiming {
  double kernel_ms = 0;  // CUDA events around the kernel(s)
  double total_ms = 0;   // host wall time: copy in, prefetch, encode, kernel, results back
  double fill_ms = 0;    // of which: the host copying the batch into unified memory
};

// GPU engine: the reference lives on the device for the engine's lifetime; each batch
// goes through CUDA unified memory (advised and prefetched on separate streams), in
// one of two slots so that the host can fill one batch while the device filters the
// other. Batches larger than the memory budget (from cudaMemGetInfo) are split.
// Not thread-safe: one engine per host thread. Throws CudaError on failure.
class GateKeeperGpu {
 public:
  GateKeeperGpu(const FilterReference& ref, int device = 0);
  ~GateKeeperGpu();
  GateKeeperGpu(const GateKeeperGpu&) = delete;
  GateKeeperGpu& operator=(const GateKeeperGpu&) = delete;

  // Asynchronous: copies the batch into a free slot and enqueues it; returns a ticket.
  // Candidate arrays already in unified memory are used in place (not copied): `cand`
  // must then stay alive and unchanged until collect() (keep them for the next batch:
  // fresh managed memory is slow to touch).
  // encode_on_device: upload bases and pack on the GPU instead of the host's packing.
  int submit(const FilterReads& reads, const FilterCandidates& cand, int e, bool encode_on_device = false);
  // Waits for a ticket and writes its results (one code per pair).
  void collect(int ticket, std::vector<uint8_t>& out, FilterTiming* timing = nullptr);
  // submit + collect.
  void filter(const FilterReads& reads, const FilterCandidates& cand, int e, std::vector<uint8_t>& out,
              bool encode_on_device = false, FilterTiming* timing = nullptr);

  struct Impl;

 private:
  Impl* impl_;
};

}  // namespace gatemap::mapper::filter

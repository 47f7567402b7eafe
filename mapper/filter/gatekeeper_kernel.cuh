#pragma once
// The GateKeeper kernel, one for both of its users: the filter stage's engine
// (gatekeeper.cu: candidate arrays) and the GPU verifier (verify/verify.cu: its jobs).
// One thread per candidate (a grid-stride loop); `Cands` says which read strand and
// diagonal candidate i is, as FilterCandidates encodes them (read * 2 + strand, kOutside).
// WW, the window's 32-bit words, is fixed per launch from the batch's longest read.
#include <algorithm>
#include <cstdint>

#include "mapper/filter/gatekeeper_core.hpp"

namespace gatemap::mapper::filter {

constexpr int kMaxWindowWords = (kMaxReadLen + 2 * kMaxEdits + 31) / 32;

template <int WW, class Cands>
__global__ void gatekeeper_kernel(FilterReference ref, const uint32_t* __restrict__ read_hi,
                                  const uint32_t* __restrict__ read_lo, const int32_t* __restrict__ len,
                                  const uint8_t* __restrict__ has_n, int stride, Cands cands, int64_t n, int e,
                                  uint8_t* __restrict__ out) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    uint32_t read_strand = 0, diagonal = 0;
    cands(i, read_strand, diagonal);
    int m = 0;
    int32_t contig = 0;
    size_t off = 0;
    uint8_t code = kFilterUnfiltered;
    if (detail::candidate_pair(ref, len, has_n, stride, read_strand, diagonal, e, m, contig, off)) {
      code = detail::gatekeeper_pair<WW>(ref, read_hi + off, read_lo + off, m, diagonal, contig, e);
    }
    out[i] = code;
  }
}

template <class Cands>
using GateKeeperKernel = void (*)(FilterReference, const uint32_t*, const uint32_t*, const int32_t*, const uint8_t*,
                                  int, Cands, int64_t, int, uint8_t*);

// The smallest instantiation whose window holds ww words.
template <class Cands, int WW = 1>
GateKeeperKernel<Cands> gatekeeper_kernel_for(int ww) {
  if constexpr (WW >= kMaxWindowWords) {
    return &gatekeeper_kernel<WW, Cands>;
  } else {
    return ww <= WW ? &gatekeeper_kernel<WW, Cands> : gatekeeper_kernel_for<Cands, WW + 1>(ww);
  }
}

// Blocks for n candidates (the grid-stride loop takes the rest beyond 2^20 blocks).
inline unsigned gatekeeper_blocks(int64_t n, int threads) {
  return static_cast<unsigned>(std::min<int64_t>((n + threads - 1) / threads, int64_t{1} << 20));
}

}  // namespace gatemap::mapper::filter

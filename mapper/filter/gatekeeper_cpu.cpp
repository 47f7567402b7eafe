// CPU twin of the GateKeeper kernel: the same per-pair code, OpenMP across pairs.
#include <omp.h>

#include "common/dna.hpp"
#include "common/error.hpp"
#include "mapper/filter/gatekeeper.hpp"
#include "mapper/filter/gatekeeper_core.hpp"

namespace gatemap::mapper::filter {

namespace {

// detail::pack_read's planes (the device packs with it) from the code table instead of
// a switch, measured 2x faster on the host: A/C/G/T in either case give 0..3, anything
// else is N (code 0, complement 3).
void pack_read_host(const char* s, int m, uint32_t* fh, uint32_t* fl, uint32_t* rh, uint32_t* rl, int stride,
                    uint8_t* has_n) {
  for (int j = 0; j < stride; ++j) fh[j] = fl[j] = rh[j] = rl[j] = 0;
  bool n = false;
  for (int i = 0; i < m; ++i) {
    const uint8_t c = base_code(s[i]);
    n |= c > 3;
    const uint32_t code = c > 3 ? 0u : c;
    fh[i >> 5] |= (code >> 1) << (i & 31);
    fl[i >> 5] |= (code & 1) << (i & 31);
    const int r = m - 1 - i;
    rh[r >> 5] |= ((3 - code) >> 1) << (r & 31);
    rl[r >> 5] |= ((3 - code) & 1) << (r & 31);
  }
  *has_n = n ? 1 : 0;
}

}  // namespace

void pack_reads(const std::vector<std::string_view>& seqs, FilterReads& out, bool pack_on_host) {
  // Candidates carry the read index in 30 bits (FilterCandidates).
  if (seqs.size() > FilterCandidates::kMaxReads) throw UsageError("GateKeeper: more than 2^30 reads in one batch");
  const int64_t n = static_cast<int64_t>(seqs.size());
  size_t max_len = 0, total = 0;
  out.len.resize(n);
  out.offset.resize(n);
  for (int64_t r = 0; r < n; ++r) {
    out.len[r] = static_cast<int32_t>(seqs[r].size());
    out.offset[r] = static_cast<int64_t>(total);
    max_len = std::max(max_len, seqs[r].size());
    total += seqs[r].size();
  }
  out.stride_words = static_cast<int32_t>(std::max<size_t>(1, (std::min<size_t>(max_len, kMaxReadLen) + 31) / 32));
  out.has_n.assign(n, 0);
  out.ascii.resize(total);
  const size_t stride = out.stride_words;
  if (pack_on_host) {
    out.hi.resize(2 * n * stride);
    out.lo.resize(2 * n * stride);
  } else {
    out.hi.clear();
    out.lo.clear();
  }
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < n; ++r) {
    std::copy(seqs[r].begin(), seqs[r].end(), out.ascii.begin() + out.offset[r]);
    if (!pack_on_host) continue;
    const int m = std::min<int>(out.len[r], kMaxReadLen);
    uint32_t* fh = &out.hi[2 * r * stride];
    uint32_t* fl = &out.lo[2 * r * stride];
    pack_read_host(seqs[r].data(), m, fh, fl, fh + stride, fl + stride, static_cast<int>(stride), &out.has_n[r]);
    if (out.len[r] > kMaxReadLen) out.has_n[r] = 0;  // too long: passes unfiltered by length
  }
}

void gatekeeper_cpu(const FilterReference& ref, const FilterReads& reads, const FilterCandidates& cand, int e,
                    std::vector<uint8_t>& out) {
  if (e < 0 || e > kMaxEdits) throw UsageError("GateKeeper: -e must be in 0.." + std::to_string(kMaxEdits));
  if (reads.hi.size() != 2 * reads.size() * static_cast<size_t>(reads.stride_words)) {
    throw Error("gatekeeper_cpu: reads were not packed on the host");
  }
  const int64_t n = static_cast<int64_t>(cand.size());
  out.resize(n);
#pragma omp parallel for schedule(dynamic, 4096)
  for (int64_t i = 0; i < n; ++i) {
    out[i] = detail::gatekeeper_candidate(ref, reads.hi.data(), reads.lo.data(), reads.len.data(),
                                          reads.has_n.data(), reads.stride_words, cand.read_strand[i],
                                          cand.diagonal[i], e);
  }
}

}  // namespace gatemap::mapper::filter

// CPU twin of the GateKeeper kernel: the same per-pair code, OpenMP across pairs.
#include <omp.h>

#include "common/error.hpp"
#include "gpu/gatekeeper.hpp"
#include "gpu/gatekeeper_core.hpp"

namespace gatemap::gpu {

void pack_reads(const std::vector<std::string_view>& seqs, FilterReads& out, bool pack_on_host) {
  const size_t n = seqs.size();
  size_t max_len = 0, total = 0;
  for (const auto& s : seqs) {
    max_len = std::max(max_len, s.size());
    total += s.size();
  }
  out.stride_words = static_cast<int32_t>(std::max<size_t>(1, (std::min<size_t>(max_len, kMaxReadLen) + 31) / 32));
  out.len.resize(n);
  out.has_n.assign(n, 0);
  out.offset.resize(n);
  out.ascii.resize(total);
  size_t at = 0;
  for (size_t r = 0; r < n; ++r) {
    out.len[r] = static_cast<int32_t>(seqs[r].size());
    out.offset[r] = static_cast<int64_t>(at);
    std::copy(seqs[r].begin(), seqs[r].end(), out.ascii.begin() + at);
    at += seqs[r].size();
  }
  if (!pack_on_host) {
    out.hi.clear();
    out.lo.clear();
    return;
  }
  const size_t stride = out.stride_words;
  out.hi.assign(2 * n * stride, 0);
  out.lo.assign(2 * n * stride, 0);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < static_cast<int64_t>(n); ++r) {
    const int m = std::min<int>(out.len[r], kMaxReadLen);
    uint32_t* fh = &out.hi[2 * r * stride];
    uint32_t* fl = &out.lo[2 * r * stride];
    detail::pack_read(out.ascii.data() + out.offset[r], m, fh, fl, fh + stride, fl + stride,
                      static_cast<int>(stride), &out.has_n[r]);
    if (out.len[r] > kMaxReadLen) out.has_n[r] = 0;  // too long: passes unfiltered by length
  }
}

void gatekeeper_cpu(const FilterReference& ref, const FilterReads& reads, const FilterCandidates& cand, int e,
                    std::vector<uint8_t>& out) {
  if (e < 0 || e > kMaxEdits) throw UsageError("GateKeeper: -e must be in 0.." + std::to_string(kMaxEdits));
  if (reads.hi.size() != 2 * reads.size() * static_cast<size_t>(reads.stride_words)) {
    throw Error("gatekeeper_cpu: reads were not packed on the host");
  }
  if (reads.size() > FilterCandidates::kMaxReads) throw UsageError("GateKeeper: more than 2^30 reads in one batch");
  const int64_t n = static_cast<int64_t>(cand.size());
  out.resize(n);
#pragma omp parallel for schedule(dynamic, 4096)
  for (int64_t i = 0; i < n; ++i) {
    out[i] = detail::gatekeeper_candidate(ref, reads.hi.data(), reads.lo.data(), reads.len.data(),
                                          reads.has_n.data(), reads.stride_words, cand.read_strand[i],
                                          cand.diagonal[i], e);
  }
}

}  // namespace gatemap::gpu

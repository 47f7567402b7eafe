#include "mapper/base/reference.hpp"

#include <algorithm>

namespace gatemap::mapper {

Reference::Reference(const index::Index& idx) : idx_(idx) {
  for (const auto& c : idx.contigs()) {
    contig_begin_.push_back(c.begin);
    contig_end_.push_back(c.begin + c.length);
  }
  planes_ = {idx.hi(), idx.lo(), idx.length()};
  filter_view_.hi = reinterpret_cast<const uint32_t*>(idx.hi());
  filter_view_.lo = reinterpret_cast<const uint32_t*>(idx.lo());
  filter_view_.words = idx.words64() * 2;
  filter_view_.contig_begin = contig_begin_.data();
  filter_view_.contig_end = contig_end_.data();
  filter_view_.n_contigs = static_cast<int32_t>(contig_begin_.size());
  filter_view_.n_begin = idx.n_begin();
  filter_view_.n_end = idx.n_end();
  filter_view_.n_runs = idx.n_runs();
}

void Reference::window(uint32_t c, int64_t begin, int64_t end, RefWindow& out) const {
  fetch_window(idx_, std::max(contig_begin_[c], begin), std::min(contig_end_[c], end), out);
}

void fetch_window(const index::Index& idx, int64_t begin, int64_t end, RefWindow& out) {
  begin = std::max<int64_t>(begin, 0);
  end = std::min(end, idx.length());
  out.begin = begin;
  out.codes.resize(static_cast<size_t>(std::max<int64_t>(0, end - begin)));
  // 64 bases per pair of plane words (the per-base decode was 3% of a GPU-seeded run).
  uint8_t* codes = out.codes.data();
  for (int64_t p = begin; p < end;) {
    const int shift = static_cast<int>(p & 63);
    const int n = static_cast<int>(std::min<int64_t>(64 - shift, end - p));
    const uint64_t hi = idx.hi()[p >> 6] >> shift, lo = idx.lo()[p >> 6] >> shift;
    for (int j = 0; j < n; ++j) *codes++ = static_cast<uint8_t>((((hi >> j) & 1) << 1) | ((lo >> j) & 1));
    p += n;
  }
  if (idx.has_n(begin, end)) {
    for (int64_t p = begin; p < end; ++p) {
      if (idx.has_n(p, p + 1)) out.codes[p - begin] = 4;
    }
  }
}

}  // namespace gatemap::mapper

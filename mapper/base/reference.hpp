#pragma once
// The reference as every mapper stage reads it (one accessor for filter, verify, rescue
// and the affine redraw): contig bounds, windows of base codes, the bit-planes of the
// Myers verifier and the GateKeeper view, all over the index's packed sequence (global
// coordinates, 0-based).
#include <cstdint>
#include <string>
#include <vector>

#include "index/index.hpp"
#include "mapper/align/banded_dp.hpp"
#include "mapper/align/myers.hpp"
#include "mapper/filter/gatekeeper.hpp"

namespace gatemap::mapper {

class Reference {
 public:
  explicit Reference(const index::Index& idx);
  Reference(const Reference&) = delete;
  Reference& operator=(const Reference&) = delete;

  const index::Index& index() const { return idx_; }
  int64_t contig_begin(uint32_t c) const { return contig_begin_[c]; }
  int64_t contig_end(uint32_t c) const { return contig_end_[c]; }
  const std::string& contig_name(uint32_t c) const { return idx_.contigs()[c].name; }
  bool has_n(int64_t begin, int64_t end) const { return idx_.has_n(begin, end); }
  const PlaneRef& planes() const { return planes_; }
  const filter::FilterReference& filter_view() const { return filter_view_; }

  // The codes of [begin, end) clipped to contig c (N as 4) into out (reused buffer).
  void window(uint32_t c, int64_t begin, int64_t end, RefWindow& out) const;

 private:
  const index::Index& idx_;
  std::vector<int64_t> contig_begin_, contig_end_;
  PlaneRef planes_;
  filter::FilterReference filter_view_;
};

// Reference codes of [begin, end) clipped to the index, N runs as 4.
void fetch_window(const index::Index& idx, int64_t begin, int64_t end, RefWindow& out);

}  // namespace gatemap::mapper

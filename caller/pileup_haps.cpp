// Fallback haplotypes for a region the assembler cannot resolve (a repeat longer than
// the largest k): candidate events are those the reads' own alignments show
// (mismatches of good quality, insertions, deletions) at least twice and in at least
// 10% of the reads over them, in some sample; haplotypes are the combinations of them that reads carry
// together.
#include <htslib/sam.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "caller/detail.hpp"

namespace gatemap::caller::detail {

namespace {

using Ev = std::tuple<int64_t, int, std::string>;  // (offset in the region, deleted length, bases; "+" = insertion)

// The candidate events one read's alignment shows inside the region.
std::vector<Ev> read_events(const AlignedRead& r, int64_t begin, int64_t end, const std::string& ref_region,
                            int min_base_q) {
  std::vector<Ev> out;
  int64_t rpos = r.pos;
  int q = 0;
  for (uint32_t c : r.cigar) {
    const int op = bam_cigar_op(c), len = bam_cigar_oplen(c);
    if (op == BAM_CMATCH || op == BAM_CEQUAL || op == BAM_CDIFF) {
      for (int i = 0; i < len; ++i) {
        const int64_t p = rpos + i;
        if (p < begin || p >= end || r.qual[q + i] < min_base_q || r.seq[q + i] == 'N') continue;
        if (r.seq[q + i] != ref_region[p - begin]) out.emplace_back(p - begin, 0, r.seq.substr(q + i, 1));
      }
      rpos += len, q += len;
    } else if (op == BAM_CINS) {
      if (rpos - 1 > begin && rpos < end) out.emplace_back(rpos - 1 - begin, 0, "+" + r.seq.substr(q, len));
      q += len;
    } else if (op == BAM_CDEL) {
      if (rpos - 1 > begin && rpos + len < end) out.emplace_back(rpos - 1 - begin, len, "");
      rpos += len;
    } else if (op == BAM_CSOFT_CLIP) {
      q += len;
    } else if (op == BAM_CREF_SKIP) {
      rpos += len;
    }
  }
  return out;
}

// The reference with events applied (right to left, so offsets stay valid).
std::string apply(const std::string& ref_region, std::vector<Ev> events) {
  std::sort(events.begin(), events.end());
  std::string h = ref_region;
  int64_t last = static_cast<int64_t>(ref_region.size());
  for (auto it = events.rbegin(); it != events.rend(); ++it) {
    const auto& [off, del, bases] = *it;
    if (off + del >= last) continue;  // overlaps an event to its right: skip
    if (del > 0) {
      h.erase(static_cast<size_t>(off + 1), static_cast<size_t>(del));
    } else if (!bases.empty() && bases[0] == '+') {
      h.insert(static_cast<size_t>(off + 1), bases.substr(1));
    } else {
      h[static_cast<size_t>(off)] = bases[0];
    }
    last = off;
  }
  return h;
}

}  // namespace

std::vector<std::string> pileup_haplotypes(const std::string& ref_region, int64_t begin,
                                           const std::vector<const AlignedRead*>& reads, int min_base_q,
                                           int max_haplotypes) {
  const int64_t end = begin + static_cast<int64_t>(ref_region.size());
  size_t samples = 1;
  for (const AlignedRead* r : reads) samples = std::max(samples, static_cast<size_t>(r->sample) + 1);
  std::vector<std::vector<Ev>> per_read;
  std::map<Ev, std::vector<int>> support;  // reads showing the event, per sample
  for (const AlignedRead* r : reads) {
    per_read.push_back(read_events(*r, begin, end, ref_region, min_base_q));
    for (const Ev& e : per_read.back()) {
      auto& n = support[e];
      n.resize(samples, 0);
      ++n[static_cast<size_t>(r->sample)];
    }
  }
  // An event is a candidate when, in some sample, at least 2 reads show it and they are
  // 10% of the reads over its position (not of the region's: a region of a few hundred
  // bases holds 5x its depth in reads, which hid hets with 2-3 alt reads at 15x; not of
  // every sample's: the others' reads would hide one sample's het).
  const size_t width = static_cast<size_t>(end - begin) + 1;
  std::vector<int> depth(samples * width, 0);  // reads of each sample covering each offset
  for (const AlignedRead* r : reads) {
    const int64_t from = std::max(r->pos, begin), to = std::min(r->end, end);
    if (from >= to) continue;
    int* d = &depth[static_cast<size_t>(r->sample) * width];
    ++d[static_cast<size_t>(from - begin)];
    --d[static_cast<size_t>(to - begin)];
  }
  for (size_t s = 0; s < samples; ++s) {
    for (size_t i = 1; i < width; ++i) depth[s * width + i] += depth[s * width + i - 1];
  }
  const auto candidate = [&](const Ev& e, const std::vector<int>& n) {
    for (size_t s = 0; s < samples; ++s) {
      if (n[s] >= 2 && n[s] >= 0.1 * depth[s * width + static_cast<size_t>(std::get<0>(e))]) return true;
    }
    return false;
  };
  // Haplotypes as the reads phase them: the combinations of candidate events that reads
  // carry together, most supported first; then any candidate not yet on a haplotype.
  std::map<std::vector<Ev>, int> combos;
  for (auto& evs : per_read) {
    std::vector<Ev> kept;
    for (const Ev& e : evs) {
      if (candidate(e, support[e])) kept.push_back(e);
    }
    if (!kept.empty()) ++combos[kept];
  }
  std::vector<std::pair<int, std::vector<Ev>>> ranked;
  for (const auto& [evs, n] : combos) ranked.emplace_back(n, evs);
  for (const auto& [e, n] : support) {
    if (candidate(e, n)) ranked.emplace_back(0, std::vector<Ev>{e});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> haps{ref_region};
  for (const auto& [n, evs] : ranked) {
    if (static_cast<int>(haps.size()) >= max_haplotypes) break;
    std::string h = apply(ref_region, evs);
    if (std::find(haps.begin(), haps.end(), h) == haps.end()) haps.push_back(std::move(h));
  }
  return haps.size() > 1 ? haps : std::vector<std::string>{};
}

}  // namespace gatemap::caller::detail

// Active regions: per-position evidence of variation from the reads (mismatching bases
// of good quality, insertions, deleted bases, soft clips of 5+ bases), a position being
// active when, in some sample, it has at least 2 such events and they make 10% of that
// sample's depth (a het of one sample is not diluted by the others' reads); active
// stretches (gaps up to the padding joined) become cores of bounded length, padded.
#include <htslib/sam.h>
#include <omp.h>

#include <algorithm>

#include "caller/detail.hpp"

namespace gatemap::caller::detail {

int64_t longest_span(const std::vector<AlignedRead>& reads) {
  int64_t longest = 0;
  for (const AlignedRead& r : reads) longest = std::max(longest, r.end - r.pos);
  return longest;
}

std::vector<Region> find_regions(const std::string& ref, int64_t win_begin, int64_t win_end,
                                 const std::vector<AlignedRead>& reads, int min_base_q, int padding, int max_len,
                                 int n_samples) {
  const int64_t n = win_end - win_begin;
  const int64_t S = std::max(1, n_samples);  // per position, a count per sample
  std::vector<float> depth(static_cast<size_t>(std::max<int64_t>(n, 0) * S), 0.f), evid(depth.size(), 0.f);
  // Evidence per position, in slices of positions on all threads: each slice walks the
  // reads (sorted by start) that can reach it, in order, so sums are the serial ones.
  const int64_t slices = std::max<int64_t>(1, std::min<int64_t>(n / 8192, 4 * omp_get_max_threads()));
  const int64_t longest = longest_span(reads);  // a slice's first read starts at most this far before it
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t sl = 0; sl < slices; ++sl) {
    const int64_t lo = win_begin + n * sl / slices, hi = win_begin + n * (sl + 1) / slices;
    int64_t sample = 0;
    auto add = [&](std::vector<float>& v, int64_t p, float w) {
      if (p >= lo && p < hi) v[(p - win_begin) * S + sample] += w;
    };
    const auto first = std::partition_point(reads.begin(), reads.end(),
                                            [&](const AlignedRead& r) { return r.pos + longest + 1 < lo; });
    for (auto it = first; it != reads.end(); ++it) {
      const AlignedRead& r = *it;
      if (r.pos > hi) break;  // an insertion or clip adds at most one base before the read
      if (r.end + 1 < lo) continue;
      sample = r.sample;
      int64_t rpos = r.pos;
      int q = 0;
      for (size_t k = 0; k < r.cigar.size(); ++k) {
        const int op = bam_cigar_op(r.cigar[k]);
        const int len = bam_cigar_oplen(r.cigar[k]);
        switch (op) {
          case BAM_CMATCH:
          case BAM_CEQUAL:
          case BAM_CDIFF:
            for (int i = 0; i < len; ++i) {
              const int64_t p = rpos + i;
              if (p < lo || p >= hi || r.qual[q + i] < min_base_q) continue;
              add(depth, p, 1.f);
              const char b = ref[p];
              if (b != 'N' && r.seq[q + i] != b && r.seq[q + i] != 'N') add(evid, p, 1.f);
            }
            rpos += len, q += len;
            break;
          case BAM_CINS:
            add(evid, rpos - 1, 1.f), add(evid, rpos, 1.f);
            q += len;
            break;
          case BAM_CDEL:
            for (int i = 0; i < len; ++i) add(evid, rpos + i, 1.f), add(depth, rpos + i, 1.f);
            rpos += len;
            break;
          case BAM_CSOFT_CLIP:
            if (len >= 5) add(evid, k == 0 ? rpos : rpos - 1, 1.f);
            q += len;
            break;
          case BAM_CREF_SKIP:
            rpos += len;
            break;
          default:
            break;
        }
      }
    }
  }
  // Active stretches (gaps of up to `padding` joined), cut to max_len, then padded.
  const int core_max = std::max(1, max_len - 2 * padding);
  const int64_t contig_len = static_cast<int64_t>(ref.size());
  std::vector<Region> out;
  int64_t s = -1, e = -1;
  auto flush = [&] {
    for (int64_t a = s; a < e; a += core_max) {
      const int64_t b = std::min(e, a + core_max);
      out.push_back({std::max<int64_t>(0, a - padding), std::min(contig_len, b + padding), a, b});
    }
  };
  for (int64_t i = 0; i < n; ++i) {
    bool active = false;
    for (int64_t k = i * S; k < (i + 1) * S; ++k) active |= evid[k] >= 2.f && evid[k] >= 0.1f * std::max(depth[k], 1.f);
    if (!active) continue;
    const int64_t p = win_begin + i;
    if (s >= 0 && p - e <= padding) {
      e = p + 1;
    } else {
      if (s >= 0) flush();
      s = p, e = p + 1;
    }
  }
  if (s >= 0) flush();
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].cluster = i > 0 && out[i].begin < out[i - 1].end ? out[i - 1].cluster : out[i].core_begin;
  }
  return out;
}

std::pair<int64_t, int64_t> unclipped_span(const AlignedRead& r) {
  int64_t lead = 0, trail = 0;
  if (!r.cigar.empty() && bam_cigar_op(r.cigar.front()) == BAM_CSOFT_CLIP) lead = bam_cigar_oplen(r.cigar.front());
  if (r.cigar.size() > 1 && bam_cigar_op(r.cigar.back()) == BAM_CSOFT_CLIP) trail = bam_cigar_oplen(r.cigar.back());
  return {r.pos - lead, r.end + trail};
}

void read_slice(const AlignedRead& r, int64_t begin, int64_t end, std::string& bases, std::vector<uint8_t>& quals,
                int* first_base) {
  // The reference position each query base stands for: soft clips extend the alignment,
  // inserted bases go with the base before them.
  int64_t rpos = r.pos;
  int q = 0, first = -1, last = -1;
  auto take = [&](int qi, int64_t p) {
    if (p >= begin && p < end) {
      if (first < 0) first = qi;
      last = qi;
    }
  };
  for (size_t k = 0; k < r.cigar.size(); ++k) {
    const int op = bam_cigar_op(r.cigar[k]);
    const int len = bam_cigar_oplen(r.cigar[k]);
    if (op == BAM_CMATCH || op == BAM_CEQUAL || op == BAM_CDIFF) {
      for (int i = 0; i < len; ++i) take(q + i, rpos + i);
      rpos += len, q += len;
    } else if (op == BAM_CINS) {
      for (int i = 0; i < len; ++i) take(q + i, rpos - 1);
      q += len;
    } else if (op == BAM_CSOFT_CLIP) {
      for (int i = 0; i < len; ++i) take(q + i, k == 0 ? rpos - len + i : rpos + i);
      q += len;
    } else if (op == BAM_CDEL || op == BAM_CREF_SKIP) {
      rpos += len;
    }
  }
  bases.clear();
  quals.clear();
  if (first < 0 || last - first + 1 < 20) return;
  bases = r.seq.substr(first, last - first + 1);
  quals.assign(r.qual.begin() + first, r.qual.begin() + last + 1);
  if (first_base) *first_base = first;
}

}  // namespace gatemap::caller::detail

#include "io/sort/duplicates.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <tuple>

#include "common/error.hpp"
#include "common/log.hpp"

namespace gatemap::io {

namespace {

constexpr char kPairTag[] = "zq";      // a local-use tag carrying the pair number through the sort
constexpr int kMinScoredQuality = 15;  // Picard's SUM_OF_BASE_QUALITIES counts bases >= 15

int clip_at(const uint32_t* cigar, uint32_t n, bool front) {
  int clip = 0;
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t c = cigar[front ? k : n - 1 - k];
    const int op = bam_cigar_op(c);
    if (op != BAM_CSOFT_CLIP && op != BAM_CHARD_CLIP) break;
    clip += static_cast<int>(bam_cigar_oplen(c));
  }
  return clip;
}

// The unclipped 5' end of an alignment at pos with this CIGAR (reference span ref_len).
int64_t unclipped_five_prime(int64_t pos, int64_t ref_len, bool reverse, const uint32_t* cigar, uint32_t n) {
  return reverse ? pos + ref_len - 1 + clip_at(cigar, n, false) : pos - clip_at(cigar, n, true);
}

int32_t quality_score(const bam1_t* rec) {
  const uint8_t* q = bam_get_qual(rec);
  if (rec->core.l_qseq == 0 || q[0] == 0xff) return 0;
  int64_t sum = 0;
  for (int i = 0; i < rec->core.l_qseq; ++i) sum += q[i] >= kMinScoredQuality ? q[i] : 0;
  return static_cast<int32_t>(std::min<int64_t>(sum, INT32_MAX / 2));
}

}  // namespace

// Reference (30 bits), coordinate + 2^32 (33 bits), strand. BAM's positions and spans are
// below 2^31, and a reference index of 2^30 would need a billion contigs: the clamps
// never bite on records a BAM can hold.
DuplicateMarker::End DuplicateMarker::End::of(int32_t tid, int64_t coord, bool reverse) {
  constexpr int64_t kOffset = int64_t{1} << 32;
  const uint64_t t = static_cast<uint64_t>(std::clamp<int32_t>(tid, 0, (1 << 30) - 1));
  const uint64_t c = static_cast<uint64_t>(std::clamp<int64_t>(coord, -kOffset, kOffset - 1) + kOffset);
  return {t << 34 | c << 1 | (reverse ? 1u : 0u)};
}

bool DuplicateMarker::PairOrder::operator()(const PairEnds& a, const PairEnds& b) const {
  return std::tie(a.library, a.first, a.second, a.place) < std::tie(b.library, b.first, b.second, b.place);
}

bool DuplicateMarker::FragmentOrder::operator()(const Fragment& a, const Fragment& b) const {
  return std::tie(a.library, a.end, a.place) < std::tie(b.library, b.end, b.place);
}

// A pair has one pair entry and two fragments: a third of the budget to pairs.
DuplicateMarker::DuplicateMarker(const sam_hdr_t* header, size_t budget_bytes, std::function<std::string()> temp_path)
    : pairs_(budget_bytes / 3, temp_path), fragments_(budget_bytes / 3 * 2, temp_path) {
  // Read groups of one library are one library; without LB, a read group is its own.
  std::map<std::string, int32_t> library_number;
  const int n = sam_hdr_count_lines(const_cast<sam_hdr_t*>(header), "RG");
  for (int i = 0; i < n; ++i) {
    kstring_t id = {0, 0, nullptr}, lb = {0, 0, nullptr};
    if (sam_hdr_find_tag_pos(const_cast<sam_hdr_t*>(header), "RG", i, "ID", &id) == 0) {
      const std::string library =
          sam_hdr_find_tag_pos(const_cast<sam_hdr_t*>(header), "RG", i, "LB", &lb) == 0 ? lb.s : "";
      const auto it = library_number.emplace(library, static_cast<int32_t>(library_number.size() + 1)).first;
      rg_library_[id.s] = it->second;
    }
    free(id.s);
    free(lb.s);
  }
}

int32_t DuplicateMarker::library_of(const bam1_t* rec) const {
  const uint8_t* rg = bam_aux_get(rec, "RG");
  if (!rg) return 0;
  const auto it = rg_library_.find(bam_aux2Z(rg));
  return it == rg_library_.end() ? 0 : it->second;
}

// Templates found in order, worked out on all threads (this runs on the mapper's writer
// thread beside the mapping), their entries added in input order.
void DuplicateMarker::collect(const std::vector<bam1_t*>& recs) {
  std::vector<size_t> starts;
  for (size_t begin = 0; begin < recs.size();) {
    starts.push_back(begin);
    size_t end = begin + 1;
    while (end < recs.size() && std::strcmp(bam_get_qname(recs[end]), bam_get_qname(recs[begin])) == 0) ++end;
    begin = end;
  }
  const size_t n = starts.size();
  starts.push_back(recs.size());
  if (duplicate_.size() + n >= UINT32_MAX) throw Error("duplicate marking: too many reads");
  const uint32_t first_pair = static_cast<uint32_t>(duplicate_.size());
  std::vector<TemplateEnds> ends(n);
  bool tagged = true;
#pragma omp parallel for schedule(static) reduction(&& : tagged)
  for (size_t t = 0; t < n; ++t) {
    tagged = template_ends(recs, starts[t], starts[t + 1], first_pair + static_cast<uint32_t>(t),
                           input_ + static_cast<int64_t>(starts[t]), ends[t]) &&
             tagged;
  }
  if (!tagged) throw std::bad_alloc();
  duplicate_.resize(duplicate_.size() + n, 0);
  input_ += static_cast<int64_t>(recs.size());
  for (const TemplateEnds& e : ends) {
    for (int i = 0; i < e.n_fragments; ++i) fragments_.push(e.fragments[i]);
    counts_.reads += e.n_fragments;
    if (!e.paired) continue;
    ++counts_.pairs;
    pairs_.push(e.pair);
  }
}

bool DuplicateMarker::template_ends(const std::vector<bam1_t*>& recs, size_t begin, size_t end, uint32_t pair,
                                    int64_t input, TemplateEnds& out) const {
  const bam1_t* primary[2] = {nullptr, nullptr};
  FilePlace place[2] = {};
  for (size_t i = begin; i < end; ++i, ++input) {
    bam1_t* b = recs[i];
    if (bam_aux_update_int(b, kPairTag, pair) != 0) return false;
    if (b->core.flag & (BAM_FSECONDARY | BAM_FSUPPLEMENTARY)) continue;
    const int mate = (b->core.flag & BAM_FREAD2) ? 1 : 0;
    primary[mate] = b;
    if (b->core.flag & BAM_FUNMAP) continue;  // (no place needed: not an end)
    place[mate] = {End::of(b->core.tid, b->core.pos + 1, bam_is_rev(b)), input};
  }
  End ends[2];
  bool mapped[2] = {false, false};
  for (int m = 0; m < 2; ++m) {
    const bam1_t* b = primary[m];
    if (!b || (b->core.flag & BAM_FUNMAP)) continue;
    mapped[m] = true;
    ends[m] = End::of(b->core.tid,
                      unclipped_five_prime(b->core.pos, bam_cigar2rlen(b->core.n_cigar, bam_get_cigar(b)),
                                           bam_is_rev(b), bam_get_cigar(b), b->core.n_cigar),
                      bam_is_rev(b));
  }
  const bool paired = mapped[0] && mapped[1];
  int32_t score[2] = {0, 0};
  for (int m = 0; m < 2; ++m) {
    if (!mapped[m]) continue;
    score[m] = quality_score(primary[m]);
    out.fragments[out.n_fragments++] = {library_of(primary[m]), score[m], ends[m], place[m], pair, paired,
                                        static_cast<uint8_t>(m)};
  }
  out.paired = paired;
  if (!paired) return true;
  const int first = ends[1] < ends[0] ? 1 : 0;
  out.pair = {library_of(primary[0]), score[0] + score[1], ends[first], ends[1 - first], place[first], pair};
  return true;
}

void DuplicateMarker::decide() {
  // Pairs: one group per library and both ends, in file order; the best score stays
  // (ties: the first in the file).
  std::vector<PairEnds> group;
  const auto decide_pairs = [&] {
    size_t best = 0;
    for (size_t i = 1; i < group.size(); ++i) best = group[i].score > group[best].score ? i : best;
    for (size_t i = 0; i < group.size(); ++i) {
      if (i == best) continue;
      duplicate_[group[i].pair] |= 3;
      ++counts_.duplicate_pairs;
    }
    group.clear();
  };
  pairs_.for_each_sorted([&](const PairEnds& p) {
    if (!group.empty() && !(p.library == group[0].library && p.first == group[0].first && p.second == group[0].second))
      decide_pairs();
    group.push_back(p);
  });
  decide_pairs();
  // Fragments: where a pair's end lies, every fragment is a duplicate; else the best
  // stays. The pairs are decided by now, so every read's mark is final after its group.
  std::vector<Fragment> ends;
  const auto decide_fragments = [&] {
    bool has_pair = false;
    size_t best = ends.size();
    for (size_t i = 0; i < ends.size(); ++i) {
      has_pair |= ends[i].paired;
      if (!ends[i].paired && (best == ends.size() || ends[i].score > ends[best].score)) best = i;
    }
    for (size_t i = 0; i < ends.size(); ++i) {
      const Fragment& f = ends[i];
      if (!f.paired) {
        ++counts_.fragments;
        if (has_pair || i != best) {
          duplicate_[f.pair] |= static_cast<uint8_t>(1 << f.mate);
          ++counts_.duplicate_fragments;
        }
      }
      counts_.duplicate_reads += (duplicate_[f.pair] >> f.mate) & 1;
    }
    ends.clear();
  };
  fragments_.for_each_sorted([&](const Fragment& f) {
    if (!ends.empty() && !(f.library == ends[0].library && f.end == ends[0].end)) decide_fragments();
    ends.push_back(f);
  });
  decide_fragments();
  if (pairs_.runs() + fragments_.runs() > 0) {
    log::info("map", "duplicate marking: read ends sorted in " + std::to_string(pairs_.runs() + fragments_.runs()) +
                         " runs on disk");
  }
}

void DuplicateMarker::mark(bam1_t* rec) const {
  uint8_t* tag = bam_aux_get(rec, kPairTag);
  if (!tag) return;
  const int64_t pair = bam_aux2i(tag);
  bam_aux_del(rec, tag);
  const int mate = (rec->core.flag & BAM_FREAD2) ? 1 : 0;
  if (pair >= 0 && pair < static_cast<int64_t>(duplicate_.size()) && ((duplicate_[pair] >> mate) & 1)) {
    rec->core.flag |= BAM_FDUP;
  }
}

}  // namespace gatemap::io

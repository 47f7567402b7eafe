#pragma once
// Test fixture for the GateKeeper filter: a random multi-contig reference with N runs,
// and (read, candidate) pairs with known planted edits. Shared by the CPU and GPU tests.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "common/packed_seq.hpp"
#include "mapper/filter/gatekeeper.hpp"

namespace gatemap::test {

struct FilterFixture {
  std::string text;  // the whole reference, contigs concatenated (N kept)
  PackedSeq packed;
  std::vector<int64_t> contig_begin, contig_end, n_begin, n_end;
  mapper::filter::FilterReference ref;

  FilterFixture(uint64_t seed, int64_t length, int contigs) {
    std::mt19937_64 rng(seed);
    static const char kBases[] = "ACGT";
    text.resize(length);
    for (auto& c : text) c = kBases[rng() & 3];
    // Segmental copies so candidates also land on near-identical sequence.
    for (int i = 0; i < 50; ++i) {
      const int64_t from = rng() % (length - 2000), to = rng() % (length - 2000);
      std::copy(text.begin() + from, text.begin() + from + 1000, text.begin() + to);
      for (int m = 0; m < 20; ++m) text[to + rng() % 1000] = kBases[rng() & 3];
    }
    // A few N runs.
    for (int i = 0; i < 5; ++i) {
      const int64_t at = rng() % (length - 500);
      std::fill(text.begin() + at, text.begin() + at + 100, 'N');
    }
    for (int c = 0; c < contigs; ++c) {
      contig_begin.push_back(length * c / contigs);
      contig_end.push_back(length * (c + 1) / contigs);
    }
    for (int64_t i = 0; i < length; ++i) {
      if (text[i] == 'N') {
        if (!n_end.empty() && n_end.back() == i) {
          n_end.back() = i + 1;
        } else {
          n_begin.push_back(i);
          n_end.push_back(i + 1);
        }
      }
      packed.push_back(text[i] == 'N' ? 0 : base_code(text[i]));
    }
    packed.hi.push_back(0);  // a spare word so 32-bit views of the tail are in range
    packed.lo.push_back(0);
    ref.hi = packed.hi32();
    ref.lo = packed.lo32();
    ref.words = static_cast<int64_t>(packed.words32());
    ref.contig_begin = contig_begin.data();
    ref.contig_end = contig_end.data();
    ref.n_contigs = contigs;
    ref.n_begin = n_begin.data();
    ref.n_end = n_end.data();
    ref.n_runs = static_cast<int64_t>(n_begin.size());
  }

  uint32_t contig_of(int64_t pos) const {
    uint32_t c = 0;
    while (c + 1 < contig_begin.size() && contig_begin[c + 1] <= pos) ++c;
    return c;
  }
};

// Plants `edits` random substitutions/insertions/deletions into s.
inline std::string mutate(std::string s, int edits, std::mt19937_64& rng) {
  static const char kBases[] = "ACGT";
  for (int i = 0; i < edits && !s.empty(); ++i) {
    const size_t at = rng() % s.size();
    switch (rng() % 3) {
      case 0: s[at] = kBases[(base_code(s[at]) + 1 + rng() % 3) & 3]; break;
      case 1: s.insert(s.begin() + at, kBases[rng() & 3]); break;
      default: s.erase(s.begin() + at);
    }
  }
  return s;
}

// A batch of pairs: reads cut near `pos`, planted edits, candidate diagonals jittered
// (near misses), plus random unrelated locations.
struct PairSet {
  std::vector<std::string> reads;
  mapper::filter::FilterReads packed;
  mapper::filter::FilterCandidates cand;
};

inline PairSet make_pairs(const FilterFixture& fx, int read_len, int e, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  PairSet ps;
  const int64_t length = static_cast<int64_t>(fx.text.size());
  for (size_t i = 0; i < n; ++i) {
    const int64_t pos = rng() % (length - read_len - 20) + 10;
    std::string r = fx.text.substr(pos, read_len);
    r = mutate(r, static_cast<int>(rng() % (e + 4)), rng);
    if (r.size() > static_cast<size_t>(read_len)) r.resize(read_len);
    while (r.size() < static_cast<size_t>(read_len)) r += "ACGT"[rng() & 3];
    const bool reverse = rng() & 1;
    if (reverse) r = reverse_complement(r);
    ps.reads.push_back(r);
    const uint32_t read_id = static_cast<uint32_t>(i);
    const int64_t spread = std::min(e, 3);  // near misses stay inside the band
    const int64_t jitter = static_cast<int64_t>(rng() % (2 * spread + 1)) - spread;
    const int64_t cand_pos = (rng() % 4 == 0) ? static_cast<int64_t>(rng() % length) : pos + jitter;
    ps.cand.push(read_id, reverse ? 1 : 0, cand_pos);
  }
  std::vector<std::string_view> views(ps.reads.begin(), ps.reads.end());
  mapper::filter::pack_reads(views, ps.packed, true);
  return ps;
}

}  // namespace gatemap::test

// The corrector's CPU twin, the spectrum containers and the batch helpers.
#include <algorithm>
#include <cmath>
#include <vector>

#include "common/dna.hpp"
#include "common/error.hpp"
#include "common/parallel.hpp"
#include "correct/kmer_correct.hpp"
#include "correct/kmer_correct_core.hpp"

namespace gatemap::correct {

namespace {

uint64_t pow2_at_least(uint64_t n) {
  uint64_t p = 64;
  while (p < n) p <<= 1;
  return p;
}

detail::SpectrumView view_of(const KmerSpectrum& s) {
  return {s.words.data(), s.mask, s.hashes, s.k, s.kind == KmerSpectrum::Kind::bloom};
}

// The read could not be made solid: keep only the corrections that no remaining weak
// window covers (those away from whatever could not be fixed, e.g. an indel), put the
// rest back. Corrected when something was kept.
CorrectStatus settle(const detail::SpectrumView& s, uint8_t* codes, int L, const std::vector<uint8_t>& original) {
  const int k = s.k;
  std::vector<uint8_t> covered(static_cast<size_t>(L), 0);
  for (int i = 0; i + k <= L; ++i) {
    uint64_t f, r;
    int n_at;
    const int n = detail::window_kmers_n(codes, i, k, f, r, n_at);
    if (n == 1 || (n == 0 && !detail::spectrum_contains(s, detail::canonical(f, r)))) {
      std::fill(covered.begin() + i, covered.begin() + i + k, 1);
    }
  }
  bool kept = false;
  for (int j = 0; j < L; ++j) {
    if (codes[j] == original[j]) continue;
    if (covered[j]) {
      codes[j] = original[j];
    } else {
      kept = true;
    }
  }
  return kept ? CorrectStatus::corrected : CorrectStatus::uncorrectable;
}

// One read, in place. votes holds 4 counters per base.
CorrectStatus correct_one(const detail::SpectrumView& s, const CorrectOptions& opt, uint8_t* codes, int L,
                          std::vector<uint32_t>& votes, std::vector<uint8_t>& original) {
  const int k = s.k;
  if (L > kCorrectMaxReadLen) return CorrectStatus::too_long;
  if (L < k) return CorrectStatus::clean;
  original.assign(codes, codes + L);
  votes.assign(static_cast<size_t>(L) * 4, 0);
  std::vector<int> weak;
  for (int round = 0;; ++round) {
    weak.clear();
    for (int i = 0; i + k <= L; ++i) {
      uint64_t f, r;
      int n_at;
      const int n = detail::window_kmers_n(codes, i, k, f, r, n_at);
      if (n == 1 || (n == 0 && !detail::spectrum_contains(s, detail::canonical(f, r)))) weak.push_back(i);
    }
    if (weak.empty()) return round == 0 ? CorrectStatus::clean : CorrectStatus::corrected;
    // Each substitution makes at most k windows solid: more weak windows than the
    // remaining corrections can fix means the read cannot be made solid.
    if (static_cast<int>(weak.size()) > k * (opt.max_corrections - round)) break;
    std::fill(votes.begin(), votes.end(), 0);
    for (int i : weak) {
      uint64_t f, r;
      int n_at;
      const int n = detail::window_kmers_n(codes, i, k, f, r, n_at);
      for (int d = n ? n_at : 0; d < (n ? n_at + 1 : k); ++d) {  // a window with an N can only be fixed there
        const uint8_t old_b = codes[i + d] > 3 ? 0 : codes[i + d];
        for (uint8_t b = 0; b < 4; ++b) {
          if ((b != old_b || n) && detail::spectrum_contains(s, detail::substituted(f, r, k, d, old_b, b))) {
            ++votes[static_cast<size_t>(i + d) * 4 + b];
          }
        }
      }
    }
    uint32_t best = 0;
    int best_at = -1;
    for (int v = 0; v < L * 4; ++v) {
      if (votes[v] > best) best = votes[v], best_at = v;
    }
    if (best == 0) break;  // no substitution makes anything solid
    int n_best = 0;        // bases at the chosen position holding the best vote
    for (int b = 0; b < 4; ++b) n_best += votes[static_cast<size_t>(best_at / 4) * 4 + b] == best;
    if (n_best > 1) break;  // ambiguous
    codes[best_at / 4] = static_cast<uint8_t>(best_at % 4);
  }
  return settle(s, codes, L, original);
}

}  // namespace

KmerSpectrum KmerSpectrum::make_bloom(int k, uint64_t n, double fpr) {
  if (k < 1 || k > kMaxK) throw UsageError("k must be between 1 and " + std::to_string(kMaxK));
  if (!(fpr > 0 && fpr < 1)) throw UsageError("Bloom filter false-positive rate must lie in (0, 1)");
  KmerSpectrum s;
  s.k = k;
  s.kind = Kind::bloom;
  const double ln2 = std::log(2.0);
  const double bits = std::max(1.0, static_cast<double>(n)) * -std::log(fpr) / (ln2 * ln2);
  const uint64_t m = pow2_at_least(static_cast<uint64_t>(bits));
  // Rounding m up lowers the rate; the hash count follows the real bits per k-mer.
  s.hashes = std::clamp(static_cast<int>(std::lround(static_cast<double>(m) / std::max<uint64_t>(1, n) * ln2)), 1, 16);
  s.words.assign(m / 64, 0);
  s.mask = m - 1;
  return s;
}

KmerSpectrum KmerSpectrum::make_exact(int k, uint64_t n) {
  if (k < 1 || k > kMaxK) throw UsageError("k must be between 1 and " + std::to_string(kMaxK));
  KmerSpectrum s;
  s.k = k;
  s.kind = Kind::exact;
  const uint64_t slots = pow2_at_least(n + n / 2 + 1);  // load at most 2/3
  s.words.assign(slots, kEmptyKmer);
  s.mask = slots - 1;
  return s;
}

void KmerSpectrum::insert(uint64_t x) {
  ++n_kmers;
  if (kind == Kind::bloom) {
    const uint64_t h1 = detail::bloom_h1(x), h2 = detail::bloom_h2(x);
    for (int i = 0; i < hashes; ++i) {
      const uint64_t bit = (h1 + static_cast<uint64_t>(i) * h2) & mask;
      words[bit >> 6] |= 1ULL << (bit & 63);
    }
    return;
  }
  for (uint64_t slot = detail::mix64(x) & mask;; slot = (slot + 1) & mask) {
    if (words[slot] == x) {
      --n_kmers;
      return;
    }
    if (words[slot] == kEmptyKmer) {
      if (n_kmers * 3 > (mask + 1) * 2) throw Error("exact k-mer set over its capacity");
      words[slot] = x;
      return;
    }
  }
}

bool KmerSpectrum::contains(uint64_t x) const { return detail::spectrum_contains(view_of(*this), x); }

void CorrectBatch::add(const std::string& seq) {
  offset.push_back(static_cast<int64_t>(codes.size()));
  len.push_back(static_cast<int32_t>(seq.size()));
  for (char c : seq) codes.push_back(base_code(c));  // N and IUPAC: 4
}

std::string CorrectBatch::sequence(size_t i) const {
  std::string s(static_cast<size_t>(len[i]), 'N');
  for (int32_t j = 0; j < len[i]; ++j) s[j] = "ACGTN"[codes[offset[i] + j]];
  return s;
}

void correct_reads_cpu(const KmerSpectrum& spectrum, const CorrectOptions& opt, CorrectBatch& batch) {
  const detail::SpectrumView view = view_of(spectrum);
  batch.status.assign(batch.size(), 0);
  batch.changed.assign(batch.size(), 0);
  ParallelErrors errors;
#pragma omp parallel
  {
    std::vector<uint32_t> votes;
    std::vector<uint8_t> original;
#pragma omp for schedule(dynamic, 256)
    for (size_t r = 0; r < batch.size(); ++r) {
      errors.run([&] {
        int n_changed = 0;
        uint8_t* codes = batch.codes.data() + batch.offset[r];
        const CorrectStatus st = correct_one(view, opt, codes, batch.len[r], votes, original);
        if (st == CorrectStatus::corrected) {
          for (int j = 0; j < batch.len[r]; ++j) n_changed += codes[j] != original[j];
        }
        batch.status[r] = static_cast<uint8_t>(st);
        batch.changed[r] = static_cast<uint8_t>(std::min(n_changed, 255));
      });
    }
  }
  errors.rethrow();
}

}  // namespace gatemap::correct

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

// Expected false-positive rate of a blocked Bloom filter with this many bits per key
// and hashes: block loads are Poisson, each block an ordinary Bloom filter.
double blocked_bloom_fpr(double bits_per_key, int hashes) {
  const double B = static_cast<double>(detail::kBloomBlockBits), mean = B / bits_per_key;
  double rate = 0;
  for (int load = 0; load < 8 * mean + 64; ++load) {
    const double p = std::exp(load * std::log(mean) - mean - std::lgamma(load + 1.0));  // P(load)
    rate += p * std::pow(1 - std::pow(1 - 1 / B, static_cast<double>(hashes) * load), hashes);
  }
  return rate;
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

// A corrected read with the rewrites of an indel near its ends undone: still corrected
// when a change is left, else uncorrectable (its ends keep their weak windows).
CorrectStatus without_indel_shifts(uint8_t* codes, const std::vector<uint8_t>& original, int L, int k) {
  if (!detail::undo_indel_shifts(codes, original.data(), L, k)) return CorrectStatus::corrected;
  return std::equal(codes, codes + L, original.begin()) ? CorrectStatus::uncorrectable : CorrectStatus::corrected;
}

// A weak window's k-mers, kept for the votes.
struct WeakWindow {
  uint64_t fwd, rc;
  int n, n_at;  // Ns in the window (0 or 1) and where
};

// One thread's buffers, reused from read to read.
struct ReadScratch {
  std::vector<uint8_t> original;    // the read as it came
  std::vector<int> weak_at;         // per window start: index in windows, or -1
  std::vector<WeakWindow> windows;  // this round's weak windows
  std::vector<WeakWindow> all;      // this round's windows, weak or not
  std::vector<int> cover;           // per position: weak windows that could vote there
};

// The votes of the substitutions at position p: votes[b] = weak windows that base b
// there makes solid (a window with an N votes only where its N is).
void votes_at(const detail::SpectrumView& s, const uint8_t* codes, int L, int p, const std::vector<int>& weak_at,
              const std::vector<WeakWindow>& windows, uint32_t votes[4]) {
  const int k = s.k;
  votes[0] = votes[1] = votes[2] = votes[3] = 0;
  // The substituted k-mers first, their memory asked for all at once, then the lookups:
  // the cache misses overlap instead of coming one after another.
  uint64_t kmers[4 * kMaxK];
  uint8_t base[4 * kMaxK];
  int n = 0;
  for (int i = std::max(0, p - k + 1); i <= std::min(p, L - k); ++i) {
    if (weak_at[i] < 0) continue;
    const WeakWindow& w = windows[weak_at[i]];
    const int d = p - i;
    if (w.n && d != w.n_at) continue;
    const uint8_t old_b = codes[p] > 3 ? 0 : codes[p];
    for (uint8_t b = 0; b < 4; ++b) {
      if (b == old_b && !w.n) continue;
      kmers[n] = detail::substituted(w.fwd, w.rc, k, d, old_b, b);
      base[n] = b;
      detail::spectrum_prefetch(s, kmers[n++]);
    }
  }
  for (int j = 0; j < n; ++j) votes[base[j]] += detail::spectrum_contains(s, kmers[j]);
}

// One read, in place. Each round the substitution with the most votes (weak windows it
// makes solid; ties: the first position and base) is made, until every window is solid.
// A position's votes cannot exceed the weak windows that could vote there (its cover),
// so positions are scored from the highest cover down and scoring stops below the best
// vote: the same choice as scoring every position, with a fraction of the lookups.
CorrectStatus correct_one(const detail::SpectrumView& s, const CorrectOptions& opt, uint8_t* codes, int L,
                          ReadScratch& scratch) {
  const int k = s.k;
  if (L > kCorrectMaxReadLen) return CorrectStatus::too_long;
  if (L < k) return CorrectStatus::clean;
  std::vector<uint8_t>& original = scratch.original;
  std::vector<int>& weak_at = scratch.weak_at;
  std::vector<WeakWindow>& windows = scratch.windows;
  std::vector<WeakWindow>& all = scratch.all;
  std::vector<int>& cover = scratch.cover;
  original.assign(codes, codes + L);
  cover.resize(static_cast<size_t>(L));
  for (int round = 0;; ++round) {
    windows.clear();
    weak_at.assign(static_cast<size_t>(L), -1);
    // The windows' k-mers rolled along the read (as window_kmers_n gives them: N read as
    // A; windows with two Ns are never weak).
    const uint64_t kmask = k == 32 ? ~uint64_t(0) : (uint64_t(1) << (2 * k)) - 1;
    uint64_t fwd = 0, rc = 0;
    int last_n = -1, prev_n = -1;  // positions of the last two Ns
    // All windows first, each lookup's memory asked for as it is rolled, then the
    // lookups: their cache misses overlap.
    all.clear();
    for (int j = 0; j < L; ++j) {
      uint8_t c = codes[j];
      if (c > 3) prev_n = last_n, last_n = j, c = 0;
      fwd = ((fwd << 2) | c) & kmask;
      rc = (rc >> 2) | (static_cast<uint64_t>(3 - c) << (2 * (k - 1)));
      const int i = j - k + 1;
      if (i < 0) continue;
      all.push_back({fwd, rc, (last_n >= i) + (prev_n >= i), last_n - i});
      if (all.back().n == 0) detail::spectrum_prefetch(s, detail::canonical(fwd, rc));
    }
    for (int i = 0; i < static_cast<int>(all.size()); ++i) {
      const WeakWindow& w = all[i];
      if (w.n == 1 || (w.n == 0 && !detail::spectrum_contains(s, detail::canonical(w.fwd, w.rc)))) {
        weak_at[i] = static_cast<int>(windows.size());
        windows.push_back(w);
      }
    }
    if (windows.empty()) return round == 0 ? CorrectStatus::clean : without_indel_shifts(codes, original, L, k);
    // Each substitution makes at most k windows solid: more weak windows than the
    // remaining corrections can fix means the read cannot be made solid.
    if (static_cast<int>(windows.size()) > k * (opt.max_corrections - round)) break;
    std::fill(cover.begin(), cover.end(), 0);
    int max_cover = 0;
    for (int i = 0; i + k <= L; ++i) {
      if (weak_at[i] < 0) continue;
      const WeakWindow& w = windows[weak_at[i]];
      for (int d = w.n ? w.n_at : 0; d < (w.n ? w.n_at + 1 : k); ++d) max_cover = std::max(max_cover, ++cover[i + d]);
    }
    uint32_t best = 0, best_votes[4] = {0, 0, 0, 0};
    int best_at = -1;  // position * 4 + base
    for (int c = max_cover; c > 0 && static_cast<uint32_t>(c) >= best; --c) {
      for (int p = 0; p < L; ++p) {
        if (cover[p] != c) continue;
        uint32_t votes[4];
        votes_at(s, codes, L, p, weak_at, windows, votes);
        for (int b = 0; b < 4; ++b) {
          if (votes[b] > best || (votes[b] == best && best > 0 && p * 4 + b < best_at)) {
            best = votes[b], best_at = p * 4 + b;
            std::copy(votes, votes + 4, best_votes);
          }
        }
      }
    }
    if (best == 0) break;  // no substitution makes anything solid
    int n_best = 0;        // bases at the chosen position holding the best vote
    for (int b = 0; b < 4; ++b) n_best += best_votes[b] == best;
    if (n_best > 1) break;  // ambiguous
    codes[best_at / 4] = static_cast<uint8_t>(best_at % 4);
  }
  const CorrectStatus settled = settle(s, codes, L, original);
  return settled == CorrectStatus::corrected ? without_indel_shifts(codes, original, L, k) : settled;
}

}  // namespace

KmerSpectrum KmerSpectrum::make_bloom(int k, uint64_t n, double fpr) {
  if (k < 1 || k > kMaxK) throw UsageError("k must be between 1 and " + std::to_string(kMaxK));
  if (!(fpr > 0 && fpr < 1)) throw UsageError("Bloom filter false-positive rate must lie in (0, 1)");
  KmerSpectrum s;
  s.k = k;
  s.kind = Kind::bloom;
  const double ln2 = std::log(2.0);
  const double keys = std::max(1.0, static_cast<double>(n));
  const double bits = keys * -std::log(fpr) / (ln2 * ln2);  // an unblocked filter's size
  uint64_t m = std::max(detail::kBloomBlockBits, pow2_at_least(static_cast<uint64_t>(bits)));
  // Blocking costs some accuracy: the size doubles until the best hash count meets fpr.
  for (;;) {
    double best = 2;
    for (int h = 1; h <= 16; ++h) {
      const double rate = blocked_bloom_fpr(static_cast<double>(m) / keys, h);
      if (rate < best) best = rate, s.hashes = h;
    }
    if (best <= fpr) break;
    m *= 2;
  }
  s.words.assign(m / 64, 0);
  s.mask = m - 1;
  return s;
}

namespace {

// Slots for n k-mers at a load of at most 2/3.
uint64_t exact_slots(uint64_t n) { return pow2_at_least(n + n / 2 + 1); }

// The bits a compact set of this many slots keeps of a 2k-bit k-mer, or -1 where the
// distances would get too few bits (or the slots outnumber the k-mers).
int compact_rem_bits(int k, uint64_t slots) {
  int slot_bits = 0;
  while ((uint64_t(1) << slot_bits) < slots) ++slot_bits;
  const int rem_bits = 2 * k - slot_bits;
  return rem_bits >= 0 && 32 - rem_bits >= detail::kCompactMinDistBits ? rem_bits : -1;
}

}  // namespace

size_t KmerSpectrum::exact_bytes(int k, uint64_t n, bool compact) {
  const uint64_t slots = exact_slots(n);
  return slots * (compact && compact_rem_bits(k, slots) >= 0 ? sizeof(uint32_t) : sizeof(uint64_t));
}

KmerSpectrum KmerSpectrum::make_exact(int k, uint64_t n, bool compact) {
  if (k < 1 || k > kMaxK) throw UsageError("k must be between 1 and " + std::to_string(kMaxK));
  KmerSpectrum s;
  s.k = k;
  const uint64_t slots = exact_slots(n);
  const int rem_bits = compact ? compact_rem_bits(k, slots) : -1;
  s.kind = rem_bits >= 0 ? Kind::compact : Kind::exact;
  s.rem_bits = std::max(rem_bits, 0);
  s.words.assign(rem_bits >= 0 ? slots / 2 : slots, kEmptyKmer);  // compact: two empty slots a word
  s.mask = slots - 1;
  return s;
}

SlotClaim KmerSpectrum::claim_slot(uint64_t x) {
  return kind == Kind::compact ? detail::compact_claim(words.data(), mask, rem_bits, k, x)
                               : detail::exact_claim(words.data(), mask, x);
}

void KmerSpectrum::widen() {
  if (kind != Kind::compact) return;
  std::vector<uint64_t> held;
  held.reserve(n_kmers);
  for (uint64_t i = 0; i <= mask; ++i) {
    const uint32_t v = detail::compact_slot(words.data(), i);
    if (v == detail::kEmptySlot32) continue;
    const uint64_t home = (i - (v >> rem_bits)) & mask;
    held.push_back(detail::unpermute_bits(home << rem_bits | (v & detail::low_bits_mask(rem_bits)), 2 * k));
  }
  kind = Kind::exact;
  rem_bits = 0;
  words.assign(mask + 1, kEmptyKmer);  // as many slots, whole
  for (uint64_t x : held) claim_slot(x);
}

uint64_t KmerSpectrum::slots_filled() const {
  uint64_t filled = 0;
  for (uint64_t i = 0; kind != Kind::bloom && i <= mask; ++i) {
    filled += kind == Kind::compact ? detail::compact_slot(words.data(), i) != detail::kEmptySlot32
                                    : words[i] != kEmptyKmer;
  }
  return filled;
}

// An exact set holds at most 2/3 of its slots (make_exact sizes it so): beyond, the
// caller's count was wrong.
void KmerSpectrum::check_capacity() const {
  if (kind != Kind::bloom && n_kmers * 3 > (mask + 1) * 2) throw Error("exact k-mer set over its capacity");
}

void KmerSpectrum::insert(uint64_t x) {
  if (kind == Kind::bloom) {
    set_bloom_bits_atomic(x);
    ++n_kmers;
    return;
  }
  SlotClaim c = claim_slot(x);
  if (c == SlotClaim::too_far) {
    widen();
    c = claim_slot(x);
  }
  n_kmers += c == SlotClaim::added;
  check_capacity();
}

// A compact set that cannot place a k-mer within its distances (k-mers crowding one
// place: never by chance at these loads) is widened, and the k-mer placed there.
void KmerSpectrum::insert_many(const std::vector<uint64_t>& xs) {
  uint64_t added = 0;
  if (kind == Kind::bloom) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < xs.size(); ++i) set_bloom_bits_atomic(xs[i]);
    added = xs.size();
  } else {
    std::vector<uint64_t> too_far;
#pragma omp parallel for schedule(static) reduction(+ : added)
    for (size_t i = 0; i < xs.size(); ++i) {
      const SlotClaim c = claim_slot(xs[i]);
      added += c == SlotClaim::added;
      if (c == SlotClaim::too_far) {
#pragma omp critical(spectrum_too_far)
        too_far.push_back(xs[i]);
      }
    }
    if (!too_far.empty()) {
      n_kmers += added;
      added = 0;
      widen();
      for (uint64_t x : too_far) added += claim_slot(x) == SlotClaim::added;
    }
  }
  n_kmers += added;
  check_capacity();
}

void KmerSpectrum::set_bloom_bits_atomic(uint64_t x) {
  for (int j = 0; j < hashes; ++j) {
    const uint64_t bit = detail::bloom_bit(x, j, mask);
    __atomic_fetch_or(&words[bit >> 6], uint64_t(1) << (bit & 63), __ATOMIC_RELAXED);
  }
}

bool KmerSpectrum::contains(uint64_t x) const { return detail::spectrum_contains(detail::view_of(*this), x); }

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
  const detail::SpectrumView view = detail::view_of(spectrum);
  batch.status.assign(batch.size(), 0);
  batch.changed.assign(batch.size(), 0);
  ParallelErrors errors;
#pragma omp parallel
  {
    ReadScratch scratch;
#pragma omp for schedule(dynamic, 256)
    for (size_t r = 0; r < batch.size(); ++r) {
      errors.run([&] {
        int n_changed = 0;
        uint8_t* codes = batch.codes.data() + batch.offset[r];
        const CorrectStatus st = correct_one(view, opt, codes, batch.len[r], scratch);
        if (st == CorrectStatus::corrected) {
          for (int j = 0; j < batch.len[r]; ++j) n_changed += codes[j] != scratch.original[j];
        }
        batch.status[r] = static_cast<uint8_t>(st);
        batch.changed[r] = static_cast<uint8_t>(std::min(n_changed, 255));
      });
    }
  }
  errors.rethrow();
}

}  // namespace gatemap::correct

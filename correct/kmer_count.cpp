#include "correct/kmer_count.hpp"

#include <omp.h>

#include <algorithm>

#include "common/dna.hpp"
#include "common/error.hpp"
#include "correct/kmer_correct_core.hpp"

namespace gatemap::correct {

namespace {
constexpr int kShardBits = 10;
constexpr size_t kShards = size_t(1) << kShardBits;
constexpr size_t kMinSlots = 64;  // per shard: an empty table takes 768 KiB

}  // namespace

KmerCounter::KmerCounter(int k, size_t budget_bytes) : k_(k), budget_(budget_bytes), shards_(kShards) {
  reset(KmerPart{});
}

void KmerCounter::reset(KmerPart part) {
  part_ = part;
  total_ = 0;
  for (Shard& s : shards_) {
    s.keys.assign(kMinSlots, kEmpty);
    s.keys.shrink_to_fit();
    s.counts.assign(kMinSlots, 0);
    s.counts.shrink_to_fit();
    s.used = 0;
  }
}

size_t KmerCounter::bytes() const {
  size_t n = 0;
  for (const Shard& s : shards_) n += s.keys.capacity() * sizeof(uint64_t) + s.counts.capacity() * sizeof(uint32_t);
  return n;
}

void KmerCounter::narrow() {
  part_ = part_.child(0);
#pragma omp parallel for schedule(dynamic, 4)
  for (size_t sh = 0; sh < kShards; ++sh) {
    Shard& s = shards_[sh];
    Shard kept;
    size_t slots = kMinSlots;
    while (slots * 7 < s.used * 10) slots *= 2;  // half the keys go: room without growing soon
    kept.keys.assign(slots, kEmpty);
    kept.counts.assign(slots, 0);
    const uint64_t mask = slots - 1;
    for (size_t i = 0; i < s.keys.size(); ++i) {
      if (s.keys[i] == kEmpty || !part_.holds(s.keys[i])) continue;
      uint64_t slot = detail::mix64(s.keys[i]) & mask;
      while (kept.keys[slot] != kEmpty) slot = (slot + 1) & mask;
      kept.keys[slot] = s.keys[i];
      kept.counts[slot] = s.counts[i];
      ++kept.used;
    }
    s = std::move(kept);
  }
}

void KmerCounter::add(const std::vector<io::Read>& reads, std::vector<KmerPart>& dropped) {
  add(reads);
  // Halve the part until the shards fit, or stop when they are as small as they get.
  for (size_t before = bytes(); budget_ && before > budget_;) {
    if (part_.depth == KmerPart::kMaxDepth) throw Error("k-mer counting: the memory budget is too small");
    dropped.push_back(part_.child(1));
    narrow();
    const size_t after = bytes();
    if (after >= before) break;
    before = after;
  }
}

void KmerCounter::for_each_counted(uint32_t threshold, const std::function<void(uint64_t, uint32_t)>& fn) const {
  for (const Shard& s : shards_) {
    for (size_t i = 0; i < s.keys.size(); ++i) {
      if (s.keys[i] != kEmpty && s.counts[i] >= threshold) fn(s.keys[i], s.counts[i]);
    }
  }
}

void KmerCounter::grow(Shard& s) {
  Shard bigger;
  bigger.keys.assign(s.keys.size() * 2, kEmpty);
  bigger.counts.assign(s.keys.size() * 2, 0);
  const uint64_t mask = bigger.keys.size() - 1;
  for (size_t i = 0; i < s.keys.size(); ++i) {
    if (s.keys[i] == kEmpty) continue;
    uint64_t slot = detail::mix64(s.keys[i]) & mask;
    while (bigger.keys[slot] != kEmpty) slot = (slot + 1) & mask;
    bigger.keys[slot] = s.keys[i];
    bigger.counts[slot] = s.counts[i];
  }
  bigger.used = s.used;
  s = std::move(bigger);
}

void KmerCounter::insert(Shard& s, uint64_t key) {
  if ((s.used + 1) * 10 > s.keys.size() * 7) grow(s);
  const uint64_t mask = s.keys.size() - 1;
  for (uint64_t slot = detail::mix64(key) & mask;; slot = (slot + 1) & mask) {
    if (s.keys[slot] == key) {
      if (s.counts[slot] != UINT32_MAX) ++s.counts[slot];
      return;
    }
    if (s.keys[slot] == kEmpty) {
      s.keys[slot] = key;
      s.counts[slot] = 1;
      ++s.used;
      return;
    }
  }
}

void KmerCounter::add(const std::vector<io::Read>& reads) {
  const int k = k_;
  std::vector<size_t> start(reads.size() + 1, 0);
  for (size_t r = 0; r < reads.size(); ++r) {
    const size_t L = reads[r].seq.size();
    start[r + 1] = start[r] + (L >= static_cast<size_t>(k) ? L - k + 1 : 0);
  }
  kmers_.resize(start.back());
  shard_of_.resize(start.back());
  const uint64_t kmask = k == 32 ? ~uint64_t(0) : (uint64_t(1) << (2 * k)) - 1;
  const KmerPart part = part_;
  uint64_t seen = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : seen)
  for (size_t r = 0; r < reads.size(); ++r) {
    const std::string& s = reads[r].seq;
    uint64_t fwd = 0, rc = 0;
    int valid = 0;  // bases since the last N
    for (size_t i = 0; i < s.size(); ++i) {
      const int c = base_code(s[i]) < 4 ? base_code(s[i]) : -1;
      if (c < 0) {
        valid = 0;
      } else {
        fwd = ((fwd << 2) | static_cast<uint64_t>(c)) & kmask;
        rc = (rc >> 2) | (static_cast<uint64_t>(3 - c) << (2 * (k - 1)));
        ++valid;
      }
      if (i + 1 >= static_cast<size_t>(k)) {
        const size_t at = start[r] + i + 1 - k;
        uint64_t x = valid >= k ? detail::canonical(fwd, rc) : kEmpty;
        if (x != kEmpty) ++seen;
        if (!part.holds(x)) x = kEmpty;
        kmers_[at] = x;
        shard_of_[at] = static_cast<uint16_t>(detail::mix64(x ^ 0x5bd1e995ULL) >> (64 - kShardBits));
      }
    }
  }
  // Group the k-mers by shard (a parallel counting sort), then each shard is filled by
  // one thread: no locks, and each k-mer is read once.
  const size_t n = kmers_.size();
  const int T = omp_get_max_threads();
  std::vector<size_t> offset(static_cast<size_t>(T) * kShards + 1, 0);
#pragma omp parallel num_threads(T)
  {
    const size_t t = static_cast<size_t>(omp_get_thread_num());
    const size_t lo = n * t / T, hi = n * (t + 1) / T;
    for (size_t i = lo; i < hi; ++i) {
      if (kmers_[i] != kEmpty) ++offset[shard_of_[i] * static_cast<size_t>(T) + t + 1];
    }
#pragma omp barrier
#pragma omp single
    {
      for (size_t i = 1; i < offset.size(); ++i) offset[i] += offset[i - 1];
      sorted_.resize(offset.back());
    }  // implicit barrier
    std::vector<size_t> next(kShards);  // where this thread's k-mers of each shard go
    for (size_t sh = 0; sh < kShards; ++sh) next[sh] = offset[sh * T + t];
    for (size_t i = lo; i < hi; ++i) {
      if (kmers_[i] != kEmpty) sorted_[next[shard_of_[i]]++] = kmers_[i];
    }
#pragma omp barrier
#pragma omp for schedule(dynamic, 4)
    for (size_t sh = 0; sh < kShards; ++sh) {
      for (size_t i = offset[sh * T]; i < offset[(sh + 1) * T]; ++i) insert(shards_[sh], sorted_[i]);
    }
  }
  total_ += seen;
}

void KmerCounter::insert_solid(uint32_t threshold, KmerSpectrum& spectrum) const {
  if (spectrum.kind != KmerSpectrum::Kind::bloom) return CountTable::insert_solid(threshold, spectrum);
  uint64_t n = 0;
#pragma omp parallel for schedule(dynamic, 4) reduction(+ : n)
  for (size_t sh = 0; sh < kShards; ++sh) {
    const Shard& s = shards_[sh];
    for (size_t i = 0; i < s.keys.size(); ++i) {
      if (s.keys[i] == kEmpty || s.counts[i] < threshold) continue;
      ++n;
      spectrum.set_bloom_bits_atomic(s.keys[i]);
    }
  }
  spectrum.n_kmers += n;
}

uint64_t KmerCounter::distinct() const {
  uint64_t n = 0;
  for (const Shard& s : shards_) n += s.used;
  return n;
}

uint64_t KmerCounter::count(uint64_t key) const {
  const Shard& s = shards_[detail::mix64(key ^ 0x5bd1e995ULL) >> (64 - kShardBits)];
  const uint64_t mask = s.keys.size() - 1;
  for (uint64_t slot = detail::mix64(key) & mask;; slot = (slot + 1) & mask) {
    if (s.keys[slot] == key) return s.counts[slot];
    if (s.keys[slot] == kEmpty) return 0;
  }
}

std::vector<uint64_t> KmerCounter::histogram(uint32_t max_count) const {
  std::vector<uint64_t> h(static_cast<size_t>(max_count) + 1, 0);
  for (const Shard& s : shards_) {
    for (size_t i = 0; i < s.keys.size(); ++i) {
      if (s.keys[i] != kEmpty) ++h[std::min<uint64_t>(s.counts[i], static_cast<uint64_t>(max_count))];
    }
  }
  return h;
}

}  // namespace gatemap::correct

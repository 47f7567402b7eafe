#include "correct/kmer_count.hpp"

#include <malloc.h>
#include <omp.h>

#include <algorithm>

#include "common/dna.hpp"
#include "common/error.hpp"
#include "common/parallel.hpp"
#include "correct/kmer_correct_core.hpp"

namespace gatemap::correct {

namespace {
constexpr size_t kShards = size_t(1) << 10;
constexpr size_t kMinSlots = 64;  // per shard: an empty table takes 512 KiB
// K-mers counted at a time: the chunk's hashes and their copy grouped by shard take
// 16 bytes each (8 MiB), whatever the batch.
constexpr size_t kChunkKmers = size_t(1) << 19;
constexpr size_t kPrefetchAhead = 16;  // k-mers whose filter word is asked for ahead of use

// mix64's inverse (each step of the splitmix64 finalizer undone in reverse order).
uint64_t unxorshift(uint64_t z, int s) {
  uint64_t r = z;
  for (int i = 0; i * s < 64; ++i) r = z ^ (r >> s);
  return r;
}
uint64_t unmix64(uint64_t h) {
  h = unxorshift(h, 31) * 0x319642b2d24d8ec3ULL;
  h = unxorshift(h, 27) * 0x96de1b173f119089ULL;
  return unxorshift(h, 30);
}

// Reads in chunks of about kChunkKmers bases (at least one read): the scratch stays small.
template <class Fn>
void in_chunks(const std::vector<io::Read>& reads, Fn&& fn) {
  for (size_t begin = 0; begin < reads.size();) {
    size_t end = begin, bases = 0;
    while (end < reads.size() && (end == begin || bases + reads[end].seq.size() <= kChunkKmers)) {
      bases += reads[end++].seq.size();
    }
    fn(begin, end);
    begin = end;
  }
}
}  // namespace

KmerCounter::KmerCounter(int k, size_t budget_bytes, uint64_t seen_twice_counters)
    : k_(k), budget_(budget_bytes), shards_(kShards) {
  if (seen_twice_counters) seen_twice_ = std::make_unique<SeenTwice>(seen_twice_counters);
  reset(KmerPart{});
}

void KmerCounter::reset(KmerPart part) {
  part_ = part;
  total_ = 0;
  seen_once_.assign(seen_twice_ ? size_t(1) << kOnceBits : 0, 0);
  for (Shard& s : shards_) {
    s.slots.assign(kMinSlots, 0);
    s.slots.shrink_to_fit();
    s.used = 0;
  }
}

size_t KmerCounter::bytes() const {
  size_t n = 0;
  for (const Shard& s : shards_) n += s.slots.capacity() * sizeof(uint64_t);
  return n + (seen_twice_ ? seen_twice_->bytes() : 0);
}

template <class Fn>
void KmerCounter::for_each_in(size_t shard, const Shard& s, Fn&& fn) {
  const uint64_t count_mask = (uint64_t(1) << kCountBits) - 1;
  for (const uint64_t slot : s.slots) {
    if (slot) fn(unmix64((static_cast<uint64_t>(shard) << (64 - kShardBits)) | (slot >> kCountBits)),
                 static_cast<uint32_t>(slot & count_mask));
  }
}

void KmerCounter::place(std::vector<uint64_t>& slots, uint64_t slot_word) {
  const uint64_t mask = slots.size() - 1;
  uint64_t at = (slot_word >> kCountBits) & mask;  // h's low bits, as insert() placed it
  while (slots[at]) at = (at + 1) & mask;
  slots[at] = slot_word;
}

void KmerCounter::narrow() {
  part_ = part_.child(0);
  ParallelErrors errors;  // out of memory is an error, not an abort from the OpenMP region
#pragma omp parallel for schedule(dynamic, 4)
  for (size_t sh = 0; sh < kShards; ++sh) errors.run([&] {
    Shard& s = shards_[sh];
    size_t slots = kMinSlots;
    while (slots * 7 < s.used * 10) slots *= 2;  // half the keys go: room without growing soon
    Shard kept;
    kept.slots.assign(slots, 0);
    for (const uint64_t slot : s.slots) {
      if (!slot) continue;
      const uint64_t x = unmix64((static_cast<uint64_t>(sh) << (64 - kShardBits)) | (slot >> kCountBits));
      if (!part_.holds(x)) continue;
      place(kept.slots, slot);
      ++kept.used;
    }
    s = std::move(kept);
  });
  errors.rethrow();
}

uint64_t KmerCounter::seen_once() const {
  uint64_t n = 0;
  const int shift = kOnceBits - part_.depth;
  for (size_t b = 0; b < seen_once_.size(); ++b) n += b >> shift == part_.index ? seen_once_[b] : 0;
  return n;
}

void KmerCounter::add(const std::vector<io::Read>& reads, std::vector<KmerPart>& dropped) {
  add(reads);
  // Halve the part until the shards fit, or stop when they are as small as they get.
  for (size_t before = bytes(); budget_ && before > budget_;) {
    const int max_depth = seen_twice_ ? kOnceBits : KmerPart::kMaxDepth;
    if (part_.depth == max_depth) throw Error("k-mer counting: the memory budget is too small");
    dropped.push_back(part_.child(1));
    narrow();
    const size_t after = bytes();
    if (after >= before) break;
    before = after;
  }
}

void KmerCounter::for_each_counted(uint32_t threshold, const std::function<void(uint64_t, uint32_t)>& fn) const {
  for (size_t sh = 0; sh < kShards; ++sh) {
    for_each_in(sh, shards_[sh], [&](uint64_t x, uint32_t c) {
      if (c >= threshold) fn(x, c);
    });
  }
}

void KmerCounter::grow(Shard& s) {
  std::vector<uint64_t> bigger(s.slots.size() * 2, 0);
  for (const uint64_t slot : s.slots) {
    if (slot) place(bigger, slot);
  }
  s.slots = std::move(bigger);
}

void KmerCounter::insert(Shard& s, uint64_t h) {
  if ((s.used + 1) * 10 > s.slots.size() * 7) grow(s);
  const uint64_t mask = s.slots.size() - 1;
  const uint64_t key = h << kShardBits;  // the slot word of h with count 0
  for (uint64_t at = h & mask;; at = (at + 1) & mask) {
    uint64_t& slot = s.slots[at];
    if (slot == 0) {
      slot = key | 1;
      ++s.used;
      return;
    }
    if ((slot ^ key) >> kCountBits == 0) {
      if ((slot & kMaxCount) != kMaxCount) ++slot;
      return;
    }
  }
}

void KmerCounter::add(const std::vector<io::Read>& reads) {
  in_chunks(reads, [&](size_t begin, size_t end) { add_chunk(reads, begin, end); });
}

void KmerCounter::look(const std::vector<io::Read>& reads) {
  if (!seen_twice_) return;
  in_chunks(reads, [&](size_t begin, size_t end) {
    hash_chunk(reads, begin, end, KmerPart{});
    const size_t n = hashes_.size();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) {
      if (i + kPrefetchAhead < n && hashes_[i + kPrefetchAhead] != kNoKmer) seen_twice_->prefetch(hashes_[i + kPrefetchAhead]);
      if (hashes_[i] != kNoKmer) seen_twice_->add(hashes_[i]);
    }
  });
}

uint64_t KmerCounter::hash_chunk(const std::vector<io::Read>& reads, size_t begin, size_t end, KmerPart part) {
  const int k = k_;
  std::vector<size_t> start(end - begin + 1, 0);
  for (size_t r = begin; r < end; ++r) {
    const size_t L = reads[r].seq.size();
    start[r - begin + 1] = start[r - begin] + (L >= static_cast<size_t>(k) ? L - k + 1 : 0);
  }
  hashes_.resize(start.back());
  const uint64_t kmask = k == 32 ? ~uint64_t(0) : (uint64_t(1) << (2 * k)) - 1;
  uint64_t seen = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : seen)
  for (size_t r = begin; r < end; ++r) {
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
        uint64_t h = kNoKmer;  // none of the part here (mix64 of a k-mer is never ~0: unmix64(~0) has 64 bits)
        if (valid >= k) {
          ++seen;
          const uint64_t x = detail::canonical(fwd, rc);
          if (part.holds(x)) h = detail::mix64(x);
        }
        hashes_[start[r - begin] + i + 1 - k] = h;
      }
    }
  }
  return seen;
}

void KmerCounter::add_chunk(const std::vector<io::Read>& reads, size_t begin, size_t end) {
  total_ += hash_chunk(reads, begin, end, part_);
  if (seen_twice_) {  // k-mers seen once stay out of the table, counted apart
    const size_t n = hashes_.size();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) {
      if (i + kPrefetchAhead < n && hashes_[i + kPrefetchAhead] != kNoKmer) seen_twice_->prefetch(hashes_[i + kPrefetchAhead]);
      if (hashes_[i] == kNoKmer || seen_twice_->passes(hashes_[i])) continue;
      const uint64_t bucket = KmerPart::hash(unmix64(hashes_[i])) >> (64 - kOnceBits);
      __atomic_fetch_add(&seen_once_[bucket], uint64_t(1), __ATOMIC_RELAXED);
      hashes_[i] = kNoKmer;
    }
  }
  // Group the hashes by shard (a parallel counting sort), then each shard is filled by
  // one thread: no locks, and each k-mer is read once.
  const size_t n = hashes_.size();
  const int T = omp_get_max_threads();
  const auto shard_of = [](uint64_t h) { return static_cast<size_t>(h >> (64 - kShardBits)); };
  std::vector<size_t> offset(static_cast<size_t>(T) * kShards + 1, 0);
  // Allocated before the region: out of memory between its barriers would end the process.
  size_t kept = 0;
#pragma omp parallel for schedule(static) reduction(+ : kept)
  for (size_t i = 0; i < n; ++i) kept += hashes_[i] != kNoKmer;
  sorted_.resize(kept);
  std::vector<size_t> next(static_cast<size_t>(T) * kShards);  // where each thread's k-mers of each shard go
  ParallelErrors errors;  // a shard that cannot grow: an error after the region, not an abort in it
#pragma omp parallel num_threads(T)
  {
    const size_t t = static_cast<size_t>(omp_get_thread_num());
    const size_t lo = n * t / T, hi = n * (t + 1) / T;
    for (size_t i = lo; i < hi; ++i) {
      if (hashes_[i] != kNoKmer) ++offset[shard_of(hashes_[i]) * static_cast<size_t>(T) + t + 1];
    }
#pragma omp barrier
#pragma omp single
    {
      for (size_t i = 1; i < offset.size(); ++i) offset[i] += offset[i - 1];
    }  // implicit barrier
    size_t* mine = next.data() + t * kShards;
    for (size_t sh = 0; sh < kShards; ++sh) mine[sh] = offset[sh * T + t];
    for (size_t i = lo; i < hi; ++i) {
      if (hashes_[i] != kNoKmer) sorted_[mine[shard_of(hashes_[i])]++] = hashes_[i];
    }
#pragma omp barrier
#pragma omp for schedule(dynamic, 4)
    for (size_t sh = 0; sh < kShards; ++sh) errors.run([&] {
      for (size_t i = offset[sh * T]; i < offset[(sh + 1) * T]; ++i) insert(shards_[sh], sorted_[i]);
    });
  }
  errors.rethrow();
}

void KmerCounter::insert_solid(uint32_t threshold, KmerSpectrum& spectrum) const {
  if (spectrum.kind != KmerSpectrum::Kind::bloom) return CountTable::insert_solid(threshold, spectrum);
  uint64_t n = 0;
#pragma omp parallel for schedule(dynamic, 4) reduction(+ : n)
  for (size_t sh = 0; sh < kShards; ++sh) {
    for_each_in(sh, shards_[sh], [&](uint64_t x, uint32_t c) {
      if (c < threshold) return;
      ++n;
      spectrum.set_bloom_bits_atomic(x);
    });
  }
  spectrum.n_kmers += n;
}

std::vector<uint64_t> KmerCounter::take_solid(uint32_t threshold) {
  seen_twice_.reset();
  uint64_t n = 0;  // reserved exactly: a growing vector would hold its old and new memory at once
  for (const Shard& s : shards_) {
    for (const uint64_t slot : s.slots) n += slot && (slot & kMaxCount) >= threshold;
  }
  std::vector<uint64_t> keys;
  keys.reserve(n);
  for (size_t sh = 0; sh < kShards; ++sh) {
    for_each_in(sh, shards_[sh], [&](uint64_t x, uint32_t c) {
      if (c >= threshold) keys.push_back(x);
    });
    shards_[sh] = Shard{};
    // The shards are small blocks in the threads' malloc arenas: handed back to the
    // system as they go, so that the table shrinks while the list grows (and does not
    // stay beside the spectrum made next).
    if (sh % 128 == 127) malloc_trim(0);
  }
  reset(KmerPart{});
  hashes_ = {};
  sorted_ = {};
  malloc_trim(0);
  return keys;
}

uint64_t KmerCounter::distinct() const {
  uint64_t n = seen_once();
  for (const Shard& s : shards_) n += s.used;
  return n;
}

uint64_t KmerCounter::count(uint64_t x) const {
  const uint64_t h = detail::mix64(x);
  const Shard& s = shards_[h >> (64 - kShardBits)];
  const uint64_t mask = s.slots.size() - 1, key = h << kShardBits;
  for (uint64_t at = h & mask;; at = (at + 1) & mask) {
    const uint64_t slot = s.slots[at];
    if (slot == 0) return 0;
    if ((slot ^ key) >> kCountBits == 0) return slot & kMaxCount;
  }
}

std::vector<uint64_t> KmerCounter::histogram(uint32_t max_count) const {
  std::vector<uint64_t> h(static_cast<size_t>(max_count) + 1, 0);
  h[std::min<uint32_t>(1, max_count)] += seen_once();
  for (const Shard& s : shards_) {
    for (const uint64_t slot : s.slots) {
      if (slot) ++h[std::min<uint64_t>(slot & kMaxCount, static_cast<uint64_t>(max_count))];
    }
  }
  return h;
}

}  // namespace gatemap::correct

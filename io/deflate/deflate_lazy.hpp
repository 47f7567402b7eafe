#pragma once
// The CPU's way to deflate_core's stream, byte for byte deflate_block's: a match is
// sought only where the parse asks for one (about one position in four on BAM records;
// the GPU finds them all, in parallel), every position still hashed in, in order, so each
// search sees the buckets deflate_block's would; bytes compared eight at a time. 2.5x
// deflate_block's speed on a CPU core (30 vs 12 MB/s of BAM records): the twin that
// --bgzf-gpu falls back to and the GPU's tests compare with (io/deflate/bgzf_deflate_cpu.cpp).
// Internal: include from io/deflate/bgzf_deflate_cpu.cpp and the tests only.
#include <cstdint>
#include <cstring>

#include "io/deflate/deflate_core.hpp"

namespace gatemap::io::deflate {

// Bytes at c and p compared eight at a time; the same answer as ByteCompare. Reads stay
// inside in[0, p + max_len).
struct WordCompareCpu {
  const uint8_t* in;
  uint32_t operator()(uint32_t c, uint32_t p, uint32_t max_len) const {
    uint32_t len = 0;
    for (; len + 8 <= max_len; len += 8) {
      uint64_t a, b;
      std::memcpy(&a, in + c + len, 8);
      std::memcpy(&b, in + p + len, 8);
      if (a != b) return len + static_cast<uint32_t>(__builtin_ctzll(a ^ b)) / 8;  // little-endian
    }
    while (len < max_len && in[c + len] == in[p + len]) ++len;
    return len;
  }
};

// parse()'s match source: positions hashed in up to the one asked for, which is then
// looked up (before being hashed in itself, as find_matches does).
class LazyMatches {
 public:
  LazyMatches(const uint8_t* in, uint32_t n, uint64_t* buckets) : in_(in), n_(n), buckets_(buckets) {
    std::memset(buckets, 0, sizeof(uint64_t) * kBucketWords);
  }
  uint32_t operator()(uint32_t p) {
    if (p == last_) return last_token_;  // the lazy step's p + 1, asked for again
    for (; hashed_ < p; ++hashed_) {
      if (hashed_ + kHashBytes > n_) break;
      if (hashed_ + 8 + kHashBytes <= n_) __builtin_prefetch(bucket_words(hashed_ + 8), 1);
      uint64_t* words = bucket_words(hashed_);
      Bucket bucket = Bucket::load(words);
      bucket.shift_in(hashed_);
      bucket.store(words);
    }
    uint32_t token = 0;
    if (p + kHashBytes <= n_) {
      uint64_t* words = bucket_words(p);
      Bucket bucket = Bucket::load(words);
      token = best_match(in_, n_, p, bucket, WordCompareCpu{in_});
      bucket.shift_in(p);
      bucket.store(words);
    }
    hashed_ = p + 1;
    last_ = p;
    last_token_ = token;
    return token;
  }
  uint8_t literal(uint32_t p) const { return in_[p]; }

 private:
  uint64_t* bucket_words(uint32_t p) const { return buckets_ + size_t{kBucketWordCount} * hash4(in_, p); }

  const uint8_t* in_;
  uint32_t n_;
  uint64_t* buckets_;
  uint32_t hashed_ = 0;  // positions [0, hashed_) are in the buckets
  uint32_t last_ = ~0u, last_token_ = 0;
};

// deflate_block's bytes (s: its scratch; s.tokens gets the tokens).
inline uint32_t deflate_block_lazy(const uint8_t* in, uint32_t n, Scratch s, uint8_t* out) {
  Tables t;
  const BlockPlan plan = plan_block(in, n, LazyMatches(in, n, s.buckets), s.tokens, t);
  return write_block(in, n, plan, t, s.tokens, out);
}

}  // namespace gatemap::io::deflate

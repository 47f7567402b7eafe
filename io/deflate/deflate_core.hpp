#pragma once
// One BGZF block's data -> one raw DEFLATE stream (RFC 1951), word for word the same
// in the CUDA kernel (a warp per block, io/deflate/bgzf_deflate.cu) and its CPU twin
// (io/deflate/bgzf_deflate_cpu.cpp). Internal: include from those two and the tests only.
//
// Matching: every position is hashed (its 4 bytes) into a bucket of the 16 latest
// positions with that hash (16-bit positions, a BGZF block is < 64 KiB, four to a word),
// and its best match among them found, so the GPU finds all positions' matches in
// parallel (io/deflate/bgzf_deflate.cu); then one pass parses them with one step of lazy
// evaluation (a longer match at the next byte wins, as zlib's levels 4-9 do). Files on
// real BAM (NA12878, HG002 reads): 1.0-1.5% over libdeflate level 6's, at or under it on
// simulated reads; 8 ways and a 3-byte hash made them 3-4.5% larger (4 ways: 7%): a
// 3-byte match rarely pays in BAM, and a 3-byte hash fills the ways with positions that
// match no further. Coding: one dynamic-Huffman block
// (codes limited to 15 bits, the code-length code to 7), or a stored block when that is
// smaller. No allocation: the caller gives the hash table and a match per input byte.
#include <cstdint>

#include "gpu/host_device.hpp"

namespace gatemap::io::deflate {

constexpr uint32_t kMaxInput = 0xff00;         // BGZF_BLOCK_SIZE
constexpr uint32_t kMaxOutput = kMaxInput + 5;  // a stored block is never larger
constexpr int kHashBits = 12;
constexpr uint32_t kHashBuckets = 1u << kHashBits;
constexpr int kWays = 16, kBucketWordCount = kWays / 4;  // four 16-bit positions a word
constexpr uint32_t kBucketWords = kBucketWordCount * kHashBuckets;
constexpr uint32_t kHashBytes = 4;  // a position is hashed when it has 4 bytes left
constexpr uint32_t kMinMatch = 3, kMaxMatch = 258, kWindow = 32768;
constexpr uint32_t kLazyBelow = 32;      // a match this long is taken without looking one byte on
// Matches are sought only this long; the parse extends the ones it takes. Sorted BAM is
// full of long matches (overlapping reads), and every position comparing every way to
// 258 bytes made the GPU's kernel slower there than libdeflate on the CPU.
constexpr uint32_t kNiceLength = 64;
constexpr uint32_t kFarForThree = 4096;  // a 3-byte match farther than this costs more than literals

constexpr int kLitLenCodes = 286, kDistCodes = 30, kCodeLenCodes = 19;
constexpr int kMaxBits = 15, kMaxCodeLenBits = 7;

// Per block: the buckets (kBucketWords) and a match, then a token, per input byte.
struct Scratch {
  uint64_t* buckets;
  uint32_t* tokens;
};

// A Huffman code's working arrays.
struct HuffmanWork {
  uint16_t sym[288];         // used symbols by (frequency, symbol), ascending
  uint32_t weight[288];      // internal nodes' weights in the order made, then their depths
  uint16_t parent[576];      // leaves 0..used-1, then internal nodes
  uint32_t per_length[289];  // symbols per code length
};

// The small tables of one block's coding (~7 KB, read and written per symbol): on a
// CPU thread's stack, in shared memory on the GPU (local memory there is 10x slower).
struct Tables {
  uint32_t litlen_freq[kLitLenCodes], dist_freq[kDistCodes], cl_freq[kCodeLenCodes];
  uint8_t lens[kLitLenCodes + kDistCodes];  // the lit/len and distance code lengths, back to back as sent
  uint8_t cl_len[kCodeLenCodes];
  uint16_t cl_syms[kLitLenCodes + kDistCodes];
  uint16_t litlen_code[kLitLenCodes], dist_code[kDistCodes], cl_code[kCodeLenCodes];
  HuffmanWork work;
};

GATEMAP_HD int floor_log2(uint32_t v) {  // v > 0
#if defined(__CUDA_ARCH__)
  return 31 - __clz(v);
#else
  return 31 - __builtin_clz(v);
#endif
}

// A match length (3-258) -> its code (257-285); the extra bits' count and value follow
// from the code's base (RFC 1951 3.2.5).
GATEMAP_HD int length_code(uint32_t len) {
  if (len <= 10) return 254 + static_cast<int>(len);
  if (len == 258) return 285;
  const uint32_t l = len - 3;
  const int e = floor_log2(l) - 2;
  return 257 + 4 * e + 4 + static_cast<int>((l >> e) & 3);
}
GATEMAP_HD int length_extra_bits(int code) { return code < 265 || code == 285 ? 0 : (code - 261) / 4; }
GATEMAP_HD uint32_t length_base(int code) {
  if (code < 265) return static_cast<uint32_t>(code - 254);
  if (code == 285) return 258;
  const int e = length_extra_bits(code);
  return 3 + ((4u + static_cast<uint32_t>((code - 265) & 3)) << e);
}
GATEMAP_HD int distance_code(uint32_t dist) {  // 1-32768 -> 0-29
  const uint32_t d = dist - 1;
  if (d < 4) return static_cast<int>(d);
  const int e = floor_log2(d) - 1;
  return 2 * e + 2 + static_cast<int>((d >> e) & 1);
}
GATEMAP_HD int distance_extra_bits(int code) { return code < 4 ? 0 : code / 2 - 1; }
GATEMAP_HD uint32_t distance_base(int code) {
  if (code < 4) return static_cast<uint32_t>(code + 1);
  return 1 + ((2u + static_cast<uint32_t>(code & 1)) << distance_extra_bits(code));
}

// A token: a literal byte, or 0x80000000 | length << 16 | (distance - 1).
constexpr uint32_t kMatchFlag = 0x80000000u;

GATEMAP_HD uint32_t hash4(const uint8_t* in, uint32_t p) {
  const uint32_t v = uint32_t{in[p]} | uint32_t{in[p + 1]} << 8 | uint32_t{in[p + 2]} << 16 | uint32_t{in[p + 3]} << 24;
  return (v * 0x1e35a7bdu) >> (32 - kHashBits);
}

// A bucket: kWays 16-bit entries (position + 1, 0 = empty), four to a word, the newest
// in the low bits of w[0]: shifting a position in drops the oldest.
struct Bucket {
  uint64_t w[kBucketWordCount];
  GATEMAP_HD uint32_t entry(int way) const { return static_cast<uint32_t>(w[way / 4] >> (16 * (way % 4))) & 0xffff; }
  GATEMAP_HD static Bucket load(const uint64_t* words) {
    Bucket b;
    for (int i = 0; i < kBucketWordCount; ++i) b.w[i] = words[i];
    return b;
  }
  GATEMAP_HD void store(uint64_t* words) const {
    for (int i = 0; i < kBucketWordCount; ++i) words[i] = w[i];
  }
  GATEMAP_HD void shift_in(uint32_t p) {
    for (int i = kBucketWordCount - 1; i > 0; --i) w[i] = w[i] << 16 | w[i - 1] >> 48;
    w[0] = w[0] << 16 | (p + 1);
  }
};

// How many bytes at c and p (c < p) agree, at most max_len: byte by byte here; the GPU
// compares words (io/deflate/bgzf_deflate.cu), with the same answer.
struct ByteCompare {
  const uint8_t* in;
  GATEMAP_HD uint32_t operator()(uint32_t c, uint32_t p, uint32_t max_len) const {
    uint32_t len = 0;
    while (len < max_len && in[c + len] == in[p + len]) ++len;
    return len;
  }
};

// The longest match found (best bytes at distance dist) as a token: 0 when it is under 3
// bytes, or 3 bytes too far away to pay.
GATEMAP_HD uint32_t match_token(uint32_t best, uint32_t dist) {
  if (best < kMinMatch || (best == kMinMatch && dist > kFarForThree)) return 0;
  return kMatchFlag | best << 16 | (dist - 1);
}

// The best match at p (p + 4 <= n) among the bucket's positions, newest first, at most
// kNiceLength long, as a token (0 when none of 3 or more is worth it).
template <class Compare>
GATEMAP_HD uint32_t best_match(const uint8_t* in, uint32_t n, uint32_t p, const Bucket& bucket,
                               const Compare& common_length) {
  const uint32_t max_len = n - p < kNiceLength ? n - p : kNiceLength;
  uint32_t best = kMinMatch - 1, dist = 0;
  for (int way = 0; way < kWays; ++way) {
    const uint32_t entry = bucket.entry(way);
    if (entry == 0) break;
    const uint32_t c = entry - 1, d = p - c;
    if (d > kWindow) break;  // the older ways lie farther still
    if (in[c + best] != in[p + best]) continue;  // cannot be longer than the best
    const uint32_t len = common_length(c, p, max_len);
    if (len > best) {
      best = len;
      dist = d;
      if (len == max_len) break;
    }
  }
  return match_token(best, dist);
}
GATEMAP_HD uint32_t match_length(uint32_t token) { return token & kMatchFlag ? (token >> 16) & 0x1ff : 0; }

// The best match at every position, each position hashed in after its own lookup (the
// CPU's order; the GPU's warps find the same buckets 32 positions at a time).
GATEMAP_HD void find_matches(const uint8_t* in, uint32_t n, Scratch s) {
  for (uint32_t b = 0; b < kBucketWords; ++b) s.buckets[b] = 0;
  for (uint32_t p = 0; p < n; ++p) {
    if (p + kHashBytes > n) {
      s.tokens[p] = 0;
      continue;
    }
    uint64_t* words = s.buckets + kBucketWordCount * hash4(in, p);
    Bucket bucket = Bucket::load(words);
    s.tokens[p] = best_match(in, n, p, bucket, ByteCompare{in});
    bucket.shift_in(p);
    bucket.store(words);
  }
}

// The parse over the matches find_matches gives, match_at(p) being position p's (and
// match_at.literal(p) its byte): a
// match is taken unless the next byte starts a longer one (zlib's lazy evaluation;
// matches of kLazyBelow or more are taken at once, and one of kNiceLength extended as far
// as it goes). It asks for positions in increasing order (p, maybe p + 1, then the next
// token's). The tokens go to `tokens` (the i-th never lies past the i-th position: they
// may overwrite the matches). Returns the tokens' count; counts each symbol's uses.
template <class MatchAt>
GATEMAP_HD uint32_t parse(const uint8_t* in, uint32_t n, MatchAt&& match_at, uint32_t* tokens, uint32_t* litlen_freq,
                          uint32_t* dist_freq) {
  uint32_t count = 0, p = 0;
  while (p < n) {
    const uint32_t token = match_at(p);
    uint32_t len = match_length(token);
    if (len && len < kLazyBelow && p + 1 < n && match_length(match_at(p + 1)) > len) len = 0;
    if (len == 0) {
      const uint8_t literal = match_at.literal(p);
      tokens[count++] = literal;
      ++litlen_freq[literal];
      ++p;
      continue;
    }
    const uint32_t dist = (token & 0xffff) + 1;
    if (len == kNiceLength) {  // as long as it was sought: it may go on
      const uint32_t max_len = n - p < kMaxMatch ? n - p : kMaxMatch;
      while (len < max_len && in[p + len] == in[p - dist + len]) ++len;
    }
    tokens[count++] = kMatchFlag | len << 16 | (dist - 1);
    ++litlen_freq[length_code(len)];
    ++dist_freq[distance_code(dist)];
    p += len;
  }
  ++litlen_freq[256];  // end of block
  return count;
}

// Code lengths (at most max_bits) of a Huffman code for freq[0, m) (m <= 288); symbols
// of frequency 0 get 0. At least two symbols must be used.
GATEMAP_HD void huffman_lengths(const uint32_t* freq, int m, int max_bits, uint8_t* lengths, HuffmanWork& w) {
  uint16_t* const sym = w.sym;
  uint32_t* const weight = w.weight;
  uint16_t* const parent = w.parent;
  int used = 0;
  for (int i = 0; i < m; ++i) {
    lengths[i] = 0;
    if (freq[i] == 0) continue;
    int j = used++;
    for (; j > 0 && freq[sym[j - 1]] > freq[i]; --j) sym[j] = sym[j - 1];
    sym[j] = static_cast<uint16_t>(i);
  }
  // Two queues: the leaves in order and the internal nodes in the order made (their
  // weights never decrease); each step joins the two lightest heads.
  int leaf = 0, node = 0, made = 0;
  const auto take = [&]() -> int {
    if (node < made && (leaf >= used || weight[node] < freq[sym[leaf]])) return used + node++;
    return leaf++;
  };
  const auto weight_of = [&](int id) { return id < used ? freq[sym[id]] : weight[id - used]; };
  while ((used - leaf) + (made - node) > 1) {
    const int a = take(), b = take();
    weight[made] = weight_of(a) + weight_of(b);
    parent[a] = parent[b] = static_cast<uint16_t>(used + made);
    ++made;
  }
  // Depths from the root (the last node made) down; internal nodes reuse `weight`.
  uint32_t* depth = weight;
  depth[made - 1] = 0;
  for (int i = made - 2; i >= 0; --i) depth[i] = depth[parent[used + i] - used] + 1;
  uint32_t* const per_length = w.per_length;
  for (int d = 0; d <= 288; ++d) per_length[d] = 0;
  for (int i = 0; i < used; ++i) ++per_length[depth[parent[i] - used] + 1];
  // Too deep: everything past max_bits at max_bits, then leaves moved one level down
  // until the code is complete again (Kraft sum exactly one).
  for (int d = max_bits + 1; d <= 288; ++d) {
    per_length[max_bits] += per_length[d];
    per_length[d] = 0;
  }
  uint32_t kraft = 0;
  for (int d = 1; d <= max_bits; ++d) kraft += per_length[d] << (max_bits - d);
  while (kraft > (1u << max_bits)) {
    --per_length[max_bits];
    for (int d = max_bits - 1; d > 0; --d) {
      if (per_length[d]) {
        --per_length[d];
        per_length[d + 1] += 2;
        break;
      }
    }
    --kraft;
  }
  // The most frequent symbols get the shortest codes.
  int next = used - 1;
  for (int d = 1; d <= max_bits; ++d) {
    for (uint32_t k = 0; k < per_length[d]; ++k) lengths[sym[next--]] = static_cast<uint8_t>(d);
  }
}

// Canonical codes (RFC 1951 3.2.2), bit-reversed for an LSB-first stream.
GATEMAP_HD void canonical_codes(const uint8_t* lengths, int m, uint16_t* codes) {
  uint16_t per_length[kMaxBits + 1] = {};
  for (int i = 0; i < m; ++i) ++per_length[lengths[i]];
  per_length[0] = 0;
  uint16_t next[kMaxBits + 1] = {};
  uint32_t code = 0;
  for (int bits = 1; bits <= kMaxBits; ++bits) {
    code = (code + per_length[bits - 1]) << 1;
    next[bits] = static_cast<uint16_t>(code);
  }
  for (int i = 0; i < m; ++i) {
    const int len = lengths[i];
    if (len == 0) continue;
    uint32_t c = next[len]++, reversed = 0;
    for (int b = 0; b < len; ++b, c >>= 1) reversed = reversed << 1 | (c & 1);
    codes[i] = static_cast<uint16_t>(reversed);
  }
}

struct BitWriter {
  uint8_t* out;
  uint32_t pos = 0;
  uint64_t acc = 0;
  int bits = 0;
  GATEMAP_HD void put(uint64_t value, int n) {  // n <= 56
    acc |= value << bits;
    bits += n;
    while (bits >= 8) {
      out[pos++] = static_cast<uint8_t>(acc);
      acc >>= 8;
      bits -= 8;
    }
  }
  GATEMAP_HD uint32_t finish() {
    if (bits > 0) out[pos++] = static_cast<uint8_t>(acc);
    bits = 0;
    acc = 0;
    return pos;
  }
};

// Makes a code over freq usable: at least two symbols (an inflater needs a complete code).
GATEMAP_HD void at_least_two(uint32_t* freq, int m) {
  int used = 0;
  for (int i = 0; i < m; ++i) used += freq[i] != 0;
  for (int i = 0; used < 2 && i < m; ++i) {
    if (freq[i] == 0) {
      freq[i] = 1;
      ++used;
    }
  }
}

// The order in which the code-length code's lengths are sent (RFC 1951 3.2.7).
GATEMAP_HD int code_length_order(int i) {
  const uint8_t order[kCodeLenCodes] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
  return order[i];
}

// The lit/len and distance lengths as code-length symbols (runs as 16, 17, 18), each
// with its extra bits' value in bits 8 and up. Returns how many; `lens` is both tables.
GATEMAP_HD int run_length_symbols(const uint8_t* lens, int total, uint16_t* out) {
  int count = 0;
  for (int i = 0; i < total;) {
    const uint8_t v = lens[i];
    int run = 1;
    while (i + run < total && lens[i + run] == v) ++run;
    i += run;
    if (v == 0) {
      while (run >= 11) {
        const int r = run < 138 ? run : 138;
        out[count++] = static_cast<uint16_t>(18 | (r - 11) << 8);
        run -= r;
      }
      if (run >= 3) {
        out[count++] = static_cast<uint16_t>(17 | (run - 3) << 8);
        run = 0;
      }
    } else {
      out[count++] = v;
      --run;
      while (run >= 3) {
        const int r = run < 6 ? run : 6;
        out[count++] = static_cast<uint16_t>(16 | (r - 3) << 8);
        run -= r;
      }
    }
    for (; run > 0; --run) out[count++] = v;
  }
  return count;
}

GATEMAP_HD int code_length_extra_bits(int sym) { return sym == 16 ? 2 : sym == 17 ? 3 : sym == 18 ? 7 : 0; }

// What coding a block takes: its tokens (in s.tokens), the tables' sizes (in `Tables`)
// and the dynamic block's size in bits (the few codes that only complete a code are
// counted once), or `stored` when a stored block is smaller.
struct BlockPlan {
  uint32_t tokens = 0;
  int hlit = 0, hdist = 0, hclen = 0, cl_count = 0;
  uint64_t bits = 0;
  bool stored = false;
};

// in[0, n) (n <= kMaxInput) with match_at(p) each position's match (parse): the parse
// (into `tokens`), the codes (in `t`) and the block's size.
template <class MatchAt>
GATEMAP_HD BlockPlan plan_block(const uint8_t* in, uint32_t n, MatchAt&& match_at, uint32_t* tokens, Tables& t) {
  BlockPlan plan;
  uint32_t* const litlen_freq = t.litlen_freq;
  uint32_t* const dist_freq = t.dist_freq;
  uint32_t* const cl_freq = t.cl_freq;
  for (int i = 0; i < kLitLenCodes; ++i) litlen_freq[i] = 0;
  for (int i = 0; i < kDistCodes; ++i) dist_freq[i] = 0;
  for (int i = 0; i < kCodeLenCodes; ++i) cl_freq[i] = 0;
  plan.tokens = parse(in, n, match_at, tokens, litlen_freq, dist_freq);
  at_least_two(litlen_freq, kLitLenCodes);
  at_least_two(dist_freq, kDistCodes);
  uint8_t* const litlen_len = t.lens;
  huffman_lengths(litlen_freq, kLitLenCodes, kMaxBits, litlen_len, t.work);
  int hlit = kLitLenCodes;
  while (hlit > 257 && litlen_len[hlit - 1] == 0) --hlit;
  uint8_t* const dist_len = t.lens + hlit;  // the two tables back to back, as they are sent
  huffman_lengths(dist_freq, kDistCodes, kMaxBits, dist_len, t.work);
  int hdist = kDistCodes;
  while (hdist > 1 && dist_len[hdist - 1] == 0) --hdist;

  const int cl_count = run_length_symbols(t.lens, hlit + hdist, t.cl_syms);
  for (int i = 0; i < cl_count; ++i) ++cl_freq[t.cl_syms[i] & 0xff];
  at_least_two(cl_freq, kCodeLenCodes);
  huffman_lengths(cl_freq, kCodeLenCodes, kMaxCodeLenBits, t.cl_len, t.work);
  int hclen = kCodeLenCodes;
  while (hclen > 4 && t.cl_len[code_length_order(hclen - 1)] == 0) --hclen;

  // The dynamic block's exact size, against a stored block's.
  uint64_t bits = 3 + 5 + 5 + 4 + 3 * static_cast<uint64_t>(hclen);
  for (int i = 0; i < cl_count; ++i) bits += t.cl_len[t.cl_syms[i] & 0xff] + code_length_extra_bits(t.cl_syms[i] & 0xff);
  for (int c = 0; c < hlit; ++c) {
    bits += uint64_t{litlen_freq[c]} * (litlen_len[c] + (c > 256 ? length_extra_bits(c) : 0));
  }
  for (int c = 0; c < hdist; ++c) bits += uint64_t{dist_freq[c]} * (dist_len[c] + distance_extra_bits(c));
  plan.hlit = hlit;
  plan.hdist = hdist;
  plan.hclen = hclen;
  plan.cl_count = cl_count;
  plan.bits = bits;
  plan.stored = (bits + 7) / 8 >= 5 + uint64_t{n};
  if (!plan.stored) {
    canonical_codes(litlen_len, hlit, t.litlen_code);
    canonical_codes(dist_len, hdist, t.dist_code);
    canonical_codes(t.cl_len, kCodeLenCodes, t.cl_code);
  }
  return plan;
}

// A stored block: header, pad to a byte, LEN, NLEN, the bytes. Returns its size.
GATEMAP_HD uint32_t write_stored(const uint8_t* in, uint32_t n, uint8_t* out) {
  BitWriter w{out};
  w.put(1, 3);
  w.finish();
  const uint32_t nlen = ~n & 0xffff;
  out[w.pos++] = static_cast<uint8_t>(n);
  out[w.pos++] = static_cast<uint8_t>(n >> 8);
  out[w.pos++] = static_cast<uint8_t>(nlen);
  out[w.pos++] = static_cast<uint8_t>(nlen >> 8);
  for (uint32_t i = 0; i < n; ++i) out[w.pos++] = in[i];
  return w.pos;
}

// The dynamic block's header: final, dynamic, the tables' sizes and code lengths.
GATEMAP_HD void write_header(const BlockPlan& plan, const Tables& t, BitWriter& w) {
  w.put(1, 1);  // final block
  w.put(2, 2);  // dynamic Huffman
  w.put(static_cast<uint32_t>(plan.hlit - 257), 5);
  w.put(static_cast<uint32_t>(plan.hdist - 1), 5);
  w.put(static_cast<uint32_t>(plan.hclen - 4), 4);
  for (int i = 0; i < plan.hclen; ++i) w.put(t.cl_len[code_length_order(i)], 3);
  for (int i = 0; i < plan.cl_count; ++i) {
    const int sym = t.cl_syms[i] & 0xff;
    w.put(t.cl_code[sym], t.cl_len[sym]);
    if (sym >= 16) w.put(t.cl_syms[i] >> 8, code_length_extra_bits(sym));
  }
}

// A token's bits (code and extra bits, at most 48) as they go into the stream; `bits`
// gets their count. The end-of-block code for token ~0u.
constexpr uint32_t kEndOfBlock = ~0u;
GATEMAP_HD uint64_t token_bits(uint32_t token, const BlockPlan& plan, const Tables& t, int& bits) {
  const uint8_t* litlen_len = t.lens;
  const uint8_t* dist_len = t.lens + plan.hlit;
  if (token == kEndOfBlock) {
    bits = litlen_len[256];
    return t.litlen_code[256];
  }
  if (!(token & kMatchFlag)) {
    bits = litlen_len[token];
    return t.litlen_code[token];
  }
  const uint32_t len = (token >> 16) & 0x1ff, dist = (token & 0xffff) + 1;
  const int lc = length_code(len), dc = distance_code(dist);
  uint64_t v = t.litlen_code[lc];
  int at = litlen_len[lc];
  v |= uint64_t{len - length_base(lc)} << at;
  at += length_extra_bits(lc);
  v |= uint64_t{t.dist_code[dc]} << at;
  at += dist_len[dc];
  v |= uint64_t{dist - distance_base(dc)} << at;
  bits = at + distance_extra_bits(dc);
  return v;
}

// The matches as find_matches leaves them in s.tokens (all found first).
struct FoundMatches {
  const uint32_t* tokens;
  const uint8_t* in;
  GATEMAP_HD uint32_t operator()(uint32_t p) const { return tokens[p]; }
  GATEMAP_HD uint8_t literal(uint32_t p) const { return in[p]; }
};

// The block's tokens (plan.tokens of them) -> one final DEFLATE block in out (room for
// kMaxOutput bytes); returns its size.
GATEMAP_HD uint32_t write_block(const uint8_t* in, uint32_t n, const BlockPlan& plan, const Tables& t,
                                const uint32_t* tokens, uint8_t* out) {
  if (plan.stored) return write_stored(in, n, out);
  BitWriter w{out};
  write_header(plan, t, w);
  int bits = 0;
  for (uint32_t i = 0; i < plan.tokens; ++i) {
    const uint64_t v = token_bits(tokens[i], plan, t, bits);
    w.put(v, bits);
  }
  const uint64_t end = token_bits(kEndOfBlock, plan, t, bits);
  w.put(end, bits);
  return w.finish();
}

// in[0, n) (n <= kMaxInput) -> one final DEFLATE block in out; returns its size. The
// definition of the stream: every position's match found, then parsed and coded.
GATEMAP_HD uint32_t deflate_block(const uint8_t* in, uint32_t n, Scratch s, uint8_t* out) {
  find_matches(in, n, s);
  Tables t;
  const BlockPlan plan = plan_block(in, n, FoundMatches{s.tokens, in}, s.tokens, t);
  return write_block(in, n, plan, t, s.tokens, out);
}

}  // namespace gatemap::io::deflate

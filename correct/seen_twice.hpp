#pragma once
// Which k-mers were seen at least twice, never missing one: two 2-bit counters per
// k-mer in a table of counters (each saturates at 2), both in one 64-bit word (one
// cache miss and one compare-and-swap per k-mer); a k-mer passes when both reached 2.
// A k-mer seen once passes only when other k-mers filled both its counters (a few
// percent at the sizes used). Saturating counts do not depend on the order of the adds,
// so the answer is the same however the reads are split between threads. The CPU count
// table uses it to leave out the k-mers seen once: most of an error-rich read set's
// distinct k-mers, and never solid at a threshold of 2 or more.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gatemap::correct {

class SeenTwice {
 public:
  explicit SeenTwice(uint64_t counters);  // rounded up to a power of two (at least 64)
  // h: the k-mer's hash (mix64 of it). Safe beside other threads adding.
  void add(uint64_t h);
  bool passes(uint64_t h) const;
  // Asks for h's word ahead of add() or passes() (each is a cache miss otherwise).
  void prefetch(uint64_t h) const { __builtin_prefetch(&words_[place(h).word]); }
  size_t bytes() const { return words_.size() * sizeof(uint64_t); }

 private:
  struct Place {
    uint64_t word;  // index in words_
    int shift[2];  // bit offsets of the two counters in the word (equal now and then)
  };
  Place place(uint64_t h) const;
  std::vector<uint64_t> words_;  // 32 counters a word
  uint64_t mask_ = 0;            // words - 1
};

}  // namespace gatemap::correct

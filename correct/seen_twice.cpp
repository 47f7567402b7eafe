#include "correct/seen_twice.hpp"

#include "correct/kmer_correct_core.hpp"

namespace gatemap::correct {

SeenTwice::SeenTwice(uint64_t counters) {
  uint64_t n = 64;
  while (n < counters) n <<= 1;
  words_.assign(n / 32, 0);
  mask_ = n / 32 - 1;
}

SeenTwice::Place SeenTwice::place(uint64_t h) const {
  const uint64_t w = detail::mix64(h ^ 0x6a09e667f3bcc909ULL);  // independent of the count table's use of h
  return {w & mask_, {static_cast<int>(w >> 59) * 2, static_cast<int>((w >> 54) & 31) * 2}};
}

void SeenTwice::add(uint64_t h) {
  const Place p = place(h);
  uint64_t* word = &words_[p.word];
  uint64_t old = __atomic_load_n(word, __ATOMIC_RELAXED);
  for (;;) {
    uint64_t now = old;
    for (int i = 0; i < (p.shift[0] == p.shift[1] ? 1 : 2); ++i) {  // one counter twice would count one add as two
      if (((now >> p.shift[i]) & 3) < 2) now += uint64_t(1) << p.shift[i];
    }
    if (now == old || __atomic_compare_exchange_n(word, &old, now, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return;
  }
}

bool SeenTwice::passes(uint64_t h) const {
  const Place p = place(h);
  const uint64_t word = words_[p.word];
  return ((word >> p.shift[0]) & 3) == 2 && ((word >> p.shift[1]) & 3) == 2;
}

}  // namespace gatemap::correct

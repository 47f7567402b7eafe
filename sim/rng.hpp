#pragma once
// A small, fast, seedable generator (splitmix64) so simulations are byte-identical
// across platforms and standard libraries (std distributions are not).
#include <cmath>
#include <cstdint>

namespace gatemap::sim {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return (next() >> 11) * 0x1.0p-53; }                 // [0, 1)
  int64_t below(int64_t n) { return n > 0 ? static_cast<int64_t>(next() % static_cast<uint64_t>(n)) : 0; }
  int64_t range(int64_t lo, int64_t hi) { return lo + below(hi - lo + 1); }  // [lo, hi]
  double normal() {  // Box-Muller
    const double u1 = uniform() + 1e-300, u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  char base(double gc) {
    const double u = uniform();
    if (u < gc) return u < gc / 2 ? 'C' : 'G';
    return u < gc + (1 - gc) / 2 ? 'A' : 'T';
  }

 private:
  uint64_t state_;
};

// Seed for a sub-stream (a contig, a read) from the run's seed.
inline uint64_t substream(uint64_t seed, uint64_t index) {
  Rng r(seed ^ (index * 0xd1b54a32d192ed03ULL));
  return r.next();
}

}  // namespace gatemap::sim

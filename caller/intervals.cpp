#include "caller/intervals.hpp"

#include <algorithm>

namespace gatemap::caller {

std::vector<std::vector<Interval>> split_intervals(const std::vector<Interval>& intervals, int parts,
                                                   int64_t min_bases) {
  int64_t total = 0;
  for (const Interval& iv : intervals) total += iv.end - iv.begin;
  const int64_t per = std::max<int64_t>({1, min_bases, (total + parts - 1) / std::max(1, parts)});
  std::vector<std::vector<Interval>> out;
  int64_t room = 0;  // bases the last part may still take
  for (Interval iv : intervals) {
    while (iv.begin < iv.end) {
      if (room == 0) {
        out.emplace_back();
        room = per;
      }
      Interval piece = iv;
      piece.end = std::min(iv.end, iv.begin + room);
      out.back().push_back(piece);
      room -= piece.end - piece.begin;
      iv.begin = piece.end;
    }
  }
  return out;
}

}  // namespace gatemap::caller

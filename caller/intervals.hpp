#pragma once
// -L's intervals (io/reads/intervals.hpp) and how the caller cuts them into parts, one per GPU.
#include <cstdint>
#include <vector>

#include "io/reads/intervals.hpp"

namespace gatemap::caller {

using io::Interval;
using io::parse_intervals;

// The intervals cut into `parts` runs of about equal bases, in order (fewer parts when
// there are fewer bases), each at least `min_bases` long except the last.
std::vector<std::vector<Interval>> split_intervals(const std::vector<Interval>& intervals, int parts,
                                                   int64_t min_bases);

}  // namespace gatemap::caller

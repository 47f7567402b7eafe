#pragma once
// Parts of a reference as GATK and samtools users write them (call -L, eval vcf --bed):
// "chr" (the whole contig), "chr:beg-end" or "chr:beg" (1-based, inclusive, commas
// allowed), or a BED file (*.bed, *.bed.gz: 0-based, half-open).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gatemap::io {

struct Interval {
  int contig = 0;              // index in `contigs` below (reference order)
  int64_t begin = 0, end = 0;  // 0-based, half-open
};

// Sorted by contig (in the reference's order) and begin; overlapping and touching
// intervals merged. Throws UsageError for a bad region string and FormatError, naming
// the file and line, for a bad BED line: unknown contig, end before begin, begin past
// the contig's end. Ends past a contig's end are clipped to it (as samtools does).
std::vector<Interval> parse_intervals(const std::vector<std::string>& specs,
                                      const std::vector<std::pair<std::string, int64_t>>& contigs);

}  // namespace gatemap::io

#pragma once
// eval/: scoring against simulated truth. Mapping (mapeval-style): a primary alignment
// is correct when on the true contig and strand with its leftmost aligned base within
// `tolerance` bp of where the truth places that read base (so soft clips are accounted
// for, even across an indel); reported per MAPQ threshold.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace gatemap::eval {

struct MapqRow {
  int min_mapq = 0;
  int64_t mapped = 0;  // primary records mapped with MAPQ >= min_mapq
  int64_t wrong = 0;   // of those, not at the truth
};

struct MapEval {
  int64_t total = 0;     // primary records (one per read)
  int64_t unmapped = 0;
  int64_t no_truth = 0;  // names that carry no truth (not counted in rows)
  std::vector<MapqRow> rows;  // thresholds 60, 30, 20, 10, 1, 0
};

// Scores a SAM/BAM/CRAM whose read names carry sim truth. Throws IoError/FormatError.
MapEval eval_map(const std::string& sam_path, int tolerance = 10);
void print_map_eval(const MapEval& e, std::FILE* out);

}  // namespace gatemap::eval

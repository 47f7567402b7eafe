#pragma once
// The scratch space of one thread, passed explicitly to every stage that needs it (no
// hidden thread_local buffers): seeding's hit lists, the DP, Myers and affine buffers,
// reference windows, and the clipped part of a chimeric read. Reused across reads, so
// the data path allocates little per read.
#include <cstdint>
#include <utility>
#include <vector>

#include "io/bam/record_pool.hpp"
#include "mapper/align/affine.hpp"
#include "mapper/align/banded_dp.hpp"
#include "mapper/align/myers.hpp"
#include "mapper/base/types.hpp"

namespace gatemap::mapper::detail {

struct SeedScratch {
  std::vector<uint64_t> hits, merged;
  std::vector<size_t> runs;
  std::vector<SeedCluster> clusters;  // of one strand
  std::vector<uint32_t> order;
  std::vector<std::pair<uint64_t, int>> queries;  // (k-mer key, read offset)
};

struct Workspace {
  SeedScratch seed;
  DpScratch dp;
  std::vector<MyersRow> myers_rows;
  std::vector<char> ops;  // an alignment's path
  AffineScratch affine;
  RefWindow window;        // of the candidate being verified or the mate being rescued
  RefWindow align_window;  // of the alignment being drawn
  SeededRead part;         // a clipped part of a chimeric read, seeded by itself
  SeededRead deep;         // a read seeded again for its deep search
  std::vector<std::pair<uint8_t, int64_t>> tried;  // its candidates tried before (strand, diagonal)
  Alignment clipped_aln;  // of the clipped candidate last verified (its CIGAR and MD kept allocated)
  std::vector<const Candidate*> clip_order;  // the clipped fallback's candidates
  io::RecordCache records;                   // spare records to fill (Mapper::set_record_pool)
};

}  // namespace gatemap::mapper::detail

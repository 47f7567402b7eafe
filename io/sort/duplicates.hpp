#pragma once
// Duplicate marking as Picard MarkDuplicates defines it, for the mapper's sorted output:
// reads are grouped by library and by the unclipped 5' ends and strands of the read
// (fragments) or of both mates (pairs); in each group the copy with the highest sum of base qualities >= 15 stays, the
// others get flag 0x400 (ties: the one first in the coordinate-sorted file). A fragment
// at a place where a pair's end lies is a duplicate. Secondary and supplementary records
// follow their primary. Records arrive in the mapper's order (a read's records together,
// mates adjacent): collect() numbers each read pair (an aux tag carried through the
// sort), decide() marks, mark() sets the flag and drops the tag. The ends are kept within
// a memory budget (beyond it, sorted runs in temporary files: io/sort/spilled_sort.hpp); one
// byte per read pair stays in memory for the decision.
#include <htslib/sam.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "io/sort/spilled_sort.hpp"

namespace gatemap::io {

struct DuplicateCounts {
  int64_t reads = 0, duplicate_reads = 0;  // primary mapped reads examined / marked
  int64_t pairs = 0, duplicate_pairs = 0;
  int64_t fragments = 0, duplicate_fragments = 0;  // reads whose mate is unmapped, or single reads
};

class DuplicateMarker {
 public:
  // budget_bytes: memory for the ends before they spill to files made at temp_path().
  explicit DuplicateMarker(const sam_hdr_t* header, size_t budget_bytes = std::numeric_limits<size_t>::max(),
                           std::function<std::string()> temp_path = {});

  // One batch of records in the mapper's order; tags each record with its pair's number.
  void collect(const std::vector<bam1_t*>& recs);
  // After the last batch: decides which reads are duplicates.
  void decide();
  // Sets BAM_FDUP on a duplicate's records and removes the number tag.
  void mark(bam1_t* rec) const;
  const DuplicateCounts& counts() const { return counts_; }

 private:
  // One end: reference, unclipped 5' coordinate and strand, in one number that orders
  // them as they are (the entries are sorted: small ones sort faster).
  struct End {
    uint64_t key = 0;
    static End of(int32_t tid, int64_t coord, bool reverse);
    bool operator<(const End& o) const { return key < o.key; }
    bool operator==(const End& o) const { return key == o.key; }
  };
  // Where a record will sit in the sorted file (its reference, position and strand, then
  // input order): Picard keeps the first of equally good copies.
  struct FilePlace {
    End at;
    int64_t input;
    bool operator<(const FilePlace& o) const { return at < o.at || (at == o.at && input < o.input); }
  };
  struct PairEnds {
    int32_t library;
    int32_t score;
    End first, second;  // first: the lower end
    FilePlace place;    // of the first end's record
    uint32_t pair;      // pair number
  };
  struct Fragment {
    int32_t library;
    int32_t score;
    End end;
    FilePlace place;
    uint32_t pair;
    bool paired;   // its mate is mapped too (decided as a pair)
    uint8_t mate;  // 0: read 1 or single, 1: read 2
  };
  // Groups in order, and in each group the copies in file order.
  struct PairOrder {
    bool operator()(const PairEnds& a, const PairEnds& b) const;
  };
  struct FragmentOrder {
    bool operator()(const Fragment& a, const Fragment& b) const;
  };

  // One template's (a read's, or a pair's records) entries, worked out on any thread.
  struct TemplateEnds {
    Fragment fragments[2];
    int n_fragments = 0;
    bool paired = false;
    PairEnds pair;
  };

  int32_t library_of(const bam1_t* rec) const;
  // Tags the records [begin, end) with the pair number; false when a tag does not fit.
  bool template_ends(const std::vector<bam1_t*>& recs, size_t begin, size_t end, uint32_t pair, int64_t input,
                     TemplateEnds& out) const;

  std::map<std::string, int32_t> rg_library_;  // read group ID -> library number
  SpilledSort<PairEnds, PairOrder> pairs_;
  SpilledSort<Fragment, FragmentOrder> fragments_;
  std::vector<uint8_t> duplicate_;  // per pair number: bit 0 read 1 (or single), bit 1 read 2
  int64_t input_ = 0;
  DuplicateCounts counts_;
};

}  // namespace gatemap::io

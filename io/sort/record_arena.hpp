#pragma once
// BAM records packed one after another in large blocks: one allocation per block instead
// of two per record. The sorter keeps millions of records until the end; freeing them
// one by one (scattered over the heap) took longer than writing them. The blocks are on
// huge pages where the kernel grants them (io/sort/huge_block.hpp: fewer page faults).
#include <htslib/sam.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "io/sort/huge_block.hpp"

namespace gatemap::io {

class RecordArena {
 public:
  // Room for records of these many bytes in all (bytes_of each), in one piece: filled
  // with store() (from any thread), valid until clear().
  uint8_t* allocate(size_t bytes);
  static void store(const bam1_t* b, uint8_t* at);
  // A record view whose data points into the arena (not to be freed or grown; htslib
  // may change it in place, as bam_aux_del does).
  static void view(const uint8_t* at, bam1_t* out);
  // The bytes a record takes in the arena, from the record or from where it is stored.
  static size_t bytes_of(const bam1_t* b);
  static size_t stored_bytes(const uint8_t* at);
  void clear();

 private:
  static constexpr size_t kBlockBytes = size_t{16} << 20;
  std::vector<HugeBlock> blocks_;
  size_t used_ = 0, capacity_ = 0;  // of the last block
};

}  // namespace gatemap::io

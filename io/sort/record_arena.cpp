#include "io/sort/record_arena.hpp"

#include <algorithm>
#include <cstring>

namespace gatemap::io {

namespace {

// An entry: the core fields, the data length, then the data, each 8-byte aligned (the
// data's CIGAR must be 4-byte aligned, as in a bam1_t).
constexpr size_t kHeader = (sizeof(bam1_core_t) + sizeof(uint32_t) + 7) / 8 * 8;

size_t round8(size_t n) { return (n + 7) / 8 * 8; }

}  // namespace

size_t RecordArena::bytes_of(const bam1_t* b) { return kHeader + round8(static_cast<size_t>(b->l_data)); }

size_t RecordArena::stored_bytes(const uint8_t* at) {
  uint32_t l_data = 0;
  std::memcpy(&l_data, at + sizeof(bam1_core_t), sizeof l_data);
  return kHeader + round8(l_data);
}

uint8_t* RecordArena::allocate(size_t bytes) {
  if (used_ + bytes > capacity_) {
    capacity_ = std::max(kBlockBytes, bytes);
    blocks_.emplace_back(capacity_);  // filled by store()
    used_ = 0;
  }
  uint8_t* at = blocks_.back().data() + used_;
  used_ += bytes;
  return at;
}

void RecordArena::store(const bam1_t* b, uint8_t* at) {
  const uint32_t l_data = static_cast<uint32_t>(b->l_data);
  std::memcpy(at, &b->core, sizeof(bam1_core_t));
  std::memcpy(at + sizeof(bam1_core_t), &l_data, sizeof l_data);
  std::memcpy(at + kHeader, b->data, l_data);
}

void RecordArena::view(const uint8_t* at, bam1_t* out) {
  uint32_t l_data = 0;
  std::memcpy(&out->core, at, sizeof(bam1_core_t));
  std::memcpy(&l_data, at + sizeof(bam1_core_t), sizeof l_data);
  out->l_data = static_cast<int>(l_data);
  out->m_data = l_data;
  out->data = const_cast<uint8_t*>(at + kHeader);
  out->id = 0;
  // Should htslib ever grow it, it copies the data instead of reallocating arena memory.
  bam_set_mempolicy(out, BAM_USER_OWNS_STRUCT | BAM_USER_OWNS_DATA);
}

void RecordArena::clear() {
  blocks_.clear();
  used_ = capacity_ = 0;
}

}  // namespace gatemap::io

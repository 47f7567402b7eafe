#pragma once
// The index file's layout (internal: index.cpp writes and reads it; tests craft damaged
// files with it). A header, then eight sections, each 8-byte aligned with its own
// checksum; the header's checksum covers every header byte before it.
#include <cstddef>
#include <cstdint>

namespace gatemap::index::detail {

constexpr char kMagic[8] = {'G', 'M', 'I', 'N', 'D', 'E', 'X', '\n'};
constexpr uint32_t kVersion = 1;
enum SectionId { kNames, kLengths, kNBegin, kNEnd, kHi, kLo, kOffsets, kPositions, kSections };

struct Section {
  uint64_t offset, bytes, checksum;
};

struct FileHeader {
  char magic[8];
  uint32_t version;
  uint32_t k, stride, bucket_bits, max_occ, n_contigs;
  uint64_t length, n_runs;
  int64_t stats[7];
  Section sections[kSections];
  uint64_t header_checksum;  // of every byte above
};

// Fast 64-bit checksum, computed over 1 MiB chunks in parallel and combined in order,
// so the value does not depend on the thread count.
uint64_t checksum(const void* data, size_t n);

}  // namespace gatemap::index::detail

#pragma once
// A batch's reads kept, from the first reading, as the FASTQ text the corrector writes
// (mate 1's file and mate 2's), with where each read's bases lie in it: the correction
// pass encodes the bases from there, puts the corrected ones back in place and writes the
// text, instead of parsing and formatting every read a second time.
#include <cstdint>
#include <vector>

#include "io/reads/fastq.hpp"
#include "io/sort/huge_block.hpp"

namespace gatemap::correct {

// The text is on huge pages (io::HugeBlock): a large input's is gigabytes written once,
// and with 4 KiB pages the first reading spent its time faulting them in (10 M pairs:
// 3.3 s more than without the text, H200).
struct KeptText {
  io::HugeBlock text[2];       // the records of mate 1's file (or the only one), of mate 2's
  std::vector<size_t> seq_at;  // per read, in batch order: its bases' offset in its file's text
  std::vector<int32_t> len;
  bool paired = false;

  // The batch's reads formatted on `threads` threads; false (nothing kept) when a read has
  // no qualities (FASTA: the correction pass says so) or no memory is left for the text.
  bool keep(const io::ReadBatch& batch, int threads);
  size_t size() const { return len.size(); }
  size_t bytes() const { return text[0].size() + text[1].size() + len.size() * 12; }
  int file_of(size_t read) const { return paired ? static_cast<int>(read % 2) : 0; }
  char* bases(size_t read) const { return text[file_of(read)].chars() + seq_at[read]; }
};

}  // namespace gatemap::correct

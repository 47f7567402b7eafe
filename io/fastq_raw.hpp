#pragma once
// FastqReader's inner parts, shared by its record-by-record path (io/fastq.cpp) and
// the path that splits a batch's records on many threads (io/fastq_split.cpp).
#include <cstdint>
#include <vector>

#include "io/fastq.hpp"

namespace gatemap::io {

// A record's lines (offsets from the line reader's held lines) and where they were, for
// messages.
struct FastqReader::RawRecord {
  int64_t record = 0, header_line = 0, seq_line = 0, qual_line = 0;
  size_t header = 0, header_len = 0, seq = 0, seq_len = 0, qual = 0, qual_len = 0;
  bool fasta = false;  // already converted by read_raw
};

// One thread's share of split_many: the records of [begin, end) of the unread bytes.
struct FastqReader::SplitPart {
  size_t begin = 0, end = 0;
  std::vector<RawRecord> raw;
  std::vector<size_t> record_end;  // per record: the offset after its last line
  std::vector<Read> reads;         // converted; reused across batches
  size_t n = 0;                    // records found and converted
  bool complete = false;           // reached `end` (else it stopped at record n)
};

}  // namespace gatemap::io

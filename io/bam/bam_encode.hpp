#pragma once
// BAM records -> compressed BGZF blocks, one run of records at a time, so that many runs
// can be encoded and compressed on many threads and written in order (io/bam/sam_writer.cpp).
// The bytes are what htslib's bam_write1 writes (SAM/BAM spec 4.2; a CIGAR of more than
// 65535 operations moves to a CG:B,I tag as htslib moves it); blocks are cut at record
// boundaries (a record larger than a block spans several) and compressed by htslib's
// bgzf_compress (libdeflate).
#include <htslib/sam.h>

#include <cstdint>
#include <string>
#include <vector>

#include "io/deflate/bgzf_deflate.hpp"

namespace gatemap::io {

// What a BAM index needs of a record, and where the record ends.
struct IndexedRecord {
  int32_t tid;
  int64_t begin, end;  // bam_endpos
  bool mapped;
  uint64_t end_offset;  // virtual offset of the record's end, counted from its chunk's start
};

struct EncodedChunk {
  std::string bgzf;                    // whole BGZF blocks
  std::vector<IndexedRecord> records;  // one per record, in order
  // Before compression: the uncompressed bytes, where each block begins in them, where
  // each record ends.
  std::string raw;
  std::vector<size_t> block_begin, record_end;
};

// Encodes recs[0, n) into `out` (cleared first) at BGZF compression level `level` (0-9;
// -1: 6, htslib's default) with htslib's bgzf_compress. Throws IoError naming the record
// when BAM cannot hold it (a name over 254 characters, a position over 2^31-1).
// Thread-safe for distinct outputs.
void encode_bam_chunk(const bam1_t* const* recs, size_t n, int level, EncodedChunk& out);

// The same in two steps, for a compressor that takes many blocks at once (the GPU's):
// encode_bam_blocks makes `raw` and its blocks (thread-safe for distinct outputs);
// compress_chunks compresses every block of chunks[0, count) in one batch and fills
// their `bgzf` and record offsets.
void encode_bam_blocks(const bam1_t* const* recs, size_t n, EncodedChunk& out);
void compress_chunks(EncodedChunk* chunks, size_t count, BlockCompressor& compressor);
// compress_chunks in two steps, for a compressor's start(): the chunks' blocks as jobs
// (their room made in `bgzf`), then, once the jobs are complete, each chunk's blocks
// closed up behind one another and its record offsets set.
std::vector<BgzfJob> block_jobs(EncodedChunk* chunks, size_t count);
void close_up_blocks(EncodedChunk* chunks, size_t count, const std::vector<BgzfJob>& jobs);

}  // namespace gatemap::io

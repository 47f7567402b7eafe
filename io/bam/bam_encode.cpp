#include "io/bam/bam_encode.hpp"

#include <htslib/bgzf.h>

#include <climits>
#include <cstring>

#include "common/error.hpp"
#include "io/deflate/bgzf_deflate.hpp"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "BAM is little-endian: written here as the host lays it out");

namespace gatemap::io {

namespace {

constexpr uint32_t kMaxOps = 0xffff;  // CIGAR operations a BAM record holds itself

void put32(std::string& s, uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); }

// One record in BAM's layout (as bam_write1 writes it) appended to `s`.
void append_record(const bam1_t* b, std::string& s) {
  const bam1_core_t& c = b->core;
  const uint32_t name_len = c.l_qname - c.l_extranul;  // without the alignment padding
  if (name_len > 255) {
    throw IoError("read '" + std::string(bam_get_qname(b)) + "': name longer than 254 characters, which BAM cannot hold");
  }
  if (c.pos > INT_MAX || c.mpos > INT_MAX || c.isize < INT_MIN || c.isize > INT_MAX) {
    throw IoError("read '" + std::string(bam_get_qname(b)) + "': position beyond 2^31-1, which BAM cannot hold");
  }
  const bool long_cigar = c.n_cigar > kMaxOps;
  const uint32_t block_len = static_cast<uint32_t>(b->l_data) - c.l_extranul + 32 + (long_cigar ? 16 : 0);
  const uint32_t x[8] = {static_cast<uint32_t>(c.tid),
                         static_cast<uint32_t>(c.pos),
                         uint32_t{c.bin} << 16 | uint32_t{c.qual} << 8 | name_len,
                         uint32_t{c.flag} << 16 | (long_cigar ? 2 : c.n_cigar),
                         static_cast<uint32_t>(c.l_qseq),
                         static_cast<uint32_t>(c.mtid),
                         static_cast<uint32_t>(c.mpos),
                         static_cast<uint32_t>(c.isize)};
  put32(s, block_len);
  s.append(reinterpret_cast<const char*>(x), sizeof x);
  const char* data = reinterpret_cast<const char*>(b->data);
  s.append(data, name_len);
  if (!long_cigar) {
    s.append(data + c.l_qname, static_cast<size_t>(b->l_data) - c.l_qname);
    return;
  }
  // As htslib: a placeholder CIGAR (<read length>S<reference length>N), the rest of the
  // record, then the real CIGAR as CG:B,I.
  const int64_t ref_len = bam_cigar2rlen(static_cast<int>(c.n_cigar), bam_get_cigar(b));
  if (ref_len >= (int64_t{1} << 28)) {
    throw IoError("read '" + std::string(bam_get_qname(b)) + "': a CIGAR this long cannot be written in BAM");
  }
  const uint32_t cigar_begin = c.l_qname, cigar_end = cigar_begin + c.n_cigar * 4;
  put32(s, static_cast<uint32_t>(c.l_qseq) << 4 | BAM_CSOFT_CLIP);
  put32(s, static_cast<uint32_t>(ref_len) << 4 | BAM_CREF_SKIP);
  s.append(data + cigar_end, static_cast<size_t>(b->l_data) - cigar_end);
  s.append("CGBI", 4);
  put32(s, c.n_cigar);
  s.append(data + cigar_begin, c.n_cigar * 4);
}

}  // namespace

void encode_bam_blocks(const bam1_t* const* recs, size_t n, EncodedChunk& out) {
  out.bgzf.clear();
  out.raw.clear();
  out.records.resize(n);
  out.record_end.resize(n);
  for (size_t i = 0; i < n; ++i) {
    append_record(recs[i], out.raw);
    out.record_end[i] = out.raw.size();
    const bam1_t* b = recs[i];
    out.records[i] = {b->core.tid, b->core.pos, bam_endpos(b), !(b->core.flag & BAM_FUNMAP), 0};
  }
  // Blocks cut at record boundaries: a record starts a new block when it does not fit
  // in the current one; one larger than a block fills whole blocks.
  out.block_begin.clear();
  size_t begin = 0;
  for (size_t i = 0; i < n; ++i) {
    const size_t record_begin = i ? out.record_end[i - 1] : 0;
    if (out.record_end[i] - begin > BGZF_BLOCK_SIZE && record_begin > begin) {
      out.block_begin.push_back(begin);
      begin = record_begin;
    }
    while (out.record_end[i] - begin > BGZF_BLOCK_SIZE) {
      out.block_begin.push_back(begin);
      begin += BGZF_BLOCK_SIZE;
    }
  }
  if (out.raw.size() > begin) out.block_begin.push_back(begin);
}

namespace {

size_t block_end(const EncodedChunk& chunk, size_t k) {
  return k + 1 < chunk.block_begin.size() ? chunk.block_begin[k + 1] : chunk.raw.size();
}

// Each record's end as a virtual offset from the chunk's start, given where each block
// went in `bgzf`. A record ending where a block ends points at the next block's start,
// as htslib's bgzf_tell does after a full block.
void set_record_offsets(EncodedChunk& chunk, const std::vector<uint64_t>& block_address) {
  size_t k = 0;
  for (size_t i = 0; i < chunk.records.size(); ++i) {
    while (k + 1 < chunk.block_begin.size() && chunk.block_begin[k + 1] <= chunk.record_end[i]) ++k;
    chunk.records[i].end_offset = block_address[k] << 16 | (chunk.record_end[i] - chunk.block_begin[k]);
  }
}

}  // namespace

void encode_bam_chunk(const bam1_t* const* recs, size_t n, int level, EncodedChunk& out) {
  encode_bam_blocks(recs, n, out);
  std::vector<uint64_t> block_address(out.block_begin.size());
  for (size_t k = 0; k < out.block_begin.size(); ++k) {
    block_address[k] = out.bgzf.size();
    out.bgzf.resize(block_address[k] + BGZF_MAX_BLOCK_SIZE);
    size_t len = BGZF_MAX_BLOCK_SIZE;
    if (bgzf_compress(out.bgzf.data() + block_address[k], &len, out.raw.data() + out.block_begin[k],
                      block_end(out, k) - out.block_begin[k], level) != 0) {
      throw IoError("BGZF compression failed");
    }
    out.bgzf.resize(block_address[k] + len);
  }
  set_record_offsets(out, block_address);
}

std::vector<BgzfJob> block_jobs(EncodedChunk* chunks, size_t count) {
  // Room for each block at its most, made on all threads (a window's is hundreds of MB).
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t c = 0; c < count; ++c) chunks[c].bgzf.resize(chunks[c].block_begin.size() * BGZF_MAX_BLOCK_SIZE);
  std::vector<BgzfJob> jobs;
  for (size_t c = 0; c < count; ++c) {
    EncodedChunk& chunk = chunks[c];
    for (size_t k = 0; k < chunk.block_begin.size(); ++k) {
      BgzfJob job;
      job.in = reinterpret_cast<const uint8_t*>(chunk.raw.data()) + chunk.block_begin[k];
      job.size = static_cast<uint32_t>(block_end(chunk, k) - chunk.block_begin[k]);
      job.out = reinterpret_cast<uint8_t*>(chunk.bgzf.data()) + k * BGZF_MAX_BLOCK_SIZE;
      jobs.push_back(job);
    }
  }
  return jobs;
}

void close_up_blocks(EncodedChunk* chunks, size_t count, const std::vector<BgzfJob>& jobs) {
  std::vector<size_t> first_job(count + 1, 0);
  for (size_t c = 0; c < count; ++c) first_job[c + 1] = first_job[c] + chunks[c].block_begin.size();
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t c = 0; c < count; ++c) {
    EncodedChunk& chunk = chunks[c];
    std::vector<uint64_t> block_address(chunk.block_begin.size());
    size_t at = 0;
    for (size_t k = 0; k < chunk.block_begin.size(); ++k) {
      const BgzfJob& job = jobs[first_job[c] + k];
      block_address[k] = at;
      std::memmove(chunk.bgzf.data() + at, job.out, job.out_size);
      at += job.out_size;
    }
    chunk.bgzf.resize(at);
    set_record_offsets(chunk, block_address);
  }
}

void compress_chunks(EncodedChunk* chunks, size_t count, BlockCompressor& compressor) {
  std::vector<BgzfJob> jobs = block_jobs(chunks, count);
  compressor.compress(jobs.data(), jobs.size());
  close_up_blocks(chunks, count, jobs);
}

}  // namespace gatemap::io

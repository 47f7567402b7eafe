#pragma once
// SAM/BAM output through htslib. The header carries @HD VN:1.6 SO:unsorted GO:query,
// one @SQ per contig, an optional @RG (from -R) and @PG with the full command line.
// BAM is chosen by a ".bam" suffix: write_all() encodes and compresses its records on
// `threads` OpenMP threads (io/bam/bam_encode.hpp) and writes them in order, as it formats
// plain SAM; ".sam.gz" writes bgzipped SAM; CRAM and other compressed suffixes are
// refused (UsageError). Every write is checked: a failed write or close (full disk)
// throws IoError.
#include <htslib/sam.h>

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "io/early_writeback.hpp"
#include "io/output_file.hpp"

namespace gatemap::io {

struct EncodedChunk;  // io/bam/bam_encode.hpp
class BlockCompressor;  // io/deflate/bgzf_deflate.hpp
class CompressPool;     // io/bam/compress_pool.hpp

// Records made ready to write by whoever made them (several threads at once, e.g. one per
// GPU lane), so that the file's own writer only copies bytes: BAM encoded and
// compressed (by a compress pool's workers, or by write_prepared with the writer's block
// compressor), plain SAM formatted. Reused between batches.
struct PreparedRecords {
  std::vector<EncodedChunk> chunks;  // BAM
  std::vector<std::string> text;     // SAM, a piece per chunk of records
  size_t count = 0;                  // pieces in use
  size_t records = 0;
  bool compressed = true;  // BAM: false when the writer's block compressor is still to run
  std::future<void> compressing;  // BAM: a compress pool at work on the chunks
  PreparedRecords();
  ~PreparedRecords();  // waits for the pool's work on its chunks
};

struct SamHeaderInfo {
  std::vector<std::pair<std::string, int64_t>> contigs;  // name, length
  std::string read_group;    // "@RG\tID:x\t..." as given to -R (a literal "\t" means tab); may be empty
  std::vector<std::string> input_read_groups;  // or the @RG lines of the reads' own SAM/BAM/CRAM header
  std::vector<std::string> comment_lines;      // the @CO lines of the reads' own header, kept
  std::string command_line;  // for @PG CL
  std::string version;       // for @PG VN
  bool coordinate_sorted = false;  // @HD SO:coordinate (else SO:unsorted GO:query)
  std::string reference;           // the FASTA CRAM output is encoded against (its contigs must be these)
  bool cram_nm_md = true;          // CRAM keeps NM and MD as written (htsjdk/Picard readers do not rebuild them)
};

// Parses a -R value: turns literal "\t" into tabs, checks "@RG" and an ID field.
// Returns the normalized line and sets id; throws UsageError when malformed.
std::string parse_read_group(const std::string& value, std::string& id);

// The htslib mode for an output path ("wb" BAM, "wc" CRAM, "wz" bgzipped SAM, "w" SAM);
// throws UsageError for other suffixes this writer does not produce.
const char* sam_output_mode(const std::string& path);

class SamWriter {
 public:
  // path "-" or "" writes SAM to stdout. level: BGZF compression level 0-9 of BAM and
  // .sam.gz output (-1: htslib's default, 6).
  SamWriter(const std::string& path, const SamHeaderInfo& info, int threads = 1, int level = -1);
  ~SamWriter();  // closes without throwing; call close() to see errors
  SamWriter(const SamWriter&) = delete;
  SamWriter& operator=(const SamWriter&) = delete;

  // One record (BAM: gathered, then written as write_all writes).
  void write(const bam1_t* rec);
  // All of them, in order: plain SAM formatted, BAM encoded and compressed in parallel
  // (OpenMP), then written.
  void write_all(const std::vector<bam1_t*>& recs);
  // Whether prepare() works for this output: BAM and plain SAM, not bgzipped SAM.
  bool can_prepare() const { return bam_ || plain_sam_; }
  // Encodes (BAM) or formats (SAM) recs into `out` on the calling thread's OpenMP team;
  // thread-safe (several callers at once, each with its own `pool`). Throws IoError
  // naming the record BAM cannot hold. BAM is compressed by `pool` when given (e.g. the
  // caller's GPU; write_prepared waits for it), else here by htslib at the writer's
  // level, unless the writer has a block compressor of its own: then write_prepared
  // compresses it.
  void prepare(const std::vector<bam1_t*>& recs, PreparedRecords& out, CompressPool* pool = nullptr) const;
  // Writes what prepare() made, after everything written before.
  void write_prepared(PreparedRecords& p);
  // Records 0..n-1 in order, each given by record_at(i, view), which returns the record
  // (it may fill and return `view`, valid until the record is written). record_at is
  // called from several threads at once. BAM only.
  using RecordAt = std::function<const bam1_t*(size_t i, bam1_t* view)>;
  void write_bam(size_t n, const RecordAt& record_at);
  // BAM's blocks compressed by `c` (the GPU's) instead of htslib's bgzf_compress, on the
  // writing thread (write_prepared, and write_bam's writer while the next window is encoded).
  void set_block_compressor(std::shared_ptr<BlockCompressor> c) { compressor_ = std::move(c); }
  // Builds the index while writing (BAM in coordinate order only; call before the first
  // record): close() saves it to index_path (.bai with min_shift 0, .csi with 14) after
  // the BAM is in place (an old index of that name is removed first).
  void write_index(const std::string& index_path, int min_shift);
  void close();
  sam_hdr_t* header() { return hdr_; }
  const std::string& read_group_id() const { return rg_id_; }
  int64_t records_written() const { return written_; }
  // write_bam's time so far (-v 4): its windows encoded, its wait for the writing thread,
  // and there compressing (block compressor only), writing and indexing.
  struct BamLaps {
    double encode_s = 0, wait_s = 0, compress_s = 0, write_s = 0, index_s = 0;
  };
  const BamLaps& bam_laps() const { return laps_; }

 private:
  std::string path_;
  OutputFile out_;  // a temporary name until close() succeeds
  htsFile* fp_ = nullptr;
  std::unique_ptr<EarlyWriteback> writeback_;  // the file's pages go to disk as they come
  sam_hdr_t* hdr_ = nullptr;
  std::string rg_id_;
  struct BamState;  // BAM output: where the next block goes, the index, records gathered
  void write_gathered();
  // A chunk of BAM records encoded, and compressed by htslib unless `defer` (a block
  // compressor does it later).
  void encode(const bam1_t* const* recs, size_t n, bool defer, EncodedChunk& out) const;
  void encode_window(size_t from, size_t count, size_t n, const RecordAt& record_at,
                     std::vector<EncodedChunk>& encoded);
  // Writes encoded chunks [0, count) in order and tells the index where their records are.
  void write_chunks(const std::vector<EncodedChunk>& chunks, size_t count);
  // The two halves: the chunks' bytes (starts: where each begins in the file), then
  // their records told to the index (on a thread of its own in write_bam).
  void write_chunk_bytes(const std::vector<EncodedChunk>& chunks, size_t count, std::vector<uint64_t>& starts);
  void index_chunks(const std::vector<EncodedChunk>& chunks, size_t count, const std::vector<uint64_t>& starts);
  std::unique_ptr<BamState> bam_;
  std::shared_ptr<BlockCompressor> compressor_;
  bool plain_sam_ = false;  // text straight to the file: write_all formats it in parallel
  std::unique_ptr<OutputFile> cram_index_;  // CRAM's .crai, built by htslib while writing
  int threads_ = 1;
  int64_t written_ = 0;
  int64_t indexed_ = 0;  // records told to the index
  BamLaps laps_;
};

}  // namespace gatemap::io

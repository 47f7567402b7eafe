#pragma once
// SAM, BAM or CRAM input opened as every reader here needs it: a BGZF file's end checked
// (one cut at a block boundary reads as complete), BGZF inflated on `threads` threads,
// CRAM decoded against the reference given (never one its header names: a moved file, or
// a download by checksum), the header read. Records in file order, or through the index
// for a region. The only place that opens SAM/BAM/CRAM for reading.
#include <htslib/sam.h>

#include <cstdint>
#include <string>

namespace gatemap::io {

class SamReader {
 public:
  // Throws IoError when the file cannot be opened, FormatError when it is no SAM/BAM/CRAM
  // or is cut short, UsageError for CRAM without `reference`.
  explicit SamReader(const std::string& path, int threads = 1, const std::string& reference = "");
  ~SamReader();
  SamReader(const SamReader&) = delete;
  SamReader& operator=(const SamReader&) = delete;

  // Whether a regular file is SAM, BAM or CRAM (htslib's detection); false for anything
  // else, and for pipes and stdin, which a look would consume.
  static bool is_sam_bam_cram(const std::string& path);

  const std::string& path() const { return path_; }
  sam_hdr_t* header() const { return hdr_; }
  bool cram() const { return cram_; }
  // The next record into b, in file order or (after query) of the region; false at the
  // end. Throws FormatError naming the file and the record after which it broke.
  bool next(bam1_t* b);
  int64_t records_read() const { return records_; }
  // From now on the records overlapping [begin, end) of contig tid, through the index
  // (.bai/.csi/.crai); FormatError, saying how to make one, when there is none.
  void query(int tid, int64_t begin, int64_t end);
  void load_index();

 private:
  void release();

  std::string path_;
  samFile* fp_ = nullptr;
  sam_hdr_t* hdr_ = nullptr;
  hts_idx_t* idx_ = nullptr;  // loaded by the first query
  hts_itr_t* itr_ = nullptr;  // the current query; null: the whole file in order
  bool cram_ = false;
  int64_t records_ = 0;
};

}  // namespace gatemap::io

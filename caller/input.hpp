#pragma once
// Coordinate-sorted SAM/BAM input, several files merged by position, filtered as the
// caller wants (unmapped, secondary, supplementary, duplicate, QC-fail, low MAPQ out).
// Samples are the @RG lines' SM (one name in several files is one sample, as GATK's); a
// read's sample is its RG's, or its file's only sample. A file without SM is the sample
// "sample" (files of one sample's lanes merge).
#include <htslib/sam.h>

#include <memory>
#include <string>
#include <vector>

#include "caller/detail.hpp"

namespace gatemap::caller {

class ReadInput {
 public:
  // BAM/BGZF input is decompressed on `threads` threads (htslib's pool) per file; CRAM
  // is decoded against `reference` (the call's -r), not the one its header names.
  ReadInput(const std::vector<std::string>& paths, int min_mapq, int threads = 1, const std::string& reference = "");
  ~ReadInput();
  ReadInput(const ReadInput&) = delete;
  ReadInput& operator=(const ReadInput&) = delete;
  // Contig names and lengths of the (first) header, and the samples in order of appearance.
  const std::vector<std::string>& contigs() const { return contigs_; }
  const std::vector<int64_t>& contig_lengths() const { return lengths_; }
  const std::vector<std::string>& samples() const { return samples_; }
  // Next kept read in coordinate order; false at the end. Unplaced records (RNAME '*')
  // are skipped wherever they are. Throws FormatError, naming the file and record, when a
  // file is not coordinate-sorted, a record lies outside its contig, its read group is
  // not in a header of several samples, or headers disagree.
  bool next(int& tid, detail::AlignedRead& read);
  // The same, as the record itself (valid until the next call; null at the end) and its
  // sample, and the conversion next() applies to it (the sample aside).
  const bam1_t* next_record(int& tid, int& sample);
  static void to_read(const bam1_t* record, detail::AlignedRead& read);
  // From now on only the reads overlapping [begin, end) of contig tid, through each
  // input's index (.bai/.csi; a clear error when one has none).
  void query(int tid, int64_t begin, int64_t end);
  // Loads every input's index now (the clear error of query() before any output).
  void load_indexes();
  int64_t seen() const { return seen_; }
  int64_t filtered() const { return filtered_; }
  int64_t unplaced() const { return unplaced_; }

 private:
  struct File;
  bool fill(File& f);
  std::vector<std::unique_ptr<File>> files_;
  std::vector<std::string> contigs_;
  std::vector<int64_t> lengths_;
  std::vector<std::string> samples_;
  bam1_t* spare_ = nullptr;  // the record handed out last (swapped with a file's)
  int min_mapq_;
  int64_t seen_ = 0, filtered_ = 0, unplaced_ = 0;
};

}  // namespace gatemap::caller

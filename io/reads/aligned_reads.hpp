#pragma once
// Reads from SAM, BAM or CRAM (an unmapped BAM as GATK's best practice starts from, or a
// BAM mapped before), as FASTQ would give them: primary records only (secondary and
// supplementary ones repeat a read), reverse-strand records turned back to the read's own
// orientation, quality 0xff (none) as a FASTA read's. A record's read group goes into
// the read's comment as "RG:Z:ID" (as `samtools fastq -T RG` writes it for bwa mem -C),
// so that the mapper can carry it; the header's @RG lines are kept for the output. With
// keep_tags (map -C) the record's other tags ride along too, as BAM stores them (BX, RX,
// OQ of an unmapped BAM), but for those a new alignment replaces (kAlignmentTags).
#include <htslib/sam.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "io/reads/fastq.hpp"
#include "io/reads/sam_reader.hpp"

namespace gatemap::io {

// Adds tags kept by AlignedReads (Read::tags) to a record.
void append_kept_tags(bam1_t* b, const std::string& tags);

class AlignedReads : public ReadRecords {
 public:
  // Throws IoError when the file cannot be opened, FormatError when it is no SAM/BAM/CRAM.
  // BGZF blocks are inflated on `threads` threads; CRAM is decoded against `reference`
  // (a FASTA), which it needs (UsageError without one).
  AlignedReads(const std::string& path, int threads, const std::string& reference = "", bool keep_tags = false);
  ~AlignedReads() override;
  AlignedReads(const AlignedReads&) = delete;
  AlignedReads& operator=(const AlignedReads&) = delete;

  // Mates are told by their flags (Read::mate). A file sorted by coordinate whose reads
  // are paired is an error: its mates are not next to each other.
  size_t next_many(std::vector<Read>& out, size_t want, int threads) override;
  int64_t records_read() const override { return in_.records_read(); }
  const std::string& path() const override { return in_.path(); }
  const std::vector<std::string>& read_groups() const { return read_groups_; }  // @RG lines
  const std::vector<std::string>& comment_lines() const { return comment_lines_; }  // @CO lines

 private:
  void convert(const bam1_t* b, int64_t number, Read& read) const;  // number: in the file, for messages
  static void kept_tags(const bam1_t* b, std::string& out);          // keep_tags: the tags that stay

  SamReader in_;
  std::vector<bam1_t*> raw_;     // records read, reused: converted on several threads
  std::vector<int64_t> numbers_;  // their numbers in the file, for messages
  bool by_coordinate_ = false;
  std::vector<std::string> read_groups_, comment_lines_;
  bool keep_tags_ = false;
  std::unordered_set<std::string> group_ids_;  // the @RG lines' IDs
  mutable std::atomic<bool> warned_undeclared_group_{false};  // an RG tag no @RG line declares, said once
};

}  // namespace gatemap::io

#pragma once
// Building BAM records for mapped, unmapped and secondary reads.
#include <htslib/sam.h>

#include <string>
#include <vector>

#include "io/bam/record_pool.hpp"
#include "io/reads/fastq.hpp"
#include "mapper/align/banded_dp.hpp"

namespace gatemap::mapper::detail {

struct MateInfo {
  int32_t tid = -1;
  int64_t pos = -1;
  bool reverse = false;
  bool unmapped = true;
  int64_t tlen = 0;
  const Alignment* aln = nullptr;  // the mate's primary alignment: MC:Z, as bwa mem writes
};

struct RecordFields {
  uint16_t flag = 0;
  int32_t tid = -1;
  int64_t pos = -1;       // 0-based, contig-local
  int mapq = 0;
  bool reverse = false;
  const Alignment* aln = nullptr;  // null for unmapped
  int score = 0;                   // AS: bwa-mem's alignment score (mapper/alignment_score.hpp)
  int second_score = 0;            // XS: of the best other placement, 0 without one
  MateInfo mate;
  std::string sa;                  // SA:Z (the other parts of a chimeric read), "" for none
  std::string xa;                  // XA:Z (the read's other placements), "" for none
};

// One SA:Z entry: "contig,pos,strand,CIGAR,MAPQ,NM;" (pos 0-based here, 1-based in the
// entry; the CIGAR's clips soft, as bwa mem writes them).
std::string sa_entry(const std::string& contig, int64_t pos, bool reverse, const std::vector<uint32_t>& cigar,
                     int mapq, int nm);

// One XA:Z entry: "contig,+pos,CIGAR,NM;" (strand as the sign of the 1-based pos), as bwa mem.
std::string xa_entry(const std::string& contig, int64_t pos, bool reverse, const std::vector<uint32_t>& cigar,
                     int nm);

// The CIGAR with `left` and `right` more read bases clipped by `op` (BAM_CSOFT_CLIP
// merges into soft clips already there; BAM_CHARD_CLIP goes outside them).
std::vector<uint32_t> with_clips(const std::vector<uint32_t>& cigar, int left, int right, int op);

// A new record (caller owns it) from the read in its original orientation. With
// copy_comment the read's FASTQ comment, whitespace-separated SAM tags (TAG:TYPE:VALUE,
// types A i f Z H), is added to it as bwa mem -C does; check_comment_tags first.
// The record is cache's (a spare reused, or a new one).
bam1_t* make_record(const io::Read& read, const RecordFields& f, const std::string& read_group, bool copy_comment,
                    io::RecordCache& cache);

// Throws FormatError, naming the read and the field, if its comment is not all SAM tags.
void check_comment_tags(const io::Read& read);

}  // namespace gatemap::mapper::detail

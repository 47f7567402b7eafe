#pragma once
// Records of a chimeric read, as bwa mem writes them: the primary record and one record
// per part (a long soft clip of the primary alignment mapped by itself elsewhere),
// supplementary (or secondary with -M), hard-clipped (soft with -Y), each with SA:Z
// naming the others.
#include <htslib/sam.h>

#include <string>
#include <vector>

#include "index/index.hpp"
#include "io/reads/fastq.hpp"
#include "mapper/placement.hpp"
#include "mapper/sam_record.hpp"

namespace gatemap::mapper::detail {

struct ChimericStyle {
  bool as_secondary = false;  // -M
  bool soft_clip = false;     // -Y
  std::string read_group;
  bool copy_comment = false;
};

// Appends the primary record (its SA:Z set from the parts) and the parts' records to out.
// primary: the primary's fields (contig-local position), its mate's included.
void append_chimeric_records(const io::Read& read, RecordFields& primary, const std::vector<SplitPart>& parts,
                             const index::Index& idx, const ChimericStyle& style, std::vector<bam1_t*>& out,
                             io::RecordCache& cache);

}  // namespace gatemap::mapper::detail

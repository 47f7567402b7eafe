#pragma once
// Records (mapper stage 6): placements -> SAM/BAM records, the mapper's only htslib
// user; it formats what placement decided and never seeds or aligns. Flags, mate fields
// and TLEN, AS/XS, XA:Z, SA:Z and the records of chimeric parts and (-a) secondary hits.
#include <htslib/sam.h>

#include <vector>

#include "io/reads/fastq.hpp"
#include "mapper/base/options.hpp"
#include "mapper/base/reference.hpp"
#include "mapper/placement.hpp"

namespace gatemap::mapper::detail {

// Appends a single read's records to out (caller owns them: bam_destroy1).
void single_records(const io::Read& read, const ReadPlacement& p, const Reference& ref, const OutputOptions& opt,
                    std::vector<bam1_t*>& out, io::RecordCache& cache);

// Appends each mate's records to out[m].
void pair_records(const io::Read& read1, const io::Read& read2, const PairPlacement& pp, const Reference& ref,
                  const OutputOptions& opt, std::vector<bam1_t*>& out1, std::vector<bam1_t*>& out2,
                  io::RecordCache& cache);

}  // namespace gatemap::mapper::detail

#pragma once
// A BGZF file cut short at a block boundary reads as complete: only its missing EOF
// marker tells. Every BGZF input (FASTQ, FASTA, BAM, VCF) is checked when opened, so a
// truncated file is an error, not a silently smaller input. Pipes cannot be checked.
#include <htslib/bgzf.h>
#include <htslib/hts.h>

#include <string>

namespace gatemap::io {

// Throws FormatError naming the file when fp is BGZF, seekable, and lacks the marker.
void require_bgzf_eof(BGZF* fp, const std::string& path);
void require_bgzf_eof(htsFile* fp, const std::string& path);

}  // namespace gatemap::io

#pragma once
// Coordinate sort of a small SAM/BAM in memory (demo and tests; for real data use
// `samtools sort`). Writes BAM; unmapped reads last. Throws IoError/FormatError.
#include <string>

namespace gatemap::io {

void sort_sam_in_memory(const std::string& in_path, const std::string& out_bam);

}  // namespace gatemap::io

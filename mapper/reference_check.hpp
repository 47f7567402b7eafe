#pragma once
// CRAM stores bases as differences from the reference FASTA: written against another
// sequence of the same shape (names and lengths alike) it decodes as other reads. Before a
// CRAM is written, the FASTA (-T) is compared with the index's reference base by base (as
// the index keeps it: upper case, any letter but A, C, G, T an N), a stronger check than
// @SQ M5 (the index keeps no MD5).
#include <string>

#include "index/index.hpp"

namespace gatemap::mapper {

// Throws UsageError naming -T, the contig and the first position (1-based) that differs;
// IoError when the FASTA cannot be read. Reads the FASTA once on `threads` threads.
void check_reference_matches_index(const index::Index& idx, const std::string& fasta, int threads);

}  // namespace gatemap::mapper

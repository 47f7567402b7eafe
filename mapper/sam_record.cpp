#include "mapper/sam_record.hpp"

#include <algorithm>

#include "common/dna.hpp"
#include "common/error.hpp"

namespace gatemap::mapper::detail {

bam1_t* make_record(const io::Read& read, const RecordFields& f, const std::string& read_group) {
  std::string seq = read.seq, qual = read.qual;
  if (f.reverse) {
    seq = reverse_complement(seq);
    std::reverse(qual.begin(), qual.end());
  }
  for (auto& q : qual) q = static_cast<char>(q - 33);
  bam1_t* b = bam_init1();
  const uint32_t* cigar = f.aln ? f.aln->cigar.data() : nullptr;
  const size_t n_cigar = f.aln ? f.aln->cigar.size() : 0;
  const int ret = bam_set1(b, read.name.size(), read.name.c_str(), f.flag, f.tid, f.pos, static_cast<uint8_t>(f.mapq),
                           n_cigar, cigar, f.mate.tid, f.mate.pos, f.mate.tlen, seq.size(), seq.c_str(),
                           qual.empty() ? nullptr : qual.c_str(), 64);  // FASTA reads: QUAL '*'
  if (ret < 0) {
    bam_destroy1(b);
    throw Error("cannot build the SAM record of read '" + read.name + "'");
  }
  if (f.aln) {
    const int32_t nm = f.aln->edits;
    bam_aux_append(b, "NM", 'i', 4, reinterpret_cast<const uint8_t*>(&nm));
    bam_aux_append(b, "MD", 'Z', static_cast<int>(f.aln->md.size() + 1),
                   reinterpret_cast<const uint8_t*>(f.aln->md.c_str()));
    const int32_t as = f.score;
    bam_aux_append(b, "AS", 'i', 4, reinterpret_cast<const uint8_t*>(&as));
    if (f.has_second) {
      const int32_t xs = f.second;
      bam_aux_append(b, "XS", 'i', 4, reinterpret_cast<const uint8_t*>(&xs));
    }
  }
  if (f.mate.aln && !f.mate.unmapped && !f.mate.aln->cigar.empty()) {
    std::string mc;
    for (uint32_t c : f.mate.aln->cigar) mc += std::to_string(bam_cigar_oplen(c)) + BAM_CIGAR_STR[bam_cigar_op(c)];
    bam_aux_append(b, "MC", 'Z', static_cast<int>(mc.size() + 1), reinterpret_cast<const uint8_t*>(mc.c_str()));
  }
  if (!read_group.empty()) {
    bam_aux_append(b, "RG", 'Z', static_cast<int>(read_group.size() + 1),
                   reinterpret_cast<const uint8_t*>(read_group.c_str()));
  }
  return b;
}

}  // namespace gatemap::mapper::detail

#include "mapper/chimeric.hpp"

#include <algorithm>

namespace gatemap::mapper::detail {

void append_chimeric_records(const io::Read& read, RecordFields& primary, const std::vector<SplitPart>& parts,
                             const index::Index& idx, const ChimericStyle& style, std::vector<bam1_t*>& out,
                             io::RecordCache& cache) {
  const int m = static_cast<int>(read.seq.size());
  const auto& contigs = idx.contigs();
  const auto part_cigar = [&](const SplitPart& p, int op) {  // clips in the part's strand's orientation
    const int before = p.read_begin, after = m - p.read_end;
    return p.strand == 0 ? with_clips(p.aln.cigar, before, after, op) : with_clips(p.aln.cigar, after, before, op);
  };
  std::vector<std::string> entries;
  for (const SplitPart& p : parts) {
    entries.push_back(sa_entry(contigs[p.contig].name, p.aln.ref_begin - contigs[p.contig].begin, p.strand == 1,
                               part_cigar(p, BAM_CSOFT_CLIP), p.mapq, p.aln.edits));
  }
  const std::string primary_entry = sa_entry(contigs[primary.tid].name, primary.pos, primary.reverse,
                                             primary.aln->cigar, primary.mapq, primary.aln->edits);
  for (const auto& e : entries) primary.sa += e;
  out.push_back(make_record(read, primary, style.read_group, style.copy_comment, cache));
  for (size_t i = 0; i < parts.size(); ++i) {
    const SplitPart& p = parts[i];
    RecordFields pf = primary;
    pf.flag = static_cast<uint16_t>((primary.flag & ~BAM_FREVERSE) | (p.strand ? BAM_FREVERSE : 0) |
                                    (style.as_secondary ? BAM_FSECONDARY : BAM_FSUPPLEMENTARY));
    pf.reverse = p.strand == 1;
    pf.tid = static_cast<int32_t>(p.contig);
    pf.pos = p.aln.ref_begin - contigs[p.contig].begin;
    pf.mapq = p.mapq;
    pf.score = p.score;
    pf.second_score = p.second_score;
    pf.mate.tlen = 0;
    pf.xa.clear();  // the primary's other placements are not the part's
    if (!pf.mate.unmapped && pf.mate.aln && pf.mate.tid == pf.tid) {  // as for the primary
      const int64_t begin = p.aln.ref_begin, mate_begin = pf.mate.aln->ref_begin;
      const int64_t span = std::max(p.aln.ref_end, pf.mate.aln->ref_end) - std::min(begin, mate_begin);
      const bool leftmost = begin < mate_begin || (begin == mate_begin && (primary.flag & BAM_FREAD1));
      pf.mate.tlen = leftmost ? span : -span;
    }
    pf.sa = primary_entry;
    for (size_t j = 0; j < parts.size(); ++j) {
      if (j != i) pf.sa += entries[j];
    }
    Alignment pa = p.aln;
    pa.cigar = part_cigar(p, style.soft_clip ? BAM_CSOFT_CLIP : BAM_CHARD_CLIP);
    pf.aln = &pa;
    io::Read shown = read;  // hard clips leave only the part's bases in SEQ and QUAL
    if (!style.soft_clip) {
      shown.seq = read.seq.substr(p.read_begin, p.read_end - p.read_begin);
      if (!read.qual.empty()) shown.qual = read.qual.substr(p.read_begin, p.read_end - p.read_begin);
    }
    out.push_back(make_record(shown, pf, style.read_group, style.copy_comment, cache));
  }
}

}  // namespace gatemap::mapper::detail

#include "mapper/records.hpp"

#include <algorithm>

#include "mapper/chimeric.hpp"
#include "mapper/sam_record.hpp"

namespace gatemap::mapper::detail {

namespace {

// A read's records: primary (unmapped when p.hit is null, at its mate's place if the
// mate is mapped), its chimeric parts, and with -a its other hits as secondary records.
void read_records(const io::Read& read, const ReadPlacement& p, uint16_t flags, const MateInfo& mate,
                  const Reference& ref, const OutputOptions& opt, std::vector<bam1_t*>& out, io::RecordCache& cache) {
  RecordFields rf;
  rf.flag = flags;
  rf.mate = mate;
  if (!p.hit) {
    rf.flag |= BAM_FUNMAP;
    if (!mate.unmapped) {
      rf.tid = mate.tid;
      rf.pos = mate.pos;
    }
    rf.mate.tlen = 0;
  } else {
    rf.aln = &p.aln;
    rf.reverse = p.hit->strand == 1;
    if (rf.reverse) rf.flag |= BAM_FREVERSE;
    rf.tid = static_cast<int32_t>(p.hit->contig);
    rf.pos = p.aln.ref_begin - ref.contig_begin(p.hit->contig);
    rf.mapq = p.mapq;
    rf.score = p.score;
    rf.second_score = p.second_score;
  }
  if (!opt.all_hits) {  // XA:Z, as bwa mem: -a writes them as records instead
    for (const OtherPlacement& o : p.others) {
      rf.xa += xa_entry(ref.contig_name(o.hit->contig), o.aln.ref_begin - ref.contig_begin(o.hit->contig),
                        o.hit->strand == 1, o.aln.cigar, o.aln.edits);
    }
  }
  if (p.parts.empty()) {
    out.push_back(make_record(read, rf, opt.read_group_id, opt.copy_comment, cache));
  } else {
    ChimericStyle style;
    style.as_secondary = opt.split_as_secondary;
    style.soft_clip = opt.split_soft_clip;
    style.read_group = opt.read_group_id;
    style.copy_comment = opt.copy_comment;
    append_chimeric_records(read, rf, p.parts, ref.index(), style, out, cache);
  }
  if (!opt.all_hits || !p.hit) return;
  for (const OtherPlacement& o : p.others) {
    RecordFields sf = rf;
    sf.flag = static_cast<uint16_t>((flags & ~BAM_FPROPER_PAIR) | BAM_FSECONDARY | (o.hit->strand ? BAM_FREVERSE : 0));
    sf.aln = &o.aln;
    sf.reverse = o.hit->strand == 1;
    sf.tid = static_cast<int32_t>(o.hit->contig);
    sf.pos = o.aln.ref_begin - ref.contig_begin(o.hit->contig);
    sf.mapq = 0;
    sf.score = o.score;
    sf.sa.clear();  // the primary's chimeric parts are not this placement's
    out.push_back(make_record(read, sf, opt.read_group_id, opt.copy_comment, cache));
  }
}

}  // namespace

void single_records(const io::Read& read, const ReadPlacement& p, const Reference& ref, const OutputOptions& opt,
                    std::vector<bam1_t*>& out, io::RecordCache& cache) {
  read_records(read, p, 0, MateInfo{}, ref, opt, out, cache);
}

void pair_records(const io::Read& read1, const io::Read& read2, const PairPlacement& pp, const Reference& ref,
                  const OutputOptions& opt, std::vector<bam1_t*>& out1, std::vector<bam1_t*>& out2,
                  io::RecordCache& cache) {
  const ReadPlacement* p[2] = {&pp.read[0], &pp.read[1]};
  MateInfo info[2];
  for (int m = 0; m < 2; ++m) {
    if (!p[m]->hit) continue;
    info[m].unmapped = false;
    info[m].tid = static_cast<int32_t>(p[m]->hit->contig);
    info[m].pos = p[m]->aln.ref_begin - ref.contig_begin(p[m]->hit->contig);
    info[m].reverse = p[m]->hit->strand == 1;
    info[m].aln = &p[m]->aln;
  }
  int64_t tlen = 0;
  if (p[0]->hit && p[1]->hit && info[0].tid == info[1].tid) {
    tlen = std::max(p[0]->aln.ref_end, p[1]->aln.ref_end) - std::min(p[0]->aln.ref_begin, p[1]->aln.ref_begin);
  }
  const io::Read* reads[2] = {&read1, &read2};
  std::vector<bam1_t*>* outs[2] = {&out1, &out2};
  for (int m = 0; m < 2; ++m) {
    uint16_t flags = BAM_FPAIRED | (m == 0 ? BAM_FREAD1 : BAM_FREAD2);
    if (pp.proper) flags |= BAM_FPROPER_PAIR;
    MateInfo mate = info[1 - m];
    if (mate.unmapped) {
      flags |= BAM_FMUNMAP;
      if (p[m]->hit) {  // the unmapped mate sits at this read's place
        mate.tid = info[m].tid;
        mate.pos = info[m].pos;
      }
    } else if (mate.reverse) {
      flags |= BAM_FMREVERSE;
    }
    if (tlen) {
      const int64_t b = p[m]->aln.ref_begin, mate_b = p[1 - m]->aln.ref_begin;
      const bool leftmost = b < mate_b || (b == mate_b && m == 0);
      mate.tlen = leftmost ? tlen : -tlen;
    }
    read_records(*reads[m], *p[m], flags, mate, ref, opt, *outs[m], cache);
  }
}

}  // namespace gatemap::mapper::detail

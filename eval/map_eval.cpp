#include <htslib/sam.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>

#include "common/error.hpp"
#include "eval/eval.hpp"
#include "io/reads/sam_reader.hpp"
#include "sim/sim.hpp"

namespace gatemap::eval {
namespace {

// Reference position (0-based) that the truth gives to read base `offset` (counted in
// the forward orientation of the reference): the first base at or after `offset` that
// the truth aligns. This is how clips are accounted: a record clipped by c bases must
// start where the truth puts read base c.
int64_t truth_position_of(const sim::ReadTruth& t, int64_t offset) {
  int64_t ref = t.pos1 - 1, read = 0, n = 0;
  for (char c : t.cigar) {
    if (c >= '0' && c <= '9') {
      n = n * 10 + (c - '0');
      continue;
    }
    if (c == 'M' || c == '=' || c == 'X') {
      if (offset < read + n) return ref + std::max<int64_t>(0, offset - read);
      read += n;
      ref += n;
    } else if (c == 'I' || c == 'S') {
      read += n;
    } else if (c == 'D' || c == 'N') {
      ref += n;
    }
    n = 0;
  }
  return ref;
}

}  // namespace

MapEval eval_map(const std::string& sam_path, int tolerance, std::FILE* wrong_out) {
  io::SamReader in(sam_path);
  MapEval ev;
  for (int t : {60, 30, 20, 10, 1, 0}) ev.rows.push_back({t, 0, 0});
  const std::unique_ptr<bam1_t, void (*)(bam1_t*)> record(bam_init1(), bam_destroy1);
  bam1_t* b = record.get();
  if (!b) throw std::bad_alloc();
  while (in.next(b)) {
    const uint16_t flag = b->core.flag;
    if (flag & (BAM_FSECONDARY | BAM_FSUPPLEMENTARY)) continue;
    ++ev.total;
    sim::ReadTruth truth;
    if (!sim::decode_truth_name(bam_get_qname(b), (flag & BAM_FREAD2) ? 2 : 1, truth)) {
      ++ev.no_truth;
      continue;
    }
    if (flag & BAM_FUNMAP) {
      ++ev.unmapped;
      continue;
    }
    const uint32_t* cig = bam_get_cigar(b);
    int64_t clip = 0;
    for (uint32_t i = 0; i < b->core.n_cigar; ++i) {
      const int op = bam_cigar_op(cig[i]);
      if (op != BAM_CSOFT_CLIP && op != BAM_CHARD_CLIP) break;
      clip += bam_cigar_oplen(cig[i]);
    }
    const int64_t start = b->core.pos;
    const int64_t truth_start = truth_position_of(truth, clip);
    const bool correct = std::string(sam_hdr_tid2name(in.header(), b->core.tid)) == truth.contig &&
                         static_cast<bool>(flag & BAM_FREVERSE) == truth.reverse &&
                         std::llabs(start - truth_start) <= tolerance;
    if (!correct && wrong_out) {
      std::fprintf(wrong_out, "%s\t%d\t%d\t%s:%lld%c\t%s:%lld%c\n", bam_get_qname(b), (flag & BAM_FREAD2) ? 2 : 1,
                   b->core.qual, sam_hdr_tid2name(in.header(), b->core.tid), static_cast<long long>(start + 1),
                   (flag & BAM_FREVERSE) ? '-' : '+', truth.contig.c_str(), static_cast<long long>(truth_start + 1),
                   truth.reverse ? '-' : '+');
    }
    for (auto& row : ev.rows) {
      if (b->core.qual >= row.min_mapq) {
        ++row.mapped;
        row.wrong += !correct;
      }
    }
  }
  return ev;
}

void print_map_eval(const MapEval& e, std::FILE* out) {
  std::fprintf(out, "reads\t%lld\nunmapped\t%lld\n", static_cast<long long>(e.total), static_cast<long long>(e.unmapped));
  if (e.no_truth) std::fprintf(out, "no_truth\t%lld\n", static_cast<long long>(e.no_truth));
  std::fprintf(out, "min_mapq\tmapped\tfraction_mapped\twrong\terror_rate\n");
  const double scored = static_cast<double>(e.total - e.no_truth);
  for (const auto& r : e.rows) {
    std::fprintf(out, "%d\t%lld\t%.5f\t%lld\t%.6f\n", r.min_mapq, static_cast<long long>(r.mapped),
                 scored > 0 ? r.mapped / scored : 0.0, static_cast<long long>(r.wrong),
                 r.mapped ? static_cast<double>(r.wrong) / r.mapped : 0.0);
  }
}

}  // namespace gatemap::eval

#pragma once
// Test helpers for VCFs: BED intervals, and the records inside them as comparable
// strings "pos ref>alt a/b" (1-based position, first ALT, unphased genotype).
#include <gtest/gtest.h>
#include <htslib/vcf.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gatemap::test {

using Intervals = std::vector<std::pair<int64_t, int64_t>>;  // 0-based, half-open

inline Intervals read_bed(const std::string& path) {
  Intervals bed;
  std::ifstream in(path);
  std::string contig;
  int64_t b, e;
  while (in >> contig >> b >> e) bed.emplace_back(b, e);
  return bed;
}

inline std::set<std::string> variants_inside(const std::string& vcf, const Intervals& bed) {
  std::set<std::string> out;
  htsFile* fp = hts_open(vcf.c_str(), "r");
  EXPECT_NE(fp, nullptr) << vcf;
  if (!fp) return out;
  bcf_hdr_t* hdr = bcf_hdr_read(fp);
  bcf1_t* rec = bcf_init();
  while (bcf_read(fp, hdr, rec) == 0) {
    bcf_unpack(rec, BCF_UN_ALL);
    const bool inside =
        std::any_of(bed.begin(), bed.end(), [&](auto iv) { return rec->pos >= iv.first && rec->pos < iv.second; });
    if (!inside) continue;
    int32_t* gt = nullptr;
    int n = 0;
    bcf_get_genotypes(hdr, rec, &gt, &n);
    int a = bcf_gt_allele(gt[0]), c = bcf_gt_allele(gt[1]);
    free(gt);
    if (a > c) std::swap(a, c);
    out.insert(std::to_string(rec->pos + 1) + " " + rec->d.allele[0] + ">" + rec->d.allele[1] + " " +
               std::to_string(a) + "/" + std::to_string(c));
  }
  bcf_destroy(rec);
  bcf_hdr_destroy(hdr);
  hts_close(fp);
  return out;
}

}  // namespace gatemap::test

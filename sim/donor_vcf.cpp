// A donor from any VCF: genotyped alleles applied to the reference haplotype by haplotype.
#include <algorithm>
#include <map>

#include "common/error.hpp"
#include "common/log.hpp"
#include "io/reads/vcf_reader.hpp"
#include "sim/sim.hpp"

namespace gatemap::sim {

Donor load_donor_vcf(const std::vector<io::FastaRecord>& ref, const std::string& path) {
  io::VcfReader in(path);
  std::map<std::string, int32_t> contig_id;
  for (size_t i = 0; i < ref.size(); ++i) contig_id[ref[i].name] = static_cast<int32_t>(i);
  // Per haplotype, variants as (contig, pos, ref, alt); kept apart so overlaps are per haplotype.
  std::vector<Variant> per_hap[2];
  int64_t skipped = 0;
  while (in.next()) {
    const bcf1_t* rec = in.record();
    const auto it = contig_id.find(in.contig());
    int gt[2];
    if (it == contig_id.end() || !in.genotype(gt[0], gt[1])) {
      ++skipped;
      continue;
    }
    for (int h = 0; h < 2; ++h) {
      const int allele = gt[h];
      if (allele <= 0 || allele >= rec->n_allele) continue;
      const std::string alt = rec->d.allele[allele];
      if (alt.find_first_not_of("ACGTacgt") != std::string::npos) {
        ++skipped;
        continue;
      }
      per_hap[h].push_back(Variant{it->second, rec->pos, rec->d.allele[0], alt, 1 << h});
    }
  }
  // Merge identical alleles on both haplotypes into one homozygous variant; drop overlaps.
  std::map<std::tuple<int32_t, int64_t, std::string, std::string>, int> merged;
  for (int h = 0; h < 2; ++h) {
    for (const auto& v : per_hap[h]) merged[{v.contig, v.pos, v.ref, v.alt}] |= 1 << h;
  }
  Donor donor;
  int64_t last_end[2] = {-1, -1};
  int32_t last_contig[2] = {-1, -1};
  for (const auto& [key, genotype] : merged) {
    const auto& [contig, pos, r, a] = key;
    bool overlaps = false;
    for (int h = 0; h < 2; ++h) {
      if ((genotype >> h & 1) && last_contig[h] == contig && pos < last_end[h]) overlaps = true;
    }
    const std::string& refseq = ref[contig].seq;
    if (overlaps || pos + static_cast<int64_t>(r.size()) > static_cast<int64_t>(refseq.size())) {
      ++skipped;
      continue;
    }
    for (int h = 0; h < 2; ++h) {
      if (genotype >> h & 1) {
        last_contig[h] = contig;
        last_end[h] = pos + static_cast<int64_t>(r.size());
      }
    }
    donor.variants.push_back({contig, pos, r, a, genotype});
  }
  if (skipped) log::warn("sim", "VCF '" + path + "': " + std::to_string(skipped) + " records skipped (unknown contig, no genotype, symbolic or overlapping)");
  apply_donor(ref, donor);
  return donor;
}

}  // namespace gatemap::sim

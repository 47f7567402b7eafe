// Diploid donors: SNPs and left-aligned indels on two haplotypes, and the truth VCF.
#include <htslib/vcf.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "common/error.hpp"
#include "io/text/vcf_writer.hpp"
#include "sim/rng.hpp"
#include "sim/sim.hpp"

namespace gatemap::sim {
namespace {

char upper(char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }

// Indel length with P(L) ~ L^-1.6 on 1..max (about 45% single-base, like human).
int indel_length(Rng& rng, int max_len) {
  static thread_local std::vector<double> cdf;
  if (static_cast<int>(cdf.size()) != max_len) {
    cdf.assign(max_len, 0);
    double total = 0;
    for (int l = 1; l <= max_len; ++l) cdf[l - 1] = (total += std::pow(l, -1.6));
    for (auto& v : cdf) v /= total;
  }
  const double u = rng.uniform();
  return static_cast<int>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin()) + 1;
}

}  // namespace

void apply_donor(const std::vector<io::FastaRecord>& ref, Donor& donor, int threads) {
  // Each contig's variants, in their order (sorted by position within a contig).
  const int32_t n = static_cast<int32_t>(ref.size());
  std::vector<std::vector<size_t>> of_contig(ref.size());
  for (size_t vi = 0; vi < donor.variants.size(); ++vi) {
    of_contig[static_cast<size_t>(donor.variants[vi].contig)].push_back(vi);
  }
  for (int h = 0; h < 2; ++h) donor.hap[h].assign(ref.size(), {});
  // Each haplotype of each contig apart (sequences uppercased, like the reference the
  // mapper sees); the same sequences for any number of threads.
#pragma omp parallel for schedule(dynamic, 1) collapse(2) num_threads(std::max(1, threads))
  for (int h = 0; h < 2; ++h) {
    for (int32_t c = 0; c < n; ++c) {
      io::FastaRecord& hap = donor.hap[h][static_cast<size_t>(c)];
      hap.name = ref[c].name;
      const std::string& seq = ref[c].seq;
      hap.seq.reserve(seq.size());
      int64_t at = 0;
      for (const size_t vi : of_contig[static_cast<size_t>(c)]) {
        const Variant& v = donor.variants[vi];
        if (!(v.genotype & (1 << h))) continue;
        for (; at < v.pos; ++at) hap.seq += upper(seq[at]);
        hap.seq += v.alt;
        at = v.pos + static_cast<int64_t>(v.ref.size());
      }
      for (; at < static_cast<int64_t>(seq.size()); ++at) hap.seq += upper(seq[at]);
    }
  }
}

Donor simulate_donor(const std::vector<io::FastaRecord>& ref, const VariantOptions& opt) {
  Donor donor;
  const double rate = opt.snp_rate + opt.indel_rate;
  if (rate <= 0 || rate > 0.1) throw UsageError("variant rates must add up to (0, 0.1]");
  // Each contig from its own random substream, on its own thread: the same donor for any
  // number of threads. Its variants are appended in contig order after.
  std::vector<std::vector<Variant>> per_contig(ref.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, opt.threads))
  for (int32_t c = 0; c < static_cast<int32_t>(ref.size()); ++c) {
    std::vector<Variant>& out = per_contig[static_cast<size_t>(c)];
    Rng rng(substream(opt.seed, c + 1));
    const std::string& seq = ref[c].seq;
    const int64_t len = static_cast<int64_t>(seq.size());
    int64_t last_end = 0;  // first base after the previous variant's reference span, plus spacing
    int64_t p = 1;
    while (true) {
      p += 1 + static_cast<int64_t>(-std::log(1 - rng.uniform()) / rate);
      if (p >= len - opt.max_indel - 2) break;
      Variant v;
      v.contig = c;
      v.genotype = rng.uniform() < opt.hom_fraction ? 3 : (rng.below(2) ? 1 : 2);
      if (rng.uniform() < opt.snp_rate / rate) {
        v.pos = p;
        v.ref = std::string(1, upper(seq[p]));
        char alt;
        do alt = "ACGT"[rng.below(4)]; while (alt == v.ref[0]);
        v.alt = std::string(1, alt);
      } else {
        const int l = indel_length(rng, opt.max_indel);
        int64_t anchor = p;
        if (rng.below(2)) {  // insertion of `ins` after the anchor, shifted left while equivalent
          std::string ins(static_cast<size_t>(l), 'A');
          for (auto& b : ins) b = "ACGT"[rng.below(4)];
          while (anchor > last_end && upper(seq[anchor]) == ins.back()) {
            ins.insert(ins.begin(), upper(seq[anchor]));
            ins.pop_back();
            --anchor;
          }
          v.pos = anchor;
          v.ref = std::string(1, upper(seq[anchor]));
          v.alt = v.ref + ins;
        } else {  // deletion of seq[anchor+1 .. anchor+l], shifted left while equivalent
          while (anchor > last_end && upper(seq[anchor]) == upper(seq[anchor + l])) --anchor;
          v.pos = anchor;
          v.ref.clear();
          for (int64_t i = anchor; i <= anchor + l; ++i) v.ref += upper(seq[i]);
          v.alt = v.ref.substr(0, 1);
        }
      }
      const int64_t span_end = v.pos + static_cast<int64_t>(v.ref.size());
      bool has_n = false;
      for (int64_t i = std::max<int64_t>(0, v.pos - 1); i < span_end + 1 && i < len; ++i) has_n |= upper(seq[i]) == 'N';
      if (v.pos <= last_end || has_n || v.alt.find('N') != std::string::npos) continue;
      out.push_back(v);
      last_end = span_end + 1;
      p = std::max(p, span_end);
    }
  }
  for (auto& vs : per_contig) donor.variants.insert(donor.variants.end(), vs.begin(), vs.end());
  apply_donor(ref, donor, opt.threads);
  return donor;
}

void write_truth_vcf(const std::string& path, const std::vector<io::FastaRecord>& ref,
                     const std::vector<Variant>& variants, const std::string& command_line) {
  io::VcfHeaderInfo info;
  for (const auto& r : ref) info.contigs.emplace_back(r.name, static_cast<int64_t>(r.seq.size()));
  info.command_line = command_line;
  info.version = "sim";
  info.extra_lines = {"##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">"};
  info.samples = {"donor"};
  io::VcfWriter out(path, info);
  bcf1_t* rec = bcf_init();
  for (const auto& v : variants) {
    bcf_clear(rec);
    rec->rid = v.contig;
    rec->pos = v.pos;
    const std::string alleles = v.ref + "," + v.alt;
    bcf_update_alleles_str(out.header(), rec, alleles.c_str());
    int32_t gt[2] = {bcf_gt_unphased(v.genotype & 1 ? 1 : 0), bcf_gt_phased(v.genotype & 2 ? 1 : 0)};
    bcf_update_genotypes(out.header(), rec, gt, 2);
    out.write(rec);
  }
  bcf_destroy(rec);
  out.close();
}

}  // namespace gatemap::sim

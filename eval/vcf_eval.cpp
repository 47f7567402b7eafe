// gatemap eval vcf: normalized allele matching (hap.py-lite): multi-allelic records are
// split, each allele trimmed and left-aligned against the reference, equal-length
// multi-base alleles split into SNPs; then TP/FP/FN per class and genotype concordance.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "common/error.hpp"
#include "eval/eval.hpp"
#include "io/reads/fasta.hpp"
#include "io/reads/intervals.hpp"
#include "io/reads/vcf_reader.hpp"

namespace gatemap::eval {
namespace {

struct Key {
  std::string chrom;
  int64_t pos;  // 0-based
  std::string ref, alt;
  bool operator<(const Key& o) const { return std::tie(chrom, pos, ref, alt) < std::tie(o.chrom, o.pos, o.ref, o.alt); }
};

using Reference = std::map<std::string, std::string>;

// Left-aligns and trims one allele pair (the vt normalize algorithm).
void normalize(const std::string& contig, int64_t& pos, std::string& ref, std::string& alt) {
  bool changed = true;
  while (changed) {
    changed = false;
    if (!ref.empty() && !alt.empty() && ref.back() == alt.back() && !(ref.size() == 1 && alt.size() == 1)) {
      ref.pop_back();
      alt.pop_back();
      changed = true;
    }
    if ((ref.empty() || alt.empty()) && pos > 0) {
      const char b = contig[static_cast<size_t>(pos - 1)];
      ref.insert(ref.begin(), b);
      alt.insert(alt.begin(), b);
      --pos;
      changed = true;
    }
  }
  while (ref.size() >= 2 && alt.size() >= 2 && ref[0] == alt[0]) {
    ref.erase(ref.begin());
    alt.erase(alt.begin());
    ++pos;
  }
}

// Normalized alleles of one VCF with their dosage (number of copies in the first
// sample's GT; 1 when there is no genotype).
std::map<Key, int> load_alleles(const std::string& path, const Reference& ref, bool pass_only, int64_t& skipped) {
  io::VcfReader in(path);
  std::map<Key, int> out;
  int64_t records = 0, placed = 0;
  while (in.next()) {
    const bcf1_t* rec = in.record();
    if (pass_only && !in.passes()) continue;
    ++records;
    const std::string chrom = in.contig();
    const auto contig = ref.find(chrom);
    if (contig == ref.end()) {
      ++skipped;
      continue;
    }
    // The REF allele must be the reference's bases there (bcftools norm --check-ref e):
    // against another assembly every comparison would be meaningless.
    std::string ref_allele = rec->d.allele[0];
    for (auto& c : ref_allele) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const std::string& seq = contig->second;
    const bool fits =
        rec->pos >= 0 && rec->pos + static_cast<int64_t>(ref_allele.size()) <= static_cast<int64_t>(seq.size());
    std::string there = fits ? seq.substr(static_cast<size_t>(rec->pos), ref_allele.size()) : "";
    for (auto& c : there) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (!fits ||
        (there != ref_allele && ref_allele.find('N') == std::string::npos && there.find('N') == std::string::npos)) {
      throw FormatError("'" + path + "': the REF allele at " + chrom + ":" + std::to_string(rec->pos + 1) + " (" +
                        ref_allele + ") is not the reference's (" + (fits ? there : "past the contig end") +
                        "): is -r the reference this VCF was made against?");
    }
    ++placed;
    int gt[2];
    const bool genotyped = in.genotype(gt[0], gt[1]);
    for (int a = 1; a < rec->n_allele; ++a) {
      std::string r = rec->d.allele[0], alt = rec->d.allele[a];
      if (alt.find_first_not_of("ACGTNacgtn") != std::string::npos) {
        ++skipped;  // symbolic, '*' or breakend
        continue;
      }
      for (auto& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      for (auto& c : alt) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      const int dosage = genotyped ? (gt[0] == a) + (gt[1] == a) : 1;
      if (dosage == 0) continue;  // this allele is not in the sample
      int64_t pos = rec->pos;
      normalize(contig->second, pos, r, alt);
      if (r.size() == alt.size() && r.size() > 1) {  // MNP: one SNP per differing base
        for (size_t i = 0; i < r.size(); ++i) {
          if (r[i] != alt[i]) out[{chrom, pos + static_cast<int64_t>(i), r.substr(i, 1), alt.substr(i, 1)}] = dosage;
        }
      } else {
        out[{chrom, pos, r, alt}] = dosage;
      }
    }
  }
  if (records > 0 && placed == 0) throw FormatError("'" + path + "': none of its contigs is in the reference");
  return out;
}

// Drops the variants whose reference allele is not inside one interval (sorted, merged).
void keep_inside(std::map<Key, int>& variants, const std::vector<io::Interval>& intervals,
                 const std::vector<std::pair<std::string, int64_t>>& contigs) {
  std::map<std::string, int> contig_index;
  for (size_t i = 0; i < contigs.size(); ++i) contig_index[contigs[i].first] = static_cast<int>(i);
  for (auto it = variants.begin(); it != variants.end();) {
    const Key& k = it->first;
    const int c = contig_index.at(k.chrom);
    const int64_t end = k.pos + static_cast<int64_t>(std::max<size_t>(1, k.ref.size()));
    // The last interval starting at or before the variant holds it, if any does.
    const auto after = std::upper_bound(intervals.begin(), intervals.end(), std::make_pair(c, k.pos),
                                        [](const std::pair<int, int64_t>& p, const io::Interval& iv) {
                                          return p < std::make_pair(iv.contig, iv.begin);
                                        });
    const bool inside = after != intervals.begin() && std::prev(after)->contig == c && std::prev(after)->end >= end;
    it = inside ? std::next(it) : variants.erase(it);
  }
}

}  // namespace

VcfEval eval_vcf(const std::string& truth_path, const std::string& calls_path, const std::string& ref_path,
                 bool pass_only, const std::string& bed) {
  Reference ref;
  std::vector<std::pair<std::string, int64_t>> contigs;
  for (auto& r : io::read_fasta(ref_path)) {
    contigs.emplace_back(r.name, static_cast<int64_t>(r.seq.size()));
    ref[r.name] = std::move(r.seq);
  }
  VcfEval ev;
  auto truth = load_alleles(truth_path, ref, false, ev.skipped);
  auto calls = load_alleles(calls_path, ref, pass_only, ev.skipped);
  if (!bed.empty()) {
    const auto ends_with = [&](const std::string& x) {
      return bed.size() > x.size() && bed.compare(bed.size() - x.size(), x.size(), x) == 0;
    };
    if (!ends_with(".bed") && !ends_with(".bed.gz")) throw UsageError("--bed '" + bed + "': a .bed or .bed.gz file");
    const std::vector<io::Interval> confident = io::parse_intervals({bed}, contigs);
    keep_inside(truth, confident, contigs);
    keep_inside(calls, confident, contigs);
  }
  const auto cls = [](const Key& k) { return k.ref.size() == 1 && k.alt.size() == 1 ? 0 : 1; };
  for (const auto& [k, dosage] : truth) {
    auto& c = ev.classes[cls(k)];
    const auto it = calls.find(k);
    if (it == calls.end()) {
      ++c.fn;
    } else {
      ++c.tp;
      c.genotype_match += it->second == dosage;
    }
  }
  for (const auto& [k, dosage] : calls) {
    if (!truth.count(k)) ++ev.classes[cls(k)].fp;
  }
  return ev;
}

void print_vcf_eval(const VcfEval& e, std::FILE* out) {
  std::fprintf(out, "class\tTP\tFP\tFN\tprecision\trecall\tF1\tgenotype_concordance\n");
  const char* names[2] = {"SNP", "INDEL"};
  for (int c = 0; c < 2; ++c) {
    const auto& x = e.classes[c];
    const double p = x.tp + x.fp ? static_cast<double>(x.tp) / (x.tp + x.fp) : 0;
    const double r = x.tp + x.fn ? static_cast<double>(x.tp) / (x.tp + x.fn) : 0;
    const double f1 = p + r > 0 ? 2 * p * r / (p + r) : 0;
    std::fprintf(out, "%s\t%lld\t%lld\t%lld\t%.4f\t%.4f\t%.4f\t%.4f\n", names[c], static_cast<long long>(x.tp),
                 static_cast<long long>(x.fp), static_cast<long long>(x.fn), p, r, f1,
                 x.tp ? static_cast<double>(x.genotype_match) / x.tp : 0.0);
  }
  if (e.skipped) std::fprintf(out, "# skipped records/alleles: %lld\n", static_cast<long long>(e.skipped));
}

}  // namespace gatemap::eval

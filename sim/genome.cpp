// Synthetic reference genomes with the features that make human mapping hard.
#include <omp.h>

#include <algorithm>
#include <cctype>

#include "common/dna.hpp"
#include "common/error.hpp"
#include "common/parallel.hpp"
#include "sim/rng.hpp"
#include "sim/sim.hpp"

namespace gatemap::sim {
namespace {

// A copy of `seq` diverged by `rate`: 80% substitutions, 10% insertions, 10% deletions.
std::string diverge(const std::string& seq, double rate, Rng& rng) {
  std::string out;
  out.reserve(seq.size() + seq.size() / 20);
  for (char c : seq) {
    if (rng.uniform() >= rate) {
      out += c;
      continue;
    }
    const double kind = rng.uniform();
    if (kind < 0.8) {
      char b;
      do b = "ACGT"[rng.below(4)]; while (b == std::toupper(c));
      out += std::islower(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(b)) : b;
    } else if (kind < 0.9) {
      out += c;
      out += "acgt"[rng.below(4)];
    }  // else deleted
  }
  return out;
}

void overwrite(std::string& contig, int64_t at, const std::string& piece, bool lowercase) {
  for (size_t i = 0; i < piece.size() && at + static_cast<int64_t>(i) < static_cast<int64_t>(contig.size()); ++i) {
    char& dst = contig[at + i];
    if (dst == 'N') continue;  // gaps stay gaps
    dst = lowercase ? static_cast<char>(std::tolower(piece[i])) : piece[i];
  }
}

struct Families {
  std::vector<std::string> alu, line;
};

Families make_families(uint64_t seed, double gc) {
  Rng rng(substream(seed, 0xfa));
  Families f;
  for (int i = 0; i < 6; ++i) {
    std::string s(static_cast<size_t>(rng.range(280, 320)), 'A');
    for (auto& c : s) c = rng.base(gc + 0.1);  // Alu is GC-rich
    f.alu.push_back(s + std::string(static_cast<size_t>(rng.range(10, 30)), 'A'));  // poly-A tail
  }
  for (int i = 0; i < 3; ++i) {
    std::string s(static_cast<size_t>(rng.range(5500, 6500)), 'A');
    for (auto& c : s) c = rng.base(gc - 0.03);
    f.line.push_back(s);
  }
  return f;
}

std::string make_contig(int64_t len, bool chromosome, const GenomeOptions& opt,
                        const Families& fam, uint64_t seed) {
  Rng rng(seed);
  std::string s(static_cast<size_t>(len), 'A');
  for (auto& c : s) c = rng.base(opt.gc);
  if (len < 1000) return s;
  // Interspersed repeats: Alu-like and LINE-like copies at 2-20% divergence.
  const auto place = [&](const std::vector<std::string>& family, double fraction, bool truncate) {
    const int64_t avg = truncate ? 3000 : 300;
    const int64_t copies = static_cast<int64_t>(fraction * len / avg);
    for (int64_t i = 0; i < copies; ++i) {
      const std::string& consensus = family[rng.below(static_cast<int64_t>(family.size()))];
      std::string piece = consensus;
      if (truncate) piece = piece.substr(static_cast<size_t>(rng.below(static_cast<int64_t>(piece.size()) - 500)));
      piece = diverge(piece, 0.02 + 0.18 * rng.uniform(), rng);
      if (rng.below(2)) {
        std::reverse(piece.begin(), piece.end());
        for (auto& c : piece) c = kCodeToAscii[complement_code(base_code(c))];
      }
      overwrite(s, rng.below(len), piece, true);
    }
  };
  place(fam.alu, opt.alu_fraction, false);
  place(fam.line, opt.line_fraction, true);
  // Tandem repeats and microsatellites.
  const int64_t tandems = static_cast<int64_t>(opt.tandem_fraction * len / 60);
  for (int64_t i = 0; i < tandems; ++i) {
    const bool micro = rng.uniform() < 0.7;
    std::string unit(static_cast<size_t>(micro ? rng.range(1, 6) : rng.range(10, 60)), 'A');
    for (auto& c : unit) c = rng.base(opt.gc);
    std::string piece;
    const int64_t total = micro ? rng.range(15, 80) : rng.range(40, 300);
    while (static_cast<int64_t>(piece.size()) < total) piece += unit;
    overwrite(s, rng.below(len), diverge(piece, 0.01, rng), true);
  }
  // Segmental duplications: 1-50 kbp at 1-5% divergence.
  int64_t dup_bases = static_cast<int64_t>(opt.segdup_fraction * len);
  while (dup_bases > 0 && len > 4000) {
    const int64_t size = std::min<int64_t>(len / 4, static_cast<int64_t>(1000 * std::exp(rng.uniform() * std::log(50.0))));
    const int64_t from = rng.below(len - size);
    overwrite(s, rng.below(len - size), diverge(s.substr(from, size), 0.01 + 0.04 * rng.uniform(), rng), false);
    dup_bases -= size;
  }
  // Gaps: telomeres and a centromere on chromosomes, a few interior runs everywhere.
  const auto gap = [&](int64_t at, int64_t n) {
    at = std::clamp<int64_t>(at, 0, len);
    std::fill(s.begin() + at, s.begin() + std::min(len, at + n), 'N');
  };
  if (chromosome && len > 100000) {
    const int64_t telomere = std::max<int64_t>(100, static_cast<int64_t>(10000 * opt.scale));
    gap(0, telomere);
    gap(len - telomere, telomere);
    gap(static_cast<int64_t>(len * (0.3 + 0.2 * rng.uniform())), std::max<int64_t>(500, static_cast<int64_t>(3e6 * opt.scale)));
  }
  const int64_t runs = static_cast<int64_t>(opt.n_gap_fraction * len / 2000);
  for (int64_t i = 0; i < runs; ++i) gap(rng.below(len), rng.range(50, 4000));
  return s;
}

}  // namespace

const std::vector<std::pair<std::string, int64_t>>& grch37_contigs() {
  static const std::vector<std::pair<std::string, int64_t>> contigs = {
      {"1", 249250621}, {"2", 243199373}, {"3", 198022430}, {"4", 191154276}, {"5", 180915260},
      {"6", 171115067}, {"7", 159138663}, {"8", 146364022}, {"9", 141213431}, {"10", 135534747},
      {"11", 135006516}, {"12", 133851895}, {"13", 115169878}, {"14", 107349540}, {"15", 102531392},
      {"16", 90354753}, {"17", 81195210}, {"18", 78077248}, {"19", 59128983}, {"20", 63025520},
      {"21", 48129895}, {"22", 51304566}, {"X", 155270560}, {"Y", 59373566}, {"MT", 16569},
      {"GL000207.1", 4262}, {"GL000226.1", 15008}, {"GL000229.1", 19913}, {"GL000231.1", 27386},
      {"GL000210.1", 27682}, {"GL000239.1", 33824}, {"GL000235.1", 34474}, {"GL000201.1", 36148},
      {"GL000247.1", 36422}, {"GL000245.1", 36651}, {"GL000197.1", 37175}, {"GL000203.1", 37498},
      {"GL000246.1", 38154}, {"GL000249.1", 38502}, {"GL000196.1", 38914}, {"GL000248.1", 39786},
      {"GL000244.1", 39929}, {"GL000238.1", 39939}, {"GL000202.1", 40103}, {"GL000234.1", 40531},
      {"GL000232.1", 40652}, {"GL000206.1", 41001}, {"GL000240.1", 41933}, {"GL000236.1", 41934},
      {"GL000241.1", 42152}, {"GL000243.1", 43341}, {"GL000242.1", 43523}, {"GL000230.1", 43691},
      {"GL000237.1", 45867}, {"GL000233.1", 45941}, {"GL000204.1", 81310}, {"GL000198.1", 90085},
      {"GL000208.1", 92689}, {"GL000191.1", 106433}, {"GL000227.1", 128374}, {"GL000228.1", 129120},
      {"GL000214.1", 137718}, {"GL000221.1", 155397}, {"GL000209.1", 159169}, {"GL000218.1", 161147},
      {"GL000220.1", 161802}, {"GL000213.1", 164239}, {"GL000211.1", 166566}, {"GL000199.1", 169874},
      {"GL000217.1", 172149}, {"GL000216.1", 172294}, {"GL000215.1", 172545}, {"GL000205.1", 174588},
      {"GL000219.1", 179198}, {"GL000224.1", 179693}, {"GL000223.1", 180455}, {"GL000195.1", 182896},
      {"GL000212.1", 186858}, {"GL000222.1", 186861}, {"GL000200.1", 187035}, {"GL000193.1", 189789},
      {"GL000194.1", 191469}, {"GL000225.1", 211173}, {"GL000192.1", 547496}};
  return contigs;
}

std::vector<io::FastaRecord> simulate_genome(const GenomeOptions& opt) {
  std::vector<std::pair<std::string, int64_t>> layout;
  if (opt.like_grch37) {
    if (opt.scale <= 0 || opt.scale > 1) throw UsageError("--scale must be in (0, 1]");
    for (const auto& [name, len] : grch37_contigs()) {
      layout.emplace_back(name, std::max<int64_t>(1, static_cast<int64_t>(len * opt.scale)));
    }
  } else {
    if (opt.contigs < 1 || opt.length < opt.contigs) throw UsageError("--length must be at least --contigs");
    for (int c = 0; c < opt.contigs; ++c) {
      layout.emplace_back(std::to_string(c + 1), opt.length * (c + 1) / opt.contigs - opt.length * c / opt.contigs);
    }
  }
  if (opt.gc <= 0 || opt.gc >= 1) throw UsageError("--gc must be in (0, 1)");
  const Families fam = make_families(opt.seed, opt.gc);
  std::vector<io::FastaRecord> out(layout.size());
  const int n = static_cast<int>(layout.size());
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, opt.threads))
  for (int c = 0; c < n; ++c) {
    errors.run([&] {
      const bool chromosome = layout[c].first.rfind("GL", 0) != 0 && layout[c].first != "MT";
      out[c].name = layout[c].first;
      out[c].seq = make_contig(layout[c].second, chromosome, opt, fam, substream(opt.seed, c + 1));
    });
  }
  errors.rethrow();
  return out;
}

}  // namespace gatemap::sim

// gatemap sim genome|variants|reads: synthetic data with known truth.
#include <omp.h>
#include <unistd.h>

#include <memory>

#include "apps/commands.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "io/output_file.hpp"
#include "io/reads/fasta.hpp"
#include "sim/read_files.hpp"
#include "sim/sim.hpp"

namespace gatemap::apps {
namespace {

void add_genome(CLI::App* sim, AppContext& ctx) {
  auto* sub = sim->add_subcommand("genome", "Simulate a reference genome with human-like repeats");
  struct Args {
    sim::GenomeOptions opt;
    std::string out = "-", like;
  };
  auto a = std::make_shared<Args>();
  sub->add_option("-o,--output", a->out, "FASTA to write (.gz: bgzip)")->capture_default_str();
  sub->add_option("--length", a->opt.length, "Total length in bases")
      ->check(CLI::Range(int64_t{1}, int64_t{100000000000}))
      ->capture_default_str();
  sub->add_option("--contigs", a->opt.contigs, "Number of contigs")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  sub->add_option("--gc", a->opt.gc, "GC content")->check(finite_in(0, 1))->capture_default_str();
  sub->add_option("--like", a->like, "Preset: grch37 (b37 contig names and lengths times --scale)")
      ->check(CLI::IsMember({"grch37"}));
  sub->add_option("--scale", a->opt.scale, "Length factor for --like")
      ->check(finite_in(1e-6, 30))
      ->capture_default_str();
  sub->add_option("--seed", a->opt.seed, "Random seed")->capture_default_str();
  sub->add_option("-t,--threads", a->opt.threads, "Threads")->capture_default_str();
  on_run(sub, ctx, [a] {
    a->opt.like_grch37 = a->like == "grch37";
    // The genome is made in memory (a byte a base): refused before it fills the machine.
    const double bases = a->opt.like_grch37 ? 3.1e9 * a->opt.scale : static_cast<double>(a->opt.length);
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page > 0 && bases > 0.8 * static_cast<double>(pages) * static_cast<double>(page)) {
      throw UsageError("a genome of " + std::to_string(static_cast<int64_t>(bases)) +
                       " bases is made in memory, about as many bytes: more than this machine has");
    }
    const auto genome = sim::simulate_genome(a->opt);
    io::write_fasta(a->out == "-" ? "/dev/stdout" : a->out, genome);
    int64_t total = 0;
    for (const auto& r : genome) total += static_cast<int64_t>(r.seq.size());
    log::info("sim", "genome: " + std::to_string(genome.size()) + " contigs, " + std::to_string(total) + " bp");
    return 0;
  });
}

void add_variants(CLI::App* sim, AppContext& ctx) {
  auto* sub = sim->add_subcommand("variants", "Simulate a diploid donor: two haplotypes and a truth VCF");
  struct Args {
    sim::VariantOptions opt;
    std::string ref, prefix;
  };
  auto a = std::make_shared<Args>();
  sub->add_option("ref", a->ref, "Reference FASTA")->required();
  sub->add_option("-o,--output", a->prefix, "Prefix: PREFIX.hap1.fa, PREFIX.hap2.fa, PREFIX.truth.vcf.gz")->required();
  sub->add_option("--snp-rate", a->opt.snp_rate, "SNPs per base")->check(finite_in(0, 0.2))->capture_default_str();
  sub->add_option("--indel-rate", a->opt.indel_rate, "Indels per base")
      ->check(finite_in(0, 0.2))
      ->capture_default_str();
  sub->add_option("--hom", a->opt.hom_fraction, "Fraction of homozygous variants")
      ->check(finite_in(0, 1))
      ->capture_default_str();
  sub->add_option("--max-indel", a->opt.max_indel, "Longest indel")->check(CLI::Range(1, 500))->capture_default_str();
  sub->add_option("--seed", a->opt.seed, "Random seed")->capture_default_str();
  sub->add_option("-t,--threads", a->opt.threads, "Threads (the donor does not depend on it)")->capture_default_str();
  on_run(sub, ctx, [a, &ctx] {
    for (const char* suffix : {".hap1.fa", ".hap2.fa", ".truth.vcf.gz"}) {
      io::check_not_input(a->prefix + suffix, "-o", {a->ref});  // e.g. `-o p` for p.hap1.fa itself
    }
    const auto ref = io::read_fasta(a->ref);
    const auto donor = sim::simulate_donor(ref, a->opt);
    // Three files, all or none: the truth first (its header refuses some contig names),
    // and the ones finished removed when a later one fails.
    std::vector<std::string> written;
    try {
      sim::write_truth_vcf(a->prefix + ".truth.vcf.gz", ref, donor.variants, ctx.command_line);
      written = {a->prefix + ".truth.vcf.gz", a->prefix + ".truth.vcf.gz.tbi"};
      io::write_fasta(a->prefix + ".hap1.fa", donor.hap[0]);
      written.push_back(a->prefix + ".hap1.fa");
      io::write_fasta(a->prefix + ".hap2.fa", donor.hap[1]);
    } catch (...) {
      for (const std::string& w : written) io::remove_outputs(w);
      throw;
    }
    log::info("sim", "donor: " + std::to_string(donor.variants.size()) + " variants");
    return 0;
  });
}

void add_reads(CLI::App* sim, AppContext& ctx) {
  auto* sub = sim->add_subcommand("reads", "Simulate Illumina-like reads with truth in their names");
  struct Args {
    sim::ReadOptions opt;
    std::string ref, prefix, vcf;
    bool single = false, gz = false, truth_fastq = false;
    int threads = 1;
  };
  auto a = std::make_shared<Args>();
  sub->add_option("ref", a->ref, "Reference FASTA")->required();
  sub->add_option("-o,--output", a->prefix, "Prefix: PREFIX_1.fq, PREFIX_2.fq (or PREFIX.fq)")->required();
  sub->add_option("--vcf", a->vcf, "Donor variants (from 'sim variants' or any VCF); default: the reference");
  sub->add_option("-n", a->opt.n_fragments, "Reads (single) or pairs")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40))
      ->capture_default_str();
  sub->add_option("-l,--length", a->opt.read_len, "Read length")->check(CLI::Range(1, 100000))->capture_default_str();
  sub->add_flag("--single", a->single, "Single-end reads");
  sub->add_option("--insert", a->opt.insert_mean, "Mean insert size")->check(finite_in(1, 1e6))->capture_default_str();
  sub->add_option("--insert-sd", a->opt.insert_sd, "Insert size standard deviation")
      ->check(finite_in(0, 1e6))
      ->capture_default_str();
  sub->add_option("--sub-rate", a->opt.sub_rate, "Substitution error rate")
      ->check(finite_in(0, 1))
      ->capture_default_str();
  sub->add_option("--indel-rate", a->opt.indel_rate, "Indel error rate")->check(finite_in(0, 1))->capture_default_str();
  sub->add_option("--n-rate", a->opt.n_rate, "Rate of N calls")->check(finite_in(0, 1))->capture_default_str();
  sub->add_option("--seed", a->opt.seed, "Random seed")->capture_default_str();
  sub->add_flag("--gz", a->gz, "Write .fq.gz");
  sub->add_flag("--truth-fastq", a->truth_fastq,
                "Also write the reads without sequencing errors (PREFIX*.true.fq, for 'eval correct')");
  sub->add_option("-t,--threads", a->threads, "Threads (output does not depend on it)")->capture_default_str();
  on_run(sub, ctx, [a] {
    a->opt.paired = !a->single;
    a->opt.keep_true_seq = a->truth_fastq;
    const std::string ext = a->gz ? ".fq.gz" : ".fq";
    const int mates = a->opt.paired ? 2 : 1;
    const auto base_of = [&](int m) { return a->prefix + (a->opt.paired ? "_" + std::to_string(m + 1) : ""); };
    for (int m = 0; m < mates; ++m) {  // the reads never replace the reference or the VCF they come from
      io::check_not_input(base_of(m) + ext, "-o", {a->ref, a->vcf});
      if (a->truth_fastq) io::check_not_input(base_of(m) + ".true" + ext, "-o", {a->ref, a->vcf});
    }
    const auto ref = io::read_fasta(a->ref);
    std::unique_ptr<sim::Donor> donor;
    if (!a->vcf.empty()) donor = std::make_unique<sim::Donor>(sim::load_donor_vcf(ref, a->vcf));
    omp_set_num_threads(std::max(1, a->threads));
    std::vector<std::string> paths, truth_paths;
    for (int m = 0; m < mates; ++m) {
      paths.push_back(base_of(m) + ext);
      if (a->truth_fastq) truth_paths.push_back(base_of(m) + ".true" + ext);
    }
    sim::ReadFiles files(paths, truth_paths, a->threads);
    // Chunks of fragments into one reused vector: memory stays bounded for any -n.
    constexpr int64_t kChunk = 200000;
    std::vector<sim::SimRead> reads;
    double sim_seconds = 0, said = log::wall_seconds();
    const double began = said;
    for (int64_t first = 0; first < a->opt.n_fragments; first += kChunk) {
      const double t0 = log::wall_seconds();
      sim::simulate_reads(ref, donor.get(), a->opt, reads, first, std::min(kChunk, a->opt.n_fragments - first));
      sim_seconds += log::wall_seconds() - t0;
      files.write(reads);
      const int64_t done = std::min(first + kChunk, a->opt.n_fragments);
      if (log::wall_seconds() - said >= 10 && done < a->opt.n_fragments) {  // a long run's progress
        said = log::wall_seconds();
        const double share = static_cast<double>(done) / static_cast<double>(a->opt.n_fragments);
        log::progress("sim", std::to_string(done) + " of " + std::to_string(a->opt.n_fragments) + " fragments (" +
                                 std::to_string(static_cast<int>(100 * share)) + "%), " +
                                 log::time_left(said - began, share));
      }
    }
    files.close();
    const int64_t n_reads = a->opt.n_fragments * mates;
    log::info("sim", "reads: " + std::to_string(n_reads) + " simulated in " + std::to_string(sim_seconds) + " s (" +
                         std::to_string(static_cast<int64_t>(n_reads / std::max(1e-9, sim_seconds))) + " reads/s)");
    return 0;
  });
}

}  // namespace

void register_sim(CLI::App& app, AppContext& ctx) {
  auto* sim = app.add_subcommand("sim", "Simulate genomes, donors and reads with known truth");
  sim->require_subcommand(1);
  add_genome(sim, ctx);
  add_variants(sim, ctx);
  add_reads(sim, ctx);
}

}  // namespace gatemap::apps

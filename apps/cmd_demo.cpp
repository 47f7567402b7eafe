// gatemap demo: the whole path on generated data, with a summary. Simulates a GRCh37-like
// genome (84 b37 contigs, scaled), a diploid donor and paired reads; indexes, maps with
// the GateKeeper filter (GPU when present) and without it, and scores both against
// truth. Then, on 30x pairs of a donor of a 300 kbp slice: corrects the reads (k-mer
// spectrum), maps them, calls variants (pair-HMM on the GPU when present) and scores
// correction and calls.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>

#include "apps/commands.hpp"
#include "caller/caller.hpp"
#include "common/build_info.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "common/signal_cleanup.hpp"
#include "correct/correct.hpp"
#include "eval/eval.hpp"
#include "index/index.hpp"
#include "io/output_file.hpp"
#include "io/reads/fasta.hpp"
#include "io/sort/sam_sort.hpp"
#include "mapper/run.hpp"
#include "sim/read_files.hpp"
#include "sim/sim.hpp"

namespace gatemap::apps {
namespace {

struct DemoArgs {
  std::string dir;
  double scale = 0.003;
  int64_t pairs = 50000;
  int threads = 1;
  uint64_t seed = 1;
};

using PathIn = std::function<std::string(const std::string&)>;  // a file of the demo's folder

// The GRCh37-like genome, its donor's truth and the pairs to map.
struct Genome {
  std::vector<io::FastaRecord> contigs;
  size_t variants = 0;
  int64_t bases = 0;
};

Genome simulate_genome_and_pairs(const DemoArgs& a, const AppContext& ctx, const PathIn& path) {
  sim::GenomeOptions g;
  g.like_grch37 = true;
  g.scale = a.scale;
  g.seed = a.seed;
  g.threads = a.threads;
  Genome out;
  out.contigs = sim::simulate_genome(g);
  io::write_fasta(path("ref.fa"), out.contigs);
  const auto donor = sim::simulate_donor(out.contigs, {});
  sim::write_truth_vcf(path("truth.vcf.gz"), out.contigs, donor.variants, ctx.command_line);
  sim::ReadOptions ro;
  ro.n_fragments = a.pairs;
  ro.seed = a.seed + 1;
  std::vector<sim::SimRead> reads;
  sim::simulate_reads(out.contigs, &donor, ro, reads);
  sim::ReadFiles pairs({path("reads_1.fq.gz"), path("reads_2.fq.gz")}, {}, a.threads);
  pairs.write(reads);
  pairs.close();
  out.variants = donor.variants.size();
  for (const auto& r : out.contigs) out.bases += static_cast<int64_t>(r.seq.size());
  return out;
}

// Correction and calling need depth: 30x pairs from a donor of 300 kbp taken from the
// middle of the longest contig (slice.fa), corrected and scored.
struct DeepSet {
  size_t slice_len = 0;
  correct::CorrectRunOptions run;
  correct::CorrectSummary summary;
  eval::CorrectEval eval;
};

DeepSet simulate_and_correct_deep_set(const DemoArgs& a, const AppContext& ctx, const Genome& genome,
                                      const PathIn& path) {
  const auto longest = std::max_element(genome.contigs.begin(), genome.contigs.end(),
                                        [](const auto& x, const auto& y) { return x.seq.size() < y.seq.size(); });
  DeepSet deep;
  deep.slice_len = std::min<size_t>(300000, longest->seq.size() / 2);
  const std::vector<io::FastaRecord> slice{
      {longest->name, longest->seq.substr(longest->seq.size() / 4, deep.slice_len)}};
  io::write_fasta(path("slice.fa"), slice);
  sim::VariantOptions svo;
  svo.seed = a.seed + 3;
  const auto slice_donor = sim::simulate_donor(slice, svo);
  sim::write_truth_vcf(path("slice.truth.vcf.gz"), slice, slice_donor.variants, ctx.command_line);
  sim::ReadOptions cro;
  cro.n_fragments = static_cast<int64_t>(30 * deep.slice_len / 300);
  cro.sub_rate = 0.005;
  cro.seed = a.seed + 2;
  cro.keep_true_seq = true;
  std::vector<sim::SimRead> creads;
  sim::simulate_reads(slice, &slice_donor, cro, creads);
  sim::ReadFiles files({path("deep_1.fq.gz"), path("deep_2.fq.gz")}, {path("deep_1.true.fq.gz"), path("deep_2.true.fq.gz")},
                       a.threads);
  files.write(creads);
  files.close();
  correct::CorrectRunOptions& co = deep.run;
  co.in1 = path("deep_1.fq.gz"), co.in2 = path("deep_2.fq.gz");
  co.out1 = path("deep_1.corrected.fq.gz"), co.out2 = path("deep_2.corrected.fq.gz");
  co.threads = a.threads;
  deep.summary = correct::run_correct(co);
  deep.eval = eval::eval_correct(co.in1, co.out1, path("deep_1.true.fq.gz"));
  const eval::CorrectEval ce2 = eval::eval_correct(co.in2, co.out2, path("deep_2.true.fq.gz"));
  deep.eval.errors_before += ce2.errors_before, deep.eval.errors_after += ce2.errors_after;
  deep.eval.fixed += ce2.fixed, deep.eval.introduced += ce2.introduced;
  return deep;
}

// The deep set's corrected pairs mapped to the slice, sorted, called and scored.
struct DeepCalls {
  caller::CallStats stats;
  eval::VcfEval eval;
};

DeepCalls map_and_call_deep_set(const DemoArgs& a, const AppContext& ctx, mapper::RunOptions mo, const DeepSet& deep,
                                const PathIn& path) {
  index::IndexOptions sio;
  sio.threads = a.threads;
  index::save_index(*index::build_index(path("slice.fa"), sio), path("slice.gmi"));
  mo.filter = "auto";
  mo.index_path = path("slice.gmi");
  mo.reads1 = deep.run.out1, mo.reads2 = deep.run.out2;
  mo.read_group = "@RG\\tID:donor\\tSM:donor";
  mo.output = path("deep.sam");
  mapper::run_mapping(mo);
  io::sort_sam_in_memory(path("deep.sam"), path("deep.bam"));
  caller::CallOptions call_opt;
  call_opt.inputs = {path("deep.bam")};
  call_opt.reference = path("slice.fa");
  call_opt.output = path("deep.calls.vcf.gz");
  call_opt.threads = a.threads;
  call_opt.command_line = ctx.command_line;
  call_opt.version = GATEMAP_VERSION;
  DeepCalls out;
  out.stats = caller::run_call(call_opt);
  out.eval = eval::eval_vcf(path("slice.truth.vcf.gz"), call_opt.output, path("slice.fa"));
  return out;
}

// A SAM file's records (its header left out).
std::string sam_records(const std::string& p) {
  std::string all;
  std::FILE* f = std::fopen(p.c_str(), "r");
  if (!f) throw IoError("cannot read '" + p + "'");
  char buf[1 << 16];
  while (std::fgets(buf, sizeof buf, f)) {
    if (buf[0] != '@') all += buf;
  }
  std::fclose(f);
  return all;
}

double f1(const eval::VariantCounts& c) {
  const double p = c.tp + c.fp ? static_cast<double>(c.tp) / (c.tp + c.fp) : 0.0;
  const double r = c.tp + c.fn ? static_cast<double>(c.tp) / (c.tp + c.fn) : 0.0;
  return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

// Seconds each step took, in order.
struct StepTimes {
  double sim = 0, correct = 0, index = 0, map = 0, map_off = 0, call = 0;
};

void print_report(const DemoArgs& a, const std::string& where, const Genome& genome, const DeepSet& deep,
                  const mapper::MapStats& on, const mapper::MapStats& off, bool identical, const DeepCalls& calls,
                  const eval::MapEval& ev, const StepTimes& t) {
  const correct::CorrectSummary& cs = deep.summary;
  const eval::CorrectEval& ce = deep.eval;
  std::printf("gatemap demo: %s\n", where.c_str());
  std::printf("  genome   %zu contigs (GRCh37 names, scale %.4g), %lld bp; donor %zu variants (%.1f s)\n",
              genome.contigs.size(), a.scale, static_cast<long long>(genome.bases), genome.variants, t.sim);
  std::printf("  reads    %lld pairs of 150 bp\n", static_cast<long long>(a.pairs));
  std::printf("  correct  %.1f s (%s) on %lld reads, 30x pairs of a %zu kbp donor: %lld reads changed; errors %lld -> %lld "
              "(%lld fixed, %lld introduced); %lld uncorrectable reads left as they were\n",
              t.correct, cs.backend.c_str(), static_cast<long long>(cs.reads), deep.slice_len / 1000,
              static_cast<long long>(cs.reads_changed), static_cast<long long>(ce.errors_before),
              static_cast<long long>(ce.errors_after), static_cast<long long>(ce.fixed),
              static_cast<long long>(ce.introduced), static_cast<long long>(cs.uncorrectable));
  std::printf("  index    %.1f s\n", t.index);
  std::printf("  map      %.1f s with the filter (%s), %.1f s without; %lld reads, %lld mapped, %lld proper pairs\n",
              t.map, on.filter_kernel_s > 0 ? "GPU" : "CPU", t.map_off, static_cast<long long>(on.reads),
              static_cast<long long>(on.mapped), static_cast<long long>(on.proper_pairs));
  std::printf("  filter   %lld candidates, %lld rejected (%.1f%%), verification %.2f s vs %.2f s without; "
              "records identical: %s\n",
              static_cast<long long>(on.candidates), static_cast<long long>(on.filter_rejected),
              on.candidates ? 100.0 * on.filter_rejected / on.candidates : 0.0, on.verify_s, off.verify_s,
              identical ? "yes" : "NO");
  const eval::VariantCounts& snp = calls.eval.classes[0];
  const eval::VariantCounts& indel = calls.eval.classes[1];
  std::printf("  call     %.1f s (pair-HMM on %s) on the corrected deep set: %lld calls; SNP F1 %.4f "
              "(%lld TP, %lld FP, %lld FN), indel F1 %.4f (%lld TP, %lld FP, %lld FN)\n",
              t.call, calls.stats.backend.c_str(), static_cast<long long>(calls.stats.calls), f1(snp),
              static_cast<long long>(snp.tp), static_cast<long long>(snp.fp), static_cast<long long>(snp.fn), f1(indel),
              static_cast<long long>(indel.tp), static_cast<long long>(indel.fp), static_cast<long long>(indel.fn));
  std::printf("  mapping accuracy (against simulated truth):\n");
  std::printf("    MAPQ>=  mapped    error rate\n");
  for (const auto& r : ev.rows) {
    std::printf("    %-6d  %.4f    %.6f\n", r.min_mapq, static_cast<double>(r.mapped) / std::max<int64_t>(1, ev.total),
                r.mapped ? static_cast<double>(r.wrong) / r.mapped : 0.0);
  }
}

int run_demo(const DemoArgs& a, const AppContext& ctx) {
  const bool temp = a.dir.empty();
  std::string dir = a.dir;
  RemovedOnSignal on_signal;  // the temporary folder goes if a signal ends the demo
  if (temp) {
    dir = io::make_temp_folder("gatemap_demo_");
    on_signal = RemovedOnSignal(dir, true);
  } else {
    std::filesystem::create_directories(dir);
  }
  const PathIn path = [&](const std::string& f) { return (std::filesystem::path(dir) / f).string(); };
  StepTimes t;
  double t0 = log::wall_seconds();
  const auto lap = [&t0] {
    const double now = log::wall_seconds(), s = now - t0;
    t0 = now;
    return s;
  };

  const Genome genome = simulate_genome_and_pairs(a, ctx, path);
  t.sim = lap();
  const DeepSet deep = simulate_and_correct_deep_set(a, ctx, genome, path);
  t.correct = lap();
  index::IndexOptions io;
  io.threads = a.threads;
  index::save_index(*index::build_index(path("ref.fa"), io), path("ref.gmi"));
  t.index = lap();

  mapper::RunOptions mo;
  mo.index_path = path("ref.gmi");
  mo.reads1 = path("reads_1.fq.gz");
  mo.reads2 = path("reads_2.fq.gz");
  mo.hw.threads = a.threads;
  mo.command_line = ctx.command_line;
  mo.version = GATEMAP_VERSION;
  mo.output = path("mapped.sam");
  const mapper::MapStats on = mapper::run_mapping(mo);
  t.map = lap();
  mo.filter = "off";
  mo.output = path("mapped_nofilter.sam");
  const mapper::MapStats off = mapper::run_mapping(mo);
  t.map_off = lap();
  const DeepCalls calls = map_and_call_deep_set(a, ctx, mo, deep, path);
  t.call = lap();

  const bool identical = sam_records(path("mapped.sam")) == sam_records(path("mapped_nofilter.sam"));
  print_report(a, temp ? "a temporary folder, removed at the end (-d DIR keeps the files)" : dir, genome, deep, on, off,
               identical, calls, eval::eval_map(path("mapped.sam")), t);
  if (temp) std::filesystem::remove_all(dir);
  return identical ? 0 : 1;
}

}  // namespace

void register_demo(CLI::App& app, AppContext& ctx) {
  auto* sub = app.add_subcommand("demo", "Simulate, index, map and score a GRCh37-like data set end to end");
  auto a = std::make_shared<DemoArgs>();
  sub->add_option("-d,--dir", a->dir, "Keep the files in this directory (default: a temporary one)");
  sub->add_option("--scale", a->scale, "Genome size as a fraction of GRCh37")
      ->check(finite_in(1e-4, 30))
      ->capture_default_str();
  sub->add_option("-n,--pairs", a->pairs, "Read pairs")->check(finite_in(1, 1e10))->capture_default_str();
  sub->add_option("-t,--threads", a->threads, "Threads")->capture_default_str();
  sub->add_option("--seed", a->seed, "Random seed")->capture_default_str();
  on_run(sub, ctx, [a, &ctx] { return run_demo(*a, ctx); });
}

}  // namespace gatemap::apps

// gatemap demo: the whole path on generated data, with a summary. Simulates a GRCh37-like
// genome (84 b37 contigs, scaled), a diploid donor and paired reads; corrects the reads
// (k-mer spectrum, GPU when present) and scores the correction; indexes, maps with the
// GateKeeper filter (GPU when present) and without it, and scores both against truth.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "apps/commands.hpp"
#include "common/build_info.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "correct/correct.hpp"
#include "eval/eval.hpp"
#include "index/index.hpp"
#include "io/fasta.hpp"
#include "io/fastq_writer.hpp"
#include "mapper/run.hpp"
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

int run_demo(const DemoArgs& a, const AppContext& ctx) {
  const bool temp = a.dir.empty();
  std::string dir = a.dir;
  if (temp) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gatemap_demo_XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw IoError("cannot create a temporary directory");
    dir = tmpl;
  } else {
    std::filesystem::create_directories(dir);
  }
  const auto path = [&](const std::string& f) { return (std::filesystem::path(dir) / f).string(); };
  const double t0 = log::wall_seconds();

  sim::GenomeOptions g;
  g.like_grch37 = true;
  g.scale = a.scale;
  g.seed = a.seed;
  g.threads = a.threads;
  const auto genome = sim::simulate_genome(g);
  io::write_fasta(path("ref.fa"), genome);
  const auto donor = sim::simulate_donor(genome, {});
  sim::write_truth_vcf(path("truth.vcf.gz"), genome, donor.variants, ctx.command_line);
  sim::ReadOptions ro;
  ro.n_fragments = a.pairs;
  ro.seed = a.seed + 1;
  std::vector<sim::SimRead> reads;
  sim::simulate_reads(genome, &donor, ro, reads);
  for (int m = 0; m < 2; ++m) {
    io::FastqWriter w(path("reads_" + std::to_string(m + 1) + ".fq.gz"), a.threads);
    for (size_t i = m; i < reads.size(); i += 2) w.write(reads[i].name, reads[i].seq, reads[i].qual);
    w.close();
  }
  // Error correction needs depth: 30x single reads of 300 kbp from the middle of the
  // longest contig, with their error-free sequences.
  const auto longest = std::max_element(genome.begin(), genome.end(), [](const auto& x, const auto& y) {
    return x.seq.size() < y.seq.size();
  });
  const size_t slice_len = std::min<size_t>(300000, longest->seq.size() / 2);
  const std::vector<io::FastaRecord> slice{{longest->name, longest->seq.substr(longest->seq.size() / 4, slice_len)}};
  sim::ReadOptions cro;
  cro.n_fragments = static_cast<int64_t>(30 * slice_len / 150);
  cro.paired = false;
  cro.sub_rate = 0.005;
  cro.seed = a.seed + 2;
  cro.keep_true_seq = true;
  std::vector<sim::SimRead> creads;
  sim::simulate_reads(slice, nullptr, cro, creads);
  {
    io::FastqWriter w(path("deep.fq.gz"), a.threads), t(path("deep.true.fq.gz"), a.threads);
    for (const auto& r : creads) {
      w.write(r.name, r.seq, r.qual);
      std::string true_seq = r.true_seq;  // '-' marks an inserted error base: true there
      for (size_t k = 0; k < true_seq.size(); ++k) {
        if (true_seq[k] == '-') true_seq[k] = r.seq[k];
      }
      t.write(r.name, true_seq, r.qual);
    }
    w.close();
    t.close();
  }
  int64_t bases = 0;
  for (const auto& r : genome) bases += static_cast<int64_t>(r.seq.size());
  const double t_sim = log::wall_seconds();

  correct::CorrectRunOptions co;
  co.in1 = path("deep.fq.gz");
  co.out1 = path("deep.corrected.fq.gz");
  co.threads = a.threads;
  const correct::CorrectSummary cs = correct::run_correct(co);
  const eval::CorrectEval ce = eval::eval_correct(co.in1, co.out1, path("deep.true.fq.gz"));
  const double t_correct = log::wall_seconds();

  index::IndexOptions io;
  io.threads = a.threads;
  index::save_index(*index::build_index(path("ref.fa"), io), path("ref.gmi"));
  const double t_index = log::wall_seconds();

  mapper::RunOptions mo;
  mo.index_path = path("ref.gmi");
  mo.reads1 = path("reads_1.fq.gz");
  mo.reads2 = path("reads_2.fq.gz");
  mo.map.threads = a.threads;
  mo.command_line = ctx.command_line;
  mo.version = GATEMAP_VERSION;
  mo.output = path("mapped.sam");
  const mapper::MapStats on = mapper::run_mapping(mo);
  const double t_map = log::wall_seconds();
  mo.filter = "off";
  mo.output = path("mapped_nofilter.sam");
  const mapper::MapStats off = mapper::run_mapping(mo);
  const double t_map_off = log::wall_seconds();
  const auto body = [](const std::string& p) {
    std::string all, line;
    std::FILE* f = std::fopen(p.c_str(), "r");
    if (!f) throw IoError("cannot read '" + p + "'");
    char buf[1 << 16];
    while (std::fgets(buf, sizeof buf, f)) {
      if (buf[0] != '@') all += buf;
    }
    std::fclose(f);
    return all;
  };
  const bool identical = body(path("mapped.sam")) == body(path("mapped_nofilter.sam"));
  const eval::MapEval ev = eval::eval_map(path("mapped.sam"));

  std::printf("gatemap demo: %s\n", dir.c_str());
  std::printf("  genome   %zu contigs (GRCh37 names, scale %.4g), %lld bp; donor %zu variants (%.1f s)\n",
              genome.size(), a.scale, static_cast<long long>(bases), donor.variants.size(), t_sim - t0);
  std::printf("  reads    %lld pairs of 150 bp\n", static_cast<long long>(a.pairs));
  std::printf("  correct  %.1f s (%s) on %lld reads at 30x of %zu kbp: %lld reads changed; errors %lld -> %lld "
              "(%lld fixed, %lld introduced); %lld uncorrectable reads left as they were\n",
              t_correct - t_sim, cs.backend.c_str(), static_cast<long long>(cs.reads), slice_len / 1000,
              static_cast<long long>(cs.reads_changed), static_cast<long long>(ce.errors_before),
              static_cast<long long>(ce.errors_after), static_cast<long long>(ce.fixed),
              static_cast<long long>(ce.introduced), static_cast<long long>(cs.uncorrectable));
  std::printf("  index    %.1f s\n", t_index - t_correct);
  std::printf("  map      %.1f s with the filter (%s), %.1f s without; %lld reads, %lld mapped, %lld proper pairs\n",
              t_map - t_index, on.filter_kernel_s > 0 ? "GPU" : "CPU", t_map_off - t_map,
              static_cast<long long>(on.reads), static_cast<long long>(on.mapped),
              static_cast<long long>(on.proper_pairs));
  std::printf("  filter   %lld candidates, %lld rejected (%.1f%%), verification %.2f s vs %.2f s without; "
              "records identical: %s\n",
              static_cast<long long>(on.candidates), static_cast<long long>(on.filter_rejected),
              on.candidates ? 100.0 * on.filter_rejected / on.candidates : 0.0, on.verify_s, off.verify_s,
              identical ? "yes" : "NO");
  std::printf("  accuracy (against simulated truth):\n");
  std::printf("    MAPQ>=  mapped    error rate\n");
  for (const auto& r : ev.rows) {
    std::printf("    %-6d  %.4f    %.6f\n", r.min_mapq, static_cast<double>(r.mapped) / std::max<int64_t>(1, ev.total),
                r.mapped ? static_cast<double>(r.wrong) / r.mapped : 0.0);
  }
  if (temp) std::filesystem::remove_all(dir);
  return identical ? 0 : 1;
}

}  // namespace

void register_demo(CLI::App& app, AppContext& ctx) {
  auto* sub = app.add_subcommand("demo", "Simulate, index, map and score a GRCh37-like data set end to end");
  auto a = std::make_shared<DemoArgs>();
  sub->add_option("-d,--dir", a->dir, "Keep the files in this directory (default: a temporary one)");
  sub->add_option("--scale", a->scale, "Genome size as a fraction of GRCh37")->capture_default_str();
  sub->add_option("-n,--pairs", a->pairs, "Read pairs")->capture_default_str();
  sub->add_option("-t,--threads", a->threads, "Threads")->capture_default_str();
  sub->add_option("--seed", a->seed, "Random seed")->capture_default_str();
  on_run(sub, ctx, [a, &ctx] { return run_demo(*a, ctx); });
}

}  // namespace gatemap::apps

// gatemap bench filter|pairhmm|fastq|bgzf: the tables behind docs/BENCHMARKS.md.
#include <omp.h>

#include "apps/commands.hpp"
#include "bench/bench.hpp"
#include "common/thread_budget.hpp"

namespace gatemap::apps {

void register_bench(CLI::App& app, AppContext& ctx) {
  auto* bench = app.add_subcommand("bench", "Benchmarks behind docs/BENCHMARKS.md");
  bench->require_subcommand(1);
  auto* filter = bench->add_subcommand("filter", "GateKeeper filter: accuracy vs edit distance, CPU/GPU throughput");
  auto o = std::make_shared<bench::FilterBenchOptions>();
  // GateKeeper's limits: reads of up to 512 bp, up to 64 edits.
  filter->add_option("--lengths", o->lengths, "Read lengths")
      ->delimiter(',')
      ->check(finite_in(1, 512))
      ->capture_default_str();
  filter->add_option("--edits", o->edits, "Edit thresholds for throughput")
      ->delimiter(',')
      ->check(finite_in(0, 64))
      ->capture_default_str();
  filter->add_option("--pairs", o->pairs, "Pairs per throughput setting")->check(finite_in(1, 1e10))->capture_default_str();
  filter->add_option("--accuracy-pairs", o->accuracy_pairs, "Pairs per accuracy set and setting (0: skip)")
      ->check(finite_in(0, 1e10))
      ->capture_default_str();
  filter->add_option("--max-accuracy-edits", o->max_accuracy_edits, "Accuracy for e = 0..N")
      ->check(finite_in(0, 64))
      ->capture_default_str();
  filter->add_option("--reps", o->reps, "Timed repetitions")->check(finite_in(1, 1e6))->capture_default_str();
  filter->add_option("--genome", o->genome_bp, "Synthetic genome size")->check(finite_in(1e3, 1e11))->capture_default_str();
  filter->add_option("--backend", o->backend, "cpu, gpu or both")
      ->check(CLI::IsMember({"cpu", "gpu", "both"}))
      ->capture_default_str();
  filter->add_option("-o,--output", o->out, "TSV to write (stdout when absent)");
  filter->add_option("-t,--threads", o->threads, "CPU threads")->capture_default_str();
  on_run(filter, ctx, [o] {
    bench::run_filter_bench(*o);
    return 0;
  });
  auto* ph = bench->add_subcommand("pairhmm", "Pair-HMM GCUPS (GPU kernel/total, CPU twin) and accuracy vs double");
  auto p = std::make_shared<bench::PairHmmBenchOptions>();
  ph->add_option("--sizes", p->sizes, "Equal read/haplotype lengths")
      ->delimiter(',')
      ->check(finite_in(1, 8192))
      ->capture_default_str();
  ph->add_option("--long-read-haps", p->long_read_haps, "Haplotype lengths with reads 10x longer")
      ->delimiter(',')
      ->check(finite_in(1, 819))
      ->capture_default_str();
  ph->add_option("--gpu-cells", p->gpu_cells, "Cells per GPU set")->check(finite_in(1e3, 1e13))->capture_default_str();
  ph->add_option("--cpu-cells", p->cpu_cells, "Cells per CPU set")->check(finite_in(1e3, 1e13))->capture_default_str();
  ph->add_option("--reps", p->reps, "Timed GPU repetitions (median)")->check(finite_in(1, 1e6))->capture_default_str();
  ph->add_flag("!--no-gpu", p->gpu, "Skip the GPU engine");
  ph->add_flag("!--no-cpu", p->cpu, "Skip the CPU twin");
  ph->add_option("--file", p->file, "PairHMM benchmark file to time (e.g. 10s.in)");
  ph->add_flag("--sweep", p->sweep, "Also time every kernel shape forced on every set");
  ph->add_option("--check", p->check_pairs, "Random pairs for the accuracy check (0: skip)")->capture_default_str();
  ph->add_option("-o,--output", p->out, "TSV to write (stdout when absent)");
  ph->add_option("-t,--threads", p->threads, "CPU threads")->capture_default_str();
  on_run(ph, ctx, [p] {
    bench::run_pairhmm_bench(*p);
    return 0;
  });
  auto* fastq = bench->add_subcommand("fastq", "FASTQ parsing speed: record by record, and in batches on all threads");
  auto fq = std::make_shared<std::vector<std::string>>();
  auto fq_threads = std::make_shared<int>(0);
  fastq->add_option("fastq", *fq, "FASTQ file (plain or gzip); two: a pair of files")->required()->expected(1, 2);
  fastq->add_option("-t,--threads", *fq_threads, "threads for the batches")->capture_default_str();
  on_run(fastq, ctx, [fq, fq_threads] {
    use_threads(*fq_threads);
    bench::run_fastq_bench(fq->at(0), fq->size() > 1 ? fq->at(1) : "");
    return 0;
  });
  auto* bgzf = bench->add_subcommand("bgzf", "BAM compression: libdeflate levels 1 and 6 vs gatemap's on CPU and GPU");
  auto bam = std::make_shared<std::string>();
  auto threads = std::make_shared<int>(0), reps = std::make_shared<int>(3);
  bgzf->add_option("bam", *bam, "a BAM file (its records are compressed again)")->required();
  bgzf->add_option("-t,--threads", *threads, "CPU threads")->capture_default_str();
  bgzf->add_option("--reps", *reps, "timed repetitions (best reported)")->check(CLI::Range(1, 100))->capture_default_str();
  on_run(bgzf, ctx, [bam, threads, reps] {
    bench::run_bgzf_bench(*bam, *threads > 0 ? *threads : omp_get_max_threads(), *reps);
    return 0;
  });
}

}  // namespace gatemap::apps

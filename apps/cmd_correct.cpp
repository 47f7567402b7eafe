// gatemap correct: k-mer spectrum error correction of FASTQ reads (GPU or CPU twin).
#include <cstdio>
#include <memory>

#include "apps/commands.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "common/stats_report.hpp"
#include "correct/correct.hpp"
#include "io/output_file.hpp"
#include "io/run_paths.hpp"
#include "io/sort/bam_sorter.hpp"
#include "io/text/text_output.hpp"

namespace gatemap::apps {

void register_correct(CLI::App& app, AppContext& ctx) {
  auto o = std::make_shared<correct::CorrectRunOptions>();
  auto summary = std::make_shared<std::string>();
  auto stats = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("correct", "Correct substitution errors in reads with a k-mer spectrum (CUDA-EC style)");
  sub->add_option("reads", o->in1, "FASTQ (plain or gzip), or SAM/BAM/CRAM with mates next to each other (e.g. unmapped BAM; pairs need -p)")->required();
  sub->add_option("reads2", o->in2, "Second FASTQ of a pair");
  sub->add_option("-o,--output", o->out1, "Corrected FASTQ (.gz: bgzip; - : stdout)")->required();
  sub->add_option("-p,--output2", o->out2, "Corrected second FASTQ of a pair");
  sub->add_option("-T,--reference", o->reference, "The FASTA a CRAM input is decoded against");
  sub->add_option("-k", o->k, "k-mer length (8..31)")->capture_default_str();
  // Counts are kept up to 1023 (correct/kmer_count.hpp).
  sub->add_option("--solid", o->threshold, "Solid when seen at least this often (0: first valley of the histogram)")
      ->check(CLI::Range(0, 1023))
      ->capture_default_str();
  sub->add_option("--spectrum", o->spectrum,
                  "Solid k-mers as an exact hash set or a Bloom filter (auto: exact while its table takes at most "
                  "1 GiB, about 90 M solid k-mers; for a GPU 170 M at k <= 21)")
      ->check(CLI::IsMember({"auto", "bloom", "exact"}))
      ->capture_default_str();
  sub->add_option("--fpr", o->bloom_fpr, "Bloom filter false-positive rate (--spectrum bloom, or auto past 1 GiB)")
      ->check(finite_in(1e-9, 0.5))
      ->capture_default_str();
  // A read takes up to this many rounds of voting: more than a few hundred only costs time.
  sub->add_option("--max-corrections", o->max_corrections, "Substitutions per read at most")
      ->check(CLI::Range(0, 255))
      ->capture_default_str();
  sub->add_option("--device", o->device, "GPUs: 0, 0,1,... or all (each batch split between them)")
      ->capture_default_str();
  auto gpu_mem = add_gpu_memory_option(sub);
  auto* backend = sub->add_option("--backend", o->backend, "gpu, cpu or auto")
                      ->check(CLI::IsMember({"gpu", "cpu", "auto"}))
                      ->capture_default_str();
  auto* gpu = sub->add_flag_callback(
      "--gpu", [o] { o->backend = "gpu"; }, "Same as --backend gpu");
  auto* cpu = sub->add_flag_callback(
      "--cpu", [o] { o->backend = "cpu"; }, "Same as --backend cpu");
  gpu->excludes(cpu)->excludes(backend);
  cpu->excludes(backend);
  sub->add_option("--keep-reads-gb", o->keep_reads_gb,
                  "Keep reads in memory between the passes up to this size (-1: read files again; keep input that "
                  "cannot be read twice up to 4 GB, then spill it to a temporary file)")
      ->check(finite_in(-1, 1e6))
      ->capture_default_str();
  auto count_mem = std::make_shared<std::string>("0");
  sub->add_option("--count-mem", *count_mem,
                  "Memory for the k-mer counts (e.g. 2G); more k-mers are counted in parts, one more pass over the "
                  "reads each (0: half the GPU's free memory, or half the RAM on the CPU)")
      ->capture_default_str();
  sub->add_option("--summary", *summary, "Write the summary (TSV) to this file");
  sub->add_option("--stats", *stats, "Write the summary as JSON");
  sub->add_option("-t,--threads", o->threads, "CPU threads")->capture_default_str();
  sub->add_option("-l", o->gz_level,
                  "Compression level of .gz output, 0-9 (as bgzip -l; 1 writes several times faster, files ~6% "
                  "larger) [htslib's default, 6]")
      ->check(CLI::Range(0, 9));
  on_run(sub, ctx, [o, summary, stats, count_mem, gpu_mem] {
    o->count_mem = *count_mem == "0" ? 0 : io::parse_memory(*count_mem, "--count-mem");
    o->gpu_memory = gpu_memory_bytes(*gpu_mem);
    // Every path at once (io/run_paths.hpp), before any work.
    io::RunPaths paths;
    paths.reads(o->in1).reads(o->in2).reads(o->reference);
    paths.writes(o->out1, "-o").writes(o->out2, "-p").writes(*summary, "--summary").writes(*stats, "--stats").check();
    const correct::CorrectSummary s = correct::run_correct(*o);
    const std::string text = correct::format_summary(s);
    log::info("correct", stats_line(text));
    try {
      if (!summary->empty()) io::write_side_output(*summary, text);
      if (!stats->empty()) io::write_side_output(*stats, stats_json(text));
    } catch (...) {  // no output under its name after a failure, a report's included
      io::remove_outputs(o->out1);
      io::remove_outputs(o->out2);
      if (!summary->empty()) io::remove_outputs(*summary);
      throw;
    }
    return 0;
  });
}

}  // namespace gatemap::apps

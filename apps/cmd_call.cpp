// gatemap call: germline SNPs and indels of diploid samples from sorted BAM/SAM/CRAM.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "apps/commands.hpp"
#include "caller/caller.hpp"
#include "common/build_info.hpp"
#include "common/log.hpp"
#include "common/stats_report.hpp"
#include "io/output_file.hpp"
#include "io/run_paths.hpp"
#include "io/text/text_output.hpp"
#include "io/text/vcf_writer.hpp"

namespace gatemap::apps {

void register_call(CLI::App& app, AppContext& ctx) {
  auto o = std::make_shared<caller::CallOptions>();
  auto stats = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("call", "Call SNPs and indels (active regions, local assembly, GPU pair-HMM)");
  sub->add_option("inputs", o->inputs,
                  "Coordinate-sorted BAM, CRAM (decoded with -r) or SAM; several are merged, their samples (@RG SM) "
                  "each a column of the VCF")
      ->required();
  sub->add_option("-r,--reference", o->reference, "Reference FASTA")->required();
  sub->add_option("-o,--output", o->output, "VCF (.vcf.gz: bgzip; default stdout)");
  sub->add_option("-L,--intervals", o->intervals,
                  "Call only here: chr, chr:beg-end (1-based, inclusive) or a BED file; repeatable. Needs indexed "
                  "input; gives exactly the whole run's calls there")
      ->allow_extra_args(false);
  sub->add_flag("--gvcf", o->gvcf,
                "gVCF (as -ERC GVCF) of one sample, for 'gatemap joint': every base in a variant record or a reference "
                "block (<NON_REF>, END, GQ bands)");
  sub->add_option("--backend", o->backend, "Pair-HMM on gpu, cpu or auto")
      ->check(CLI::IsMember({"gpu", "cpu", "auto"}))
      ->capture_default_str();
  sub->add_option("--device", o->device,
                  "GPUs: 0, 0,1,... or all (the genome called in parts, one GPU each; needs an indexed BAM)")
      ->capture_default_str();
  auto gpu_mem = add_gpu_memory_option(sub);
  sub->add_option("--min-mapq", o->min_mapq, "Reads below this MAPQ are not used")
      ->check(CLI::Range(0, 255))
      ->capture_default_str();
  sub->add_option("--min-base-q", o->min_base_q, "Bases below this quality are not evidence")
      ->check(CLI::Range(0, 93))
      ->capture_default_str();
  sub->add_option("--min-qual", o->min_qual, "Calls below this QUAL are not written")
      ->check(finite_in(0, 1e6))
      ->capture_default_str();
  sub->add_option("--min-qd", o->min_qd, "Calls below this QD (QUAL by depth) get FILTER LowQD")
      ->check(finite_in(0, 1e6))
      ->capture_default_str();
  sub->add_option("--max-haplotypes", o->max_haplotypes, "Haplotypes per region, per sample (a cohort's: at most 128, as GATK's)")
      ->check(CLI::Range(2, 1024))
      ->capture_default_str();
  sub->add_option("--max-reads-per-start", o->max_reads_per_start,
                  "Reads of one sample starting at one position kept at most (GATK's --max-reads-per-alignment-start); 0: all")
      ->check(CLI::Range(0, 100000000))
      ->capture_default_str();
  sub->add_option("-t,--threads", o->threads, "Threads")->capture_default_str();
  sub->add_option("--stats", *stats, "Write the run's counts and stage times as JSON");
  sub->add_option("--lanes", o->lanes, "")->group("");
  on_run(sub, ctx, [o, stats, gpu_mem, &ctx] {
    o->command_line = ctx.command_line;
    o->gpu_memory = gpu_memory_bytes(*gpu_mem);
    o->version = GATEMAP_VERSION;
    o->leave_to_exit = true;
    // Every path at once (io/run_paths.hpp): inputs, their indexes, the reference and a
    // -L BED file are never written; the VCF, its index and --stats each have a name of their own.
    io::RunPaths paths;
    for (const std::string& in : o->inputs) paths.reads(in);
    paths.reads(o->reference);
    for (const std::string& l : o->intervals) {
      if (std::filesystem::is_regular_file(l)) paths.reads(l);
    }
    const std::vector<std::string> vcf_index = io::vcf_index_names(o->output);
    paths.writes(o->output.empty() ? "-" : o->output, "-o", vcf_index).writes(*stats, "--stats").check();
    const std::string tsv = caller::format_stats(caller::run_call(*o));
    log::info("call", stats_line(tsv));
    try {
      if (!stats->empty()) io::write_side_output(*stats, stats_json(tsv));
    } catch (...) {  // no output under its name after a failure, a report's included
      io::remove_outputs(o->output, vcf_index);
      throw;
    }
    return 0;
  });
}

}  // namespace gatemap::apps

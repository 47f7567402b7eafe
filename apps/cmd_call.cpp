// gatemap call: germline SNPs and indels of one diploid sample from sorted BAM/SAM.
#include <cstdio>
#include <memory>

#include "apps/commands.hpp"
#include "caller/caller.hpp"
#include "common/build_info.hpp"

namespace gatemap::apps {

void register_call(CLI::App& app, AppContext& ctx) {
  auto o = std::make_shared<caller::CallOptions>();
  auto* sub = app.add_subcommand("call", "Call SNPs and indels (active regions, local assembly, GPU pair-HMM)");
  sub->add_option("inputs", o->inputs, "Coordinate-sorted BAM/SAM (several are merged)")->required();
  sub->add_option("-r,--reference", o->reference, "Reference FASTA")->required();
  sub->add_option("-o,--output", o->output, "VCF (.vcf.gz: bgzip; default stdout)");
  sub->add_option("-L,--intervals", o->intervals,
                  "Call only here: chr, chr:beg-end (1-based, inclusive) or a BED file; repeatable. Needs indexed "
                  "input; gives exactly the whole run's calls there")
      ->allow_extra_args(false);
  sub->add_flag("--gvcf", o->gvcf,
                "gVCF (as -ERC GVCF): every base in a variant record or a reference block (<NON_REF>, END, GQ bands)");
  sub->add_option("--backend", o->backend, "Pair-HMM on gpu, cpu or auto")
      ->check(CLI::IsMember({"gpu", "cpu", "auto"}))
      ->capture_default_str();
  sub->add_option("--device", o->device, "GPUs: 0, 0,1,... or all (each pair-HMM batch split between them)")
      ->capture_default_str();
  sub->add_option("--min-mapq", o->min_mapq, "Reads below this MAPQ are not used")
      ->check(CLI::Range(0, 255))
      ->capture_default_str();
  sub->add_option("--min-base-q", o->min_base_q, "Bases below this quality are not evidence")
      ->check(CLI::Range(0, 93))
      ->capture_default_str();
  sub->add_option("--min-qual", o->min_qual, "Calls below this QUAL are not written")
      ->check(finite_in(0, 1e6))
      ->capture_default_str();
  sub->add_option("--max-haplotypes", o->max_haplotypes, "Haplotypes per region")
      ->check(CLI::Range(2, 1024))
      ->capture_default_str();
  sub->add_option("-t,--threads", o->threads, "Threads (0: all)")->capture_default_str();
  on_run(sub, ctx, [o, &ctx] {
    o->command_line = ctx.command_line;
    o->version = GATEMAP_VERSION;
    o->leave_to_exit = true;
    const caller::CallStats s = caller::run_call(*o);
    std::fprintf(stderr, "%s", caller::format_stats(s).c_str());
    return 0;
  });
}

}  // namespace gatemap::apps

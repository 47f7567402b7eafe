// gatemap joint: a cohort's VCF from its samples' gVCFs (GATK GenotypeGVCFs).
#include <memory>

#include "apps/commands.hpp"
#include "caller/joint.hpp"
#include "common/build_info.hpp"
#include "common/log.hpp"
#include "io/run_paths.hpp"
#include "io/text/vcf_writer.hpp"

namespace gatemap::apps {

void register_joint(CLI::App& app, AppContext& ctx) {
  auto o = std::make_shared<caller::JointOptions>();
  auto* sub = app.add_subcommand("joint", "Genotype a cohort from its samples' gVCFs (as GATK GenotypeGVCFs)");
  sub->add_option("gvcfs", o->inputs, "gVCFs of 'gatemap call --gvcf', one per sample (indexed: called in parallel)")
      ->required();
  sub->add_option("-r,--reference", o->reference, "Reference FASTA the gVCFs were called against")->required();
  sub->add_option("-o,--output", o->output, "VCF (.vcf.gz: bgzip and .tbi; .bcf; default stdout)");
  sub->add_option("--min-qual", o->min_qual, "Sites below this QUAL are not written")
      ->check(finite_in(0, 1e6))
      ->capture_default_str();
  sub->add_option("--min-qd", o->min_qd, "Sites below this QD get FILTER LowQD")
      ->check(finite_in(0, 1e6))
      ->capture_default_str();
  sub->add_option("-t,--threads", o->threads, "Threads")->capture_default_str();
  on_run(sub, ctx, [o, &ctx] {
    o->command_line = ctx.command_line;
    o->version = GATEMAP_VERSION;
    io::RunPaths paths;
    for (const std::string& in : o->inputs) paths.reads(in);
    paths.reads(o->reference);
    paths.writes(o->output.empty() ? "-" : o->output, "-o", io::vcf_index_names(o->output)).check();
    const caller::JointStats s = caller::run_joint(*o);
    log::info("joint", std::to_string(o->inputs.size()) + " gVCFs, " + std::to_string(s.records) + " records read, " +
                           std::to_string(s.calls) + " sites written in " + std::to_string(s.total_s) + " s");
    return 0;
  });
}

}  // namespace gatemap::apps

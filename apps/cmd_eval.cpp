// gatemap eval map: score alignments against the truth carried in simulated read names.
#include <cstdio>
#include <memory>

#include "apps/commands.hpp"
#include "common/error.hpp"
#include "eval/eval.hpp"
#include "io/output_file.hpp"
#include "io/text/text_output.hpp"

namespace gatemap::apps {

void register_eval(CLI::App& app, AppContext& ctx) {
  auto* ev = app.add_subcommand("eval", "Score mappings and variant calls against truth");
  ev->require_subcommand(1);
  auto* map = ev->add_subcommand("map", "Score a SAM/BAM from any mapper (reads from 'gatemap sim reads')");
  auto sam = std::make_shared<std::string>();
  auto tolerance = std::make_shared<int>(10);
  auto wrong = std::make_shared<std::string>();
  map->add_option("sam", *sam, "SAM/BAM to score")->required();
  map->add_option("--wrong", *wrong,
                  "Also list the misplaced primary records in this file (name, mate, MAPQ, "
                  "placed at, true place)");
  map->add_option("--tolerance", *tolerance, "Allowed distance from the true leftmost position")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  on_run(map, ctx, [sam, tolerance, wrong] {
    std::unique_ptr<io::TextOutput> wrong_out;
    if (!wrong->empty()) {
      io::check_side_output(*wrong, "--wrong", {*sam});
      wrong_out = std::make_unique<io::TextOutput>(*wrong);
    }
    const eval::MapEval e = eval::eval_map(*sam, *tolerance, wrong_out ? wrong_out->file() : nullptr);
    if (wrong_out) wrong_out->close();
    eval::print_map_eval(e, stdout);
    return 0;
  });

  auto* vcf = ev->add_subcommand("vcf", "Score variant calls against a truth VCF (normalized allele matching)");
  struct VcfArgs {
    std::string truth, calls, ref, bed;
    bool all_records = false;
  };
  auto va = std::make_shared<VcfArgs>();
  vcf->add_option("truth", va->truth, "Truth VCF")->required();
  vcf->add_option("calls", va->calls, "Calls VCF")->required();
  vcf->add_option("-r,--ref", va->ref, "Reference FASTA")->required();
  vcf->add_flag("--all-records", va->all_records, "Also score calls whose FILTER is not PASS");
  vcf->add_option("--bed", va->bed,
                  "Confident regions (BED, as hap.py -f): score only variants whose reference allele lies inside");
  auto* corr = ev->add_subcommand("correct", "Score error correction against true read sequences");
  struct CorrectArgs {
    std::string original, corrected, truth;
  };
  auto ca = std::make_shared<CorrectArgs>();
  corr->add_option("original", ca->original, "Reads before correction")->required();
  corr->add_option("corrected", ca->corrected, "The same reads after correction")->required();
  corr->add_option("truth", ca->truth, "True sequences ('gatemap sim reads --truth-fastq')")->required();
  on_run(corr, ctx, [ca] {
    eval::print_correct_eval(eval::eval_correct(ca->original, ca->corrected, ca->truth), stdout);
    return 0;
  });

  on_run(vcf, ctx, [va] {
    eval::print_vcf_eval(eval::eval_vcf(va->truth, va->calls, va->ref, !va->all_records, va->bed), stdout);
    return 0;
  });
}

}  // namespace gatemap::apps

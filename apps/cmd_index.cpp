// gatemap index: FASTA -> REF.gmi (packed reference + k-mer table).
#include <filesystem>

#include "apps/commands.hpp"
#include "common/log.hpp"
#include "common/stats_report.hpp"
#include "index/index.hpp"
#include "io/output_file.hpp"
#include "io/run_paths.hpp"
#include "io/text/text_output.hpp"

namespace gatemap::apps {

void register_index(CLI::App& app, AppContext& ctx) {
  auto* sub = app.add_subcommand("index", "Build the k-mer index of a reference FASTA");
  struct Args {
    std::string fasta, out, stats;
    index::IndexOptions opt;
  };
  auto args = std::make_shared<Args>();
  sub->add_option("ref", args->fasta, "Reference FASTA (plain, gzip or bgzip)")->required();
  sub->add_option("-o,--output", args->out, "Index file to write [REF.gmi]");
  sub->add_option("-k", args->opt.k, "k-mer length (8..16)")->capture_default_str();
  sub->add_option("-s,--stride", args->opt.stride, "Sample a k-mer every N positions (0: 1 up to 1 Gbp, else 2)")
      ->capture_default_str();
  sub->add_option("-c,--max-occ", args->opt.max_occ, "k-mers with more positions are capped")
      ->check(finite_in(1, 1e9))  // 0 would cap every k-mer: no read placed
      ->capture_default_str();
  sub->add_option("-t,--threads", args->opt.threads, "Threads")->capture_default_str();
  sub->add_option("--stats", args->stats, "Write the index's counts and times as JSON");
  on_run(sub, ctx, [args] {
    const std::string out = args->out.empty() ? args->fasta + ".gmi" : args->out;
    // The FASTA's own index (REF.gmi) is this command's output: only the FASTA is kept safe.
    io::RunPaths().reads(args->fasta, false).writes(out, "-o").writes(args->stats, "--stats").check();
    index::IndexFile file(out);  // an unwritable output said now, not after the build
    const double t0 = log::wall_seconds();
    auto idx = index::build_index(args->fasta, args->opt);
    const double t1 = log::wall_seconds();
    file.save(*idx);
    log::info("index", "wrote '" + out + "' in " + std::to_string(log::wall_seconds() - t1) + " s (build " +
                           std::to_string(t1 - t0) + " s)");
    log::info("main", "Real time: " + std::to_string(log::wall_seconds()) + " sec; CPU: " +
                          std::to_string(log::cpu_seconds()) + " sec; Peak RSS: " +
                          std::to_string(log::peak_rss_bytes() / 1048576) + " MiB");
    if (!args->stats.empty()) {  // the same summary as map's, call's and correct's --stats
      const index::IndexStats& st = idx->stats();
      std::string tsv;
      const auto add = [&tsv](const std::string& name, const std::string& value) { tsv += name + "\t" + value + "\n"; };
      add("contigs", std::to_string(idx->contigs().size()));
      add("bases", std::to_string(idx->length()));
      add("k", std::to_string(idx->k()));
      add("stride", std::to_string(idx->stride()));
      add("positions", std::to_string(st.positions));
      add("distinct_kmers", std::to_string(st.distinct_kmers));
      add("capped_kmers", std::to_string(st.capped_kmers));
      add("n_bases", std::to_string(st.n_bases));
      add("file_bytes", std::to_string(std::filesystem::file_size(out)));
      add("build_s", std::to_string(t1 - t0));
      add("total_s", std::to_string(log::wall_seconds()));
      add("peak_rss_mib", std::to_string(log::peak_rss_bytes() / 1048576));
      io::write_side_output(args->stats, stats_json(tsv));
    }
    return 0;
  });
}

}  // namespace gatemap::apps

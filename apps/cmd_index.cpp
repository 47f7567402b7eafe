// gatemap index: FASTA -> REF.gmi (packed reference + k-mer table).
#include "apps/commands.hpp"
#include "common/log.hpp"
#include "index/index.hpp"
#include "io/output_file.hpp"

namespace gatemap::apps {

void register_index(CLI::App& app, AppContext& ctx) {
  auto* sub = app.add_subcommand("index", "Build the k-mer index of a reference FASTA");
  struct Args {
    std::string fasta, out;
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
  on_run(sub, ctx, [args] {
    const std::string out = args->out.empty() ? args->fasta + ".gmi" : args->out;
    io::check_not_input(out, "-o", {args->fasta});
    const double t0 = log::wall_seconds();
    auto idx = index::build_index(args->fasta, args->opt);
    const double t1 = log::wall_seconds();
    index::save_index(*idx, out);
    log::info("index", "wrote '" + out + "' in " + std::to_string(log::wall_seconds() - t1) + " s (build " +
                           std::to_string(t1 - t0) + " s)");
    log::info("main", "Real time: " + std::to_string(log::wall_seconds()) + " sec; CPU: " +
                          std::to_string(log::cpu_seconds()) + " sec; Peak RSS: " +
                          std::to_string(log::peak_rss_bytes() / 1048576) + " MiB");
    return 0;
  });
}

}  // namespace gatemap::apps

#include "apps/commands.hpp"

namespace gatemap::apps {

// The one place where subcommands are listed, in the order `--help` shows them.
void register_all(CLI::App& app, AppContext& ctx) {
  for (RegisterFn fn : {register_index, register_map, register_call, register_joint, register_correct, register_sim, register_eval,
                        register_pairhmm, register_bench, register_demo, register_version}) {
    fn(app, ctx);
  }
  // -v means the same in every command (and its subcommands), as in bwa and samtools.
  // -t is checked in one place too: 0 (all cores, where a command allows it) to kMaxThreads.
  std::function<void(CLI::App*)> add_verbosity = [&](CLI::App* sub) {
    sub->add_option("-v", ctx.verbosity, "Verbosity: 1 errors, 2 warnings, 3 progress, 4 debug")
        ->check(CLI::Range(0, 10))
        ->capture_default_str();
    if (CLI::Option* threads = sub->get_option_no_throw("-t")) threads->check(CLI::Range(0, kMaxThreads));
    for (CLI::App* nested : sub->get_subcommands({})) add_verbosity(nested);
  };
  for (CLI::App* sub : app.get_subcommands({})) add_verbosity(sub);
}

}  // namespace gatemap::apps

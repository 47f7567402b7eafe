#include "apps/commands.hpp"

namespace gatemap::apps {

// The one place where subcommands are listed, in the order `--help` shows them.
void register_all(CLI::App& app, AppContext& ctx) {
  for (RegisterFn fn : {register_index, register_map, register_call, register_correct, register_sim, register_eval, register_pairhmm, register_bench, register_demo,
                        register_version}) {
    fn(app, ctx);
  }
}

}  // namespace gatemap::apps

#include "apps/commands.hpp"

#include <omp.h>

#include "io/sort/bam_sorter.hpp"

namespace gatemap::apps {

// The one place where subcommands are listed, in the order `--help` shows them.
void register_all(CLI::App& app, AppContext& ctx) {
  for (RegisterFn fn : {register_index, register_map, register_call, register_joint, register_correct, register_sim, register_eval, register_report,
                        register_pairhmm, register_bench, register_demo, register_version}) {
    fn(app, ctx);
  }
  // -v means the same in every command (and its subcommands), as in bwa and samtools.
  // -t too: one default for every command, every CPU this process may use (its affinity
  // mask, or OMP_NUM_THREADS, as nproc counts them: a cluster job's cores, not the
  // node's); 0 says the same; at most kMaxThreads.
  const int cpus = std::max(1, omp_get_max_threads());
  std::function<void(CLI::App*)> add_verbosity = [&](CLI::App* sub) {
    sub->add_option("-v", ctx.verbosity, "Verbosity: 1 errors, 2 warnings, 3 progress, 4 debug")
        ->check(CLI::Range(0, 10))
        ->capture_default_str();
    if (CLI::Option* threads = sub->get_option_no_throw("-t")) {
      threads->check(CLI::Range(0, kMaxThreads))
          ->transform([cpus](std::string v) { return v == "0" ? std::to_string(cpus) : v; }, "", "")
          ->default_val(cpus)
          ->description(threads->get_description() + " (0: every CPU this process may use, the default)");
    }
    for (CLI::App* nested : sub->get_subcommands({})) add_verbosity(nested);
  };
  for (CLI::App* sub : app.get_subcommands({})) add_verbosity(sub);
}

std::shared_ptr<std::string> add_gpu_memory_option(CLI::App* sub) {
  auto text = std::make_shared<std::string>("0");
  sub->add_option("--gpu-mem", *text,
                  "GPU memory this run may use on each of its GPUs, e.g. 24G: it runs as on a card of that size "
                  "(smaller batches, or the CPU where a stage does not fit; records unchanged) [0: all]")
      ->capture_default_str();
  return text;
}

size_t gpu_memory_bytes(const std::string& text) { return text == "0" ? 0 : io::parse_memory(text, "--gpu-mem"); }

}  // namespace gatemap::apps

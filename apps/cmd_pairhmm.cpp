// gatemap pairhmm: log10 likelihoods for a PairHMM benchmark file, one per line, in the
// order of its .out file.
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "apps/commands.hpp"
#include "caller/pairhmm/pairhmm.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "gpu/device.hpp"
#include "io/output_file.hpp"

namespace gatemap::apps {

namespace {

struct PairHmmArgs {
  std::string in, out, backend = "auto";
  bool no_tristate = false;
  int threads = 0;
};

int run_pairhmm(const PairHmmArgs& a) {
  if (a.threads > 0) omp_set_num_threads(a.threads);
  if (!a.out.empty()) io::check_not_input(a.out, "-o", {a.in});
  caller::pairhmm::PairHmmBatch batch;
  // The engine is made (CUDA started, buffers pinned) while the file is read.
  std::future<std::unique_ptr<caller::pairhmm::PairHmmEngine>> made;
  if (a.backend != "ref") {
    made = std::async(std::launch::async, [&a] {
      return std::make_unique<caller::pairhmm::PairHmmEngine>(gpu::choose_backend(a.backend));
    });
  }
  double t = log::wall_seconds();
  caller::pairhmm::read_pairhmm_file(a.in, batch);
  log::info("pairhmm", "read " + std::to_string(batch.groups.size()) + " test cases, " +
                           std::to_string(batch.pair_count()) + " pairs, " + std::to_string(batch.cell_count()) +
                           " cells from " + a.in + " in " + std::to_string(log::wall_seconds() - t) + " s");
  caller::pairhmm::PairHmmOptions opt;
  opt.tristate = !a.no_tristate;
  std::vector<double> lik;
  caller::pairhmm::PairHmmStats st;
  std::string used;
  if (a.backend == "ref") {
    caller::pairhmm::pairhmm_reference(batch, opt, lik);
    used = "double reference";
  } else {
    const auto engine = made.get();
    engine->compute(batch, opt, lik, &st);
    used = gpu::backend_name(engine->backend());
  }
  t = log::wall_seconds();
  io::OutputFile out_file(a.out.empty() ? "-" : a.out);  // renamed into place once complete
  std::FILE* out = a.out.empty() ? stdout : std::fopen(out_file.write_path().c_str(), "w");
  if (!out) throw IoError("cannot open " + a.out + " for writing");
  // "%.10g\n" per likelihood, formatted on all threads a block at a time.
  constexpr size_t kBlock = 1 << 16;
  std::vector<std::string> text((lik.size() + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t b = 0; b < text.size(); ++b) {
    char buf[64];
    for (size_t i = b * kBlock; i < std::min(lik.size(), (b + 1) * kBlock); ++i) {
      const auto end = std::to_chars(buf, buf + sizeof buf - 1, lik[i], std::chars_format::general, 10).ptr;
      *end = '\n';
      text[b].append(buf, end + 1);
    }
  }
  for (const std::string& block : text) {
    if (std::fwrite(block.data(), 1, block.size(), out) != block.size()) {
      throw IoError("failed writing " + (a.out.empty() ? "stdout" : a.out));
    }
  }
  if (std::fflush(out) != 0 || (out != stdout && std::fclose(out) != 0)) {
    throw IoError("failed writing " + (a.out.empty() ? "stdout" : a.out));
  }
  out_file.commit();
  log::info("pairhmm", used + ": " + std::to_string(lik.size()) + " likelihoods, " + std::to_string(st.double_pairs) +
                           " recomputed in double, engine " + std::to_string(st.total_ms) + " ms (kernels " +
                           std::to_string(st.kernel_ms) + " ms, packing " + std::to_string(st.pack_ms) +
                           " ms); written in " + std::to_string(log::wall_seconds() - t) + " s");
  return 0;
}

}  // namespace

void register_pairhmm(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<PairHmmArgs>();
  auto* sub = app.add_subcommand("pairhmm", "Pair-HMM log10 likelihoods for a PairHMM benchmark file (.in)");
  sub->add_option("input", a->in, "Benchmark file: test cases of reads x haplotypes")->required();
  sub->add_option("-o,--output", a->out, "Output (stdout when absent)");
  sub->add_option("--backend", a->backend, "gpu, cpu (float twin), ref (double oracle) or auto")
      ->check(CLI::IsMember({"gpu", "cpu", "ref", "auto"}))
      ->capture_default_str();
  sub->add_flag("--no-tristate", a->no_tristate, "Mismatch prior e instead of e/3 (as the benchmark files)");
  sub->add_option("-t,--threads", a->threads, "CPU threads")->capture_default_str();
  on_run(sub, ctx, [a] { return run_pairhmm(*a); });
}

}  // namespace gatemap::apps

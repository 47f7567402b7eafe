// gatemap bench pairhmm: GCUPS of the GPU engine (kernel and total time) next to the
// float CPU twin on all cores, the "10s" benchmark file, and an accuracy check of both
// against the double oracle (docs/BENCHMARKS.md).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "caller/pairhmm/pairhmm.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "gpu/device.hpp"
#include "io/text/text_output.hpp"
#include "sim/pairhmm_sim.hpp"

namespace gatemap::bench {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Timed {
  double kernel_ms = 0, total_ms = 0, double_ms = 0;
  int64_t double_pairs = 0;
};

// Median over reps after two warm-up runs.
Timed time_gpu(caller::pairhmm::PairHmmGpu& engine, const caller::pairhmm::PairHmmBatch& b,
               const caller::pairhmm::PairHmmOptions& opt, int reps) {
  std::vector<double> out, k, t, d;
  Timed r;
  for (int i = 0; i < reps + 2; ++i) {
    caller::pairhmm::PairHmmStats st;
    engine.compute(b, opt, out, &st);
    if (i < 2) continue;
    k.push_back(st.kernel_ms);
    d.push_back(st.double_kernel_ms);
    t.push_back(st.total_ms);
    r.double_pairs = st.double_pairs;
  }
  r.kernel_ms = median(k);
  r.double_ms = median(d);
  r.total_ms = median(t);
  return r;
}

Timed time_cpu(const caller::pairhmm::PairHmmBatch& b, const caller::pairhmm::PairHmmOptions& opt, int reps) {
  std::vector<double> out, t;
  Timed r;
  for (int i = 0; i < reps + 1; ++i) {
    caller::pairhmm::PairHmmStats st;
    caller::pairhmm::pairhmm_cpu(b, opt, out, &st);
    if (i < 1) continue;
    t.push_back(st.total_ms);
    r.double_pairs = st.double_pairs;
  }
  r.total_ms = median(t);
  return r;
}

caller::pairhmm::PairHmmBatch make_groups(int read_len, int hap_len, int64_t target_cells, uint64_t seed) {
  sim::PairHmmSimOptions so;
  so.reads_per_group = 32;
  so.haps_per_group = 32;
  so.min_read_len = so.max_read_len = read_len;
  so.min_hap_len = so.max_hap_len = hap_len;
  const int64_t per_group = int64_t(32 * 32) * read_len * hap_len;
  so.groups = static_cast<int>(std::max<int64_t>(1, target_cells / per_group));
  so.seed = seed;
  caller::pairhmm::PairHmmBatch b;
  sim::simulate_pairhmm_batch(so, b);
  return b;
}

// (read length, haplotype length) of each set: equal sizes, then reads 10x their haplotype.
std::vector<std::pair<int, int>> bench_shapes(const PairHmmBenchOptions& o) {
  std::vector<std::pair<int, int>> shapes;
  for (int s : o.sizes) {
    if (s > 0) shapes.emplace_back(s, s);
  }
  for (int s : o.long_read_haps) {
    if (s > 0) shapes.emplace_back(10 * s, s);
  }
  return shapes;
}

double gcups(int64_t cells, double ms) { return ms > 0 ? cells / (ms * 1e6) : 0; }

void throughput_table(const PairHmmBenchOptions& o, std::FILE* out, caller::pairhmm::PairHmmGpu* engine) {
  std::fprintf(out, "# pair-HMM throughput: 32 reads x 32 haplotypes per group, haplotypes = a random founder with ~2 SNPs each, reads copied from one with substitutions\n");
  std::fprintf(out, "set\tread_len\thap_len\tgpu_pairs\tgpu_cells\tgpu_kernel_gcups\tgpu_total_gcups\tgpu_double_pairs\tgpu_double_ms\tcpu_pairs\tcpu_gcups\tgpu_kernel_over_cpu\n");
  for (auto [rl, hl] : bench_shapes(o)) {
    Timed g, c;
    caller::pairhmm::PairHmmBatch gb, cb;
    const caller::pairhmm::PairHmmOptions opt;
    if (engine) {
      gb = make_groups(rl, hl, o.gpu_cells, o.seed + rl * 7 + hl);
      g = time_gpu(*engine, gb, opt, o.reps);
    }
    if (o.cpu) {
      cb = make_groups(rl, hl, o.cpu_cells, o.seed + rl * 7 + hl);
      c = time_cpu(cb, opt, std::max(1, o.reps / 5));
    }
    const double gk = gcups(gb.cell_count(), g.kernel_ms), gt = gcups(gb.cell_count(), g.total_ms);
    const double cg = gcups(cb.cell_count(), c.total_ms);
    std::fprintf(out, "%s\t%d\t%d\t%zu\t%lld\t%.1f\t%.1f\t%lld\t%.3f\t%zu\t%.2f\t%.1f\n", rl == hl ? "equal" : "long_reads", rl,
                 hl, gb.pair_count(), static_cast<long long>(gb.cell_count()), gk, gt,
                 static_cast<long long>(g.double_pairs), g.double_ms, cb.pair_count(), cg, cg > 0 ? gk / cg : 0.0);
    std::fflush(out);
  }
}

// Kernel GCUPS of every kernel shape forced on every set (calibrates the dispatcher).
void shape_sweep(const PairHmmBenchOptions& o, std::FILE* out, caller::pairhmm::PairHmmGpu* engine) {
  if (!o.sweep || !engine) return;
  std::fprintf(out, "# kernel shape sweep: kernel GCUPS per forced shape (G lanes x R rows per lane)\nset");
  for (int k = 0; k < caller::pairhmm::PairHmmGpu::kernel_shapes(); ++k) {
    std::fprintf(out, "\t%s", caller::pairhmm::PairHmmGpu::kernel_shape_name(k).c_str());
  }
  std::fprintf(out, "\tdispatcher\n");
  for (auto [rl, hl] : bench_shapes(o)) {
    const caller::pairhmm::PairHmmBatch b = make_groups(rl, hl, o.gpu_cells / 4, o.seed + rl);
    std::fprintf(out, "%dx%d", rl, hl);
    for (int k = 0; k <= caller::pairhmm::PairHmmGpu::kernel_shapes(); ++k) {
      engine->force_kernel_shape(k < caller::pairhmm::PairHmmGpu::kernel_shapes() ? k : -1);
      const Timed t = time_gpu(*engine, b, caller::pairhmm::PairHmmOptions{}, std::max(3, o.reps / 2));
      std::fprintf(out, "\t%.0f", gcups(b.cell_count(), t.kernel_ms));
    }
    std::fprintf(out, "\n");
    std::fflush(out);
  }
  engine->force_kernel_shape(-1);
}

void file_timing(const PairHmmBenchOptions& o, std::FILE* out, caller::pairhmm::PairHmmGpu* engine) {
  if (o.file.empty()) return;
  caller::pairhmm::PairHmmBatch b;
  caller::pairhmm::read_pairhmm_file(o.file, b);
  caller::pairhmm::PairHmmOptions opt;
  opt.tristate = false;
  std::fprintf(out, "# benchmark file %s: %zu pairs, %lld cells (no tristate)\n", o.file.c_str(), b.pair_count(),
               static_cast<long long>(b.cell_count()));
  std::fprintf(out, "file\tgpu_kernel_ms\tgpu_total_ms\tgpu_kernel_gcups\tcpu_ms\tcpu_gcups\tdouble_pairs\n");
  Timed g, c;
  if (engine) g = time_gpu(*engine, b, opt, o.reps);
  if (o.cpu) c = time_cpu(b, opt, std::max(1, o.reps / 5));
  if (engine && o.sweep) {
    std::string line = "# kernel ms per forced shape:";
    for (int k = 0; k < caller::pairhmm::PairHmmGpu::kernel_shapes(); ++k) {
      engine->force_kernel_shape(k);
      line += " " + caller::pairhmm::PairHmmGpu::kernel_shape_name(k) + "=" +
              std::to_string(time_gpu(*engine, b, opt, o.reps).kernel_ms);
    }
    engine->force_kernel_shape(-1);
    std::fprintf(out, "%s\n", line.c_str());
  }
  std::fprintf(out, "%s\t%.4f\t%.3f\t%.1f\t%.2f\t%.2f\t%lld\n", o.file.c_str(), g.kernel_ms, g.total_ms,
               gcups(b.cell_count(), g.kernel_ms), c.total_ms, gcups(b.cell_count(), c.total_ms),
               static_cast<long long>(std::max(g.double_pairs, c.double_pairs)));
  std::fflush(out);
}

// GPU and float CPU against the double oracle on random pairs, some unrelated so that
// float underflows: a bulk set of short pairs (reads 1..512, haplotypes 1..1024) and 1%
// as many over the full length range (1..4096 x 1..8192), all log-uniform; the long
// pairs dominate the oracle's time, so they are fewer.
void accuracy_check(const PairHmmBenchOptions& o, std::FILE* out, caller::pairhmm::PairHmmGpu* engine) {
  if (o.check_pairs <= 0) return;
  std::fprintf(out, "# accuracy against the double oracle (random pairs, 5%% unrelated reads)\n");
  std::fprintf(out, "set\tengine\tpairs\tcells\tdouble_pairs\tfinite_ref\tmax_rel_err\tover_1e-4\tmismatched_inf\n");
  struct Set {
    const char* name;
    int64_t pairs;
    int max_read, max_hap;
  };
  for (const Set set : {Set{"reads_1-512", o.check_pairs - o.check_pairs / 100, 512, 1024},
                        Set{"reads_1-4096", std::max<int64_t>(8, o.check_pairs / 100), 4096, 8192}}) {
    sim::PairHmmSimOptions so;
    so.reads_per_group = 4;
    so.haps_per_group = 2;
    so.groups = static_cast<int>(std::max<int64_t>(1, set.pairs / 8));
    so.min_read_len = 1, so.max_read_len = set.max_read;
    so.min_hap_len = 1, so.max_hap_len = set.max_hap;
    so.vary_within_group = true;
    so.max_error_rate = 0.1;
    so.unrelated_fraction = 0.05;
    so.n_rate = 0.002;
    so.seed = o.seed + 99 + set.max_read;
    caller::pairhmm::PairHmmBatch b;
    sim::simulate_pairhmm_batch(so, b);
    log::info("bench", std::string("accuracy check ") + set.name + ": " + std::to_string(b.pair_count()) +
                           " pairs, " + std::to_string(b.cell_count()) + " cells");
    std::vector<double> ref;
    caller::pairhmm::pairhmm_reference(b, caller::pairhmm::PairHmmOptions{}, ref);
    auto report = [&](const char* name, const std::vector<double>& got, int64_t dbl) {
      double max_rel = 0;
      size_t worst = 0;
      int64_t over = 0, inf_mismatch = 0, finite = 0;
      for (size_t i = 0; i < ref.size(); ++i) {
        if (!std::isfinite(ref[i]) || !std::isfinite(got[i])) {
          inf_mismatch += ref[i] != got[i];
          continue;
        }
        ++finite;
        const double rel = std::fabs(got[i] - ref[i]) / std::max(1e-300, std::fabs(ref[i]));
        if (rel > max_rel) max_rel = rel, worst = i;
        over += rel > 1e-4;
      }
      std::fprintf(out, "%s\t%s\t%zu\t%lld\t%lld\t%lld\t%.3g\t%lld\t%lld\n", set.name, name, got.size(),
                   static_cast<long long>(b.cell_count()), static_cast<long long>(dbl), static_cast<long long>(finite),
                   max_rel, static_cast<long long>(over), static_cast<long long>(inf_mismatch));
      std::fflush(out);
      if (!got.empty()) {
        const auto pr = b.pairs()[worst];
        log::info("bench", std::string(name) + " worst pair: read " + std::to_string(b.read_len[pr.first]) +
                               " x haplotype " + std::to_string(b.hap_len[pr.second]) + ": " +
                               std::to_string(got[worst]) + " vs " + std::to_string(ref[worst]));
      }
    };
    std::vector<double> got;
    caller::pairhmm::PairHmmStats cs;
    caller::pairhmm::pairhmm_cpu(b, caller::pairhmm::PairHmmOptions{}, got, &cs);
    report("cpu_float", got, cs.double_pairs);
    if (engine) {
      caller::pairhmm::PairHmmStats gs;
      engine->compute(b, caller::pairhmm::PairHmmOptions{}, got, &gs);
      report("gpu", got, gs.double_pairs);
    }
  }
}

}  // namespace

void run_pairhmm_bench(const PairHmmBenchOptions& o) {
  if (o.threads > 0) omp_set_num_threads(o.threads);
  io::TextOutput table(o.out);
  std::FILE* out = table.file();
  std::unique_ptr<caller::pairhmm::PairHmmGpu> engine;
  if (o.gpu && gpu::device_available()) {
    engine = std::make_unique<caller::pairhmm::PairHmmGpu>();
    const auto dev = gpu::list_devices().front();
    std::fprintf(out, "# GPU: %s; CPU twin on %d threads\n", dev.name.c_str(), omp_get_max_threads());
  } else {
    std::fprintf(out, "# no GPU; CPU twin on %d threads\n", omp_get_max_threads());
  }
  shape_sweep(o, out, engine.get());
  throughput_table(o, out, engine.get());
  file_timing(o, out, engine.get());
  accuracy_check(o, out, engine.get());
  table.close();
}

}  // namespace gatemap::bench

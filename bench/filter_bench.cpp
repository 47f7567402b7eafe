// gatemap bench filter: see bench.hpp. Pairs come from two sets per read length:
// "cand" = the mapper's own seeding on simulated reads (a human-like genome with a
// donor), "near" = reads with 0..2e+2 planted edits at their true diagonal +-2.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include "bench/bench.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "gpu/device.hpp"
#include "index/index.hpp"
#include "io/reads/fasta.hpp"
#include "io/text/text_output.hpp"
#include "mapper/align/banded_dp.hpp"
#include "mapper/base/reference.hpp"
#include "mapper/filter/gatekeeper.hpp"
#include "mapper/seeding/seed.hpp"
#include "sim/rng.hpp"
#include "sim/sim.hpp"

namespace gatemap::bench {
namespace {

struct PairSet {
  std::vector<std::string> reads;
  mapper::filter::FilterReads packed;
  mapper::filter::FilterCandidates cand;
};

struct Reference {
  std::unique_ptr<index::Index> idx;
  std::vector<int64_t> contig_begin, contig_end;
  mapper::filter::FilterReference fref;
};

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

Reference make_reference(const FilterBenchOptions& opt, const std::string& dir) {
  sim::GenomeOptions g;
  g.length = opt.genome_bp;
  g.contigs = 4;
  g.seed = opt.seed;
  g.threads = omp_get_max_threads();
  const auto genome = sim::simulate_genome(g);
  const std::string fa = dir + "/bench_ref.fa";
  io::write_fasta(fa, genome);
  index::IndexOptions io;
  io.threads = omp_get_max_threads();
  Reference ref;
  ref.idx = index::build_index(fa, io);
  std::remove(fa.c_str());
  for (const auto& c : ref.idx->contigs()) {
    ref.contig_begin.push_back(c.begin);
    ref.contig_end.push_back(c.begin + c.length);
  }
  auto& f = ref.fref;
  f.hi = reinterpret_cast<const uint32_t*>(ref.idx->hi());
  f.lo = reinterpret_cast<const uint32_t*>(ref.idx->lo());
  f.words = ref.idx->words64() * 2;
  f.contig_begin = ref.contig_begin.data();
  f.contig_end = ref.contig_end.data();
  f.n_contigs = static_cast<int32_t>(ref.contig_begin.size());
  f.n_begin = ref.idx->n_begin();
  f.n_end = ref.idx->n_end();
  f.n_runs = ref.idx->n_runs();
  return ref;
}

void finish(PairSet& ps) {
  std::vector<std::string_view> views(ps.reads.begin(), ps.reads.end());
  mapper::filter::pack_reads(views, ps.packed, true);
}

// The mapper's candidates for simulated reads, until `pairs` pairs are collected.
PairSet candidate_pairs(const Reference& ref, int len, int e, int64_t pairs, uint64_t seed) {
  PairSet ps;
  std::vector<io::FastaRecord> genome;
  for (const auto& c : ref.idx->contigs()) genome.push_back({c.name, ref.idx->sequence(c.begin, c.begin + c.length)});
  const auto donor = sim::simulate_donor(genome, {});
  sim::ReadOptions ro;
  ro.read_len = len;
  ro.paired = false;
  ro.seed = seed;
  ro.n_fragments = std::clamp<int64_t>(pairs / 20, 1000, 200000);  // larger sets repeat these
  std::vector<sim::SimRead> reads;
  sim::simulate_reads(genome, &donor, ro, reads);
  std::vector<mapper::detail::SeededRead> work(reads.size());
  mapper::SeedOptions seed_opt;
  seed_opt.max_candidates = 100;
#pragma omp parallel
  {
    mapper::detail::SeedScratch scratch;
#pragma omp for schedule(dynamic, 256)
    for (int64_t r = 0; r < static_cast<int64_t>(reads.size()); ++r) {
      auto& w = work[r];
      mapper::detail::set_read_codes(w, reads[r].seq);
      w.max_edits = e;
      mapper::detail::collect_candidates(*ref.idx, w, seed_opt, scratch);
    }
  }
  for (size_t r = 0; r < reads.size() && static_cast<int64_t>(ps.cand.size()) < pairs; ++r) {
    const uint32_t id = static_cast<uint32_t>(ps.reads.size());
    bool used = false;
    for (const auto& c : work[r].cand) {
      if (static_cast<int64_t>(ps.cand.size()) >= pairs) break;
      ps.cand.push(id, c.strand, c.diag);
      used = true;
    }
    if (used) ps.reads.push_back(reads[r].seq);
  }
  // Repeat the set if the reads ran out (throughput sets are large).
  const size_t base = ps.cand.size();
  for (size_t i = 0; static_cast<int64_t>(ps.cand.size()) < pairs && base > 0; ++i) {
    ps.cand.push(ps.cand.read(i % base), ps.cand.strand(i % base), ps.cand.diag(i % base));
  }
  finish(ps);
  return ps;
}

// Reads with 0..2e+2 planted edits, candidates at their diagonal +-2.
PairSet near_miss_pairs(const Reference& ref, int len, int e, int64_t pairs, uint64_t seed) {
  PairSet ps;
  sim::Rng rng(seed);
  const auto& contigs = ref.idx->contigs();
  while (static_cast<int64_t>(ps.cand.size()) < pairs) {
    const auto& c = contigs[rng.below(static_cast<int64_t>(contigs.size()))];
    if (c.length < len + 20) continue;
    const int64_t pos = c.begin + 5 + rng.below(c.length - len - 10);
    std::string read = ref.idx->sequence(pos, pos + len);
    if (read.find('N') != std::string::npos) continue;
    const int edits = static_cast<int>(rng.below(2 * e + 3));
    for (int k = 0; k < edits; ++k) {
      const size_t at = static_cast<size_t>(rng.below(static_cast<int64_t>(read.size())));
      switch (rng.below(3)) {
        case 0: read[at] = "ACGT"[(base_code(read[at]) + 1 + rng.below(3)) & 3]; break;
        case 1: read.insert(read.begin() + at, "ACGT"[rng.below(4)]); break;
        default: read.erase(read.begin() + at);
      }
    }
    read.resize(len, 'A');
    const uint8_t strand = static_cast<uint8_t>(rng.below(2));
    if (strand) read = reverse_complement(read);
    ps.cand.push(static_cast<uint32_t>(ps.reads.size()), strand, pos + rng.range(-2, 2));
    ps.reads.push_back(read);
  }
  finish(ps);
  return ps;
}

struct Accuracy {
  int64_t pairs = 0, unfiltered = 0, within = 0, beyond = 0, false_rejects = 0, false_accepts = 0;
};

Accuracy measure_accuracy(const Reference& ref, const PairSet& ps, int e, const std::vector<uint8_t>& codes) {
  Accuracy a;
  const int64_t n = static_cast<int64_t>(ps.cand.size());
  int64_t unf = 0, within = 0, beyond = 0, fr = 0, fa = 0;
#pragma omp parallel reduction(+ : unf, within, beyond, fr, fa)
  {
    mapper::DpScratch scratch;
    mapper::RefWindow win;
#pragma omp for schedule(dynamic, 1024)
    for (int64_t i = 0; i < n; ++i) {
      if (codes[i] & mapper::filter::kFilterUnfiltered) {
        ++unf;
        continue;
      }
      std::string read = ps.reads[ps.cand.read(i)];
      if (ps.cand.strand(i)) read = reverse_complement(read);
      std::vector<uint8_t> rc(read.size());
      for (size_t k = 0; k < read.size(); ++k) rc[k] = base_code(read[k]);
      // Verified in the contig the filter takes (the mapper's, but where verification
      // rejects either way; see gatekeeper_core.hpp).
      const int64_t diag = ps.cand.diag(i);
      const int32_t c = ref.idx->contig_of(std::clamp<int64_t>(diag + static_cast<int64_t>(read.size()) / 2, 0,
                                                                ref.idx->length() - 1));
      const int64_t cb = ref.contig_begin[c], ce = ref.contig_end[c];
      mapper::fetch_window(*ref.idx, std::max(cb, diag - e), std::min(ce, diag + static_cast<int64_t>(read.size()) + e),
                           win);
      const auto r = mapper::banded_distance(rc.data(), static_cast<int>(rc.size()), win, cb, ce, diag, e, e, scratch);
      const bool accepted = mapper::filter::filter_accepts(codes[i], e);
      if (r.edits >= 0) {
        ++within;
        fr += !accepted;
      } else {
        ++beyond;
        fa += accepted;
      }
    }
  }
  a.pairs = n;
  a.unfiltered = unf;
  a.within = within;
  a.beyond = beyond;
  a.false_rejects = fr;
  a.false_accepts = fa;
  return a;
}

// Accuracy rows: zero false rejects required; false accept rate = accepted / beyond e.
void accuracy_rows(const FilterBenchOptions& opt, const Reference& ref, mapper::filter::GateKeeperGpu* engine,
                   std::FILE* out) {
  std::fprintf(out, "section\tset\tread_len\te\tpairs\tunfiltered_N\twithin_e\tbeyond_e\tfalse_rejects\tfalse_accepts\tfalse_accept_rate\tgpu_cpu_identical\n");
  for (int len : opt.lengths) {
    for (int set = 0; set < 2; ++set) {
      for (int e = 0; e <= opt.max_accuracy_edits; ++e) {
        const PairSet ps = set == 0 ? candidate_pairs(ref, len, e, opt.accuracy_pairs, opt.seed + len + e)
                                    : near_miss_pairs(ref, len, e, opt.accuracy_pairs, opt.seed + 7 * len + e);
        std::vector<uint8_t> cpu, gpu_codes;
        mapper::filter::gatekeeper_cpu(ref.fref, ps.packed, ps.cand, e, cpu);
        std::string identical = "n/a";
        if (engine) {
          engine->filter(ps.packed, ps.cand, e, gpu_codes);
          identical = gpu_codes == cpu ? "yes" : "NO";
        }
        const Accuracy a = measure_accuracy(ref, ps, e, cpu);
        std::fprintf(out, "accuracy\t%s\t%d\t%d\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%.4f\t%s\n",
                     set == 0 ? "cand" : "near", len, e, static_cast<long long>(a.pairs),
                     static_cast<long long>(a.unfiltered), static_cast<long long>(a.within),
                     static_cast<long long>(a.beyond), static_cast<long long>(a.false_rejects),
                     static_cast<long long>(a.false_accepts),
                     a.beyond ? static_cast<double>(a.false_accepts) / a.beyond : 0.0, identical.c_str());
        std::fflush(out);
      }
    }
  }
}

}  // namespace

void run_filter_bench(const FilterBenchOptions& opt) {
  if (opt.threads > 0) omp_set_num_threads(opt.threads);
  const bool want_gpu = opt.backend != "cpu";
  const bool want_cpu = opt.backend != "gpu";
  if (want_gpu && !gpu::device_available()) {
    if (opt.backend == "gpu") throw Error("bench filter --backend gpu: no CUDA device");
  }
  const bool have_gpu = want_gpu && gpu::device_available();
  io::TextOutput table(opt.out);
  std::FILE* out = table.file();
  const std::string device = have_gpu ? gpu::list_devices()[0].name : "none";
  std::fprintf(out, "# gatemap bench filter: %d threads, GPU: %s\n", omp_get_max_threads(), device.c_str());
  log::info("bench", "building the reference (" + std::to_string(opt.genome_bp) + " bp)");
  const Reference ref = make_reference(opt, "/tmp");
  std::unique_ptr<mapper::filter::GateKeeperGpu> engine;
  if (have_gpu) engine = std::make_unique<mapper::filter::GateKeeperGpu>(ref.fref);

  if (opt.accuracy_pairs > 0) accuracy_rows(opt, ref, engine.get(), out);

  // Throughput: median over reps after warm-up.
  std::fprintf(out, "section\tbackend\tread_len\te\tpairs\tkernel_ms\tfilter_ms\tkernel_pairs_per_s\tfilter_pairs_per_s\thost_fill_ms\n");
  for (int len : opt.lengths) {
    for (int e : opt.edits) {
      const PairSet ps = candidate_pairs(ref, len, e, opt.pairs, opt.seed + 100 * len + e);
      std::vector<uint8_t> codes;
      const double n = static_cast<double>(ps.cand.size());
      if (want_cpu) {
        std::vector<double> t;
        for (int r = 0; r < std::max(3, opt.reps / 4) + 1; ++r) {
          const double t0 = now_s();
          mapper::filter::gatekeeper_cpu(ref.fref, ps.packed, ps.cand, e, codes);
          if (r > 0) t.push_back(now_s() - t0);  // first run is the warm-up
        }
        const double ms = 1000 * median(t);
        std::fprintf(out, "throughput\tcpu_%dthreads\t%d\t%d\t%.0f\t%.3f\t%.3f\t%.4g\t%.4g\t0\n", omp_get_max_threads(), len,
                     e, n, ms, ms, n / (ms / 1000), n / (ms / 1000));
      }
      if (engine) {
        // Filter time starts from the reads as text and the candidate list on the host:
        // it includes 2-bit encoding (host or device), moving data, the kernel and the
        // results coming back.
        // Each repetition starts like a mapper batch: the candidate list just written by
        // the host (untimed copy from a host-side master).
        const std::vector<std::string_view> views(ps.reads.begin(), ps.reads.end());
        const std::vector<uint32_t> rs(ps.cand.read_strand.begin(), ps.cand.read_strand.end());
        const std::vector<uint32_t> dg(ps.cand.diagonal.begin(), ps.cand.diagonal.end());
        mapper::filter::FilterCandidates cand;
        cand.resize(rs.size());
        mapper::filter::FilterReads packed;
        for (bool device_encode : {false, true}) {
          std::vector<double> kernel, total, fill;
          for (int r = 0; r < opt.reps + 3; ++r) {
#pragma omp parallel for schedule(static)
            for (int64_t i = 0; i < static_cast<int64_t>(rs.size()); ++i) {
              cand.read_strand[i] = rs[i];
              cand.diagonal[i] = dg[i];
            }
            mapper::filter::FilterTiming timing;
            const double t0 = now_s();
            mapper::filter::pack_reads(views, packed, !device_encode);
            engine->filter(packed, cand, e, codes, device_encode, &timing);
            const double wall_ms = 1000 * (now_s() - t0);
            if (r >= 3) {
              kernel.push_back(timing.kernel_ms);
              total.push_back(wall_ms);
              fill.push_back(timing.fill_ms);
            }
          }
          const double k = median(kernel), f = median(total);
          std::fprintf(out, "throughput\tgpu_%s\t%d\t%d\t%.0f\t%.3f\t%.3f\t%.4g\t%.4g\t%.3f\n",
                       device_encode ? "encode_device" : "encode_host", len, e, n, k, f, n / (k / 1000),
                       n / (f / 1000), median(fill));
        }
      }
      std::fflush(out);
    }
  }
  table.close();
}

}  // namespace gatemap::bench

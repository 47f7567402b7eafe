// The caller's run: the whole genome (or -L) by one WindowCaller, or the genome in parts,
// a lane per GPU, whose calls one writer puts in order (caller/window_caller.hpp).
#include <omp.h>

#include <algorithm>
#include <future>
#include <memory>

#include "caller/caller.hpp"
#include "caller/vcf_records.hpp"
#include "caller/window_caller.hpp"
#include "common/error.hpp"
#include "common/leave_to_exit.hpp"
#include "common/log.hpp"
#include "common/ordered_lanes.hpp"
#include "common/parallel.hpp"
#include "common/side_task.hpp"
#include "common/stats_report.hpp"
#include "common/thread_budget.hpp"
#include "gpu/memory_cap.hpp"
#include "io/output_file.hpp"
#include "io/reads/fasta.hpp"
#include "io/text/vcf_writer.hpp"

namespace gatemap::caller {

namespace {

// Parts of at least two windows: each re-reads a lead-in (2 kb) and starts its windows
// afresh.
constexpr int64_t kMinPartWindows = 2;
constexpr int kPartsPerLane = 8;  // lanes that finish early take more

// With several GPUs: the genome (or -L) cut into parts, called on one lane per GPU, each
// with its own engine and a share of the threads; the parts' calls written in order.
// Each part is called as -L would call it, so the VCF is the one-GPU run's.
CallStats call_in_parts(const CallOptions& opt, std::shared_ptr<const Reference> ref, gpu::Backend backend,
                        const std::vector<EngineFuture>& engines, ReadInput& input) {
  std::vector<std::pair<std::string, int64_t>> contigs;
  for (const auto& r : *ref) contigs.emplace_back(r.name, static_cast<int64_t>(r.seq.size()));
  std::vector<Interval> wanted;
  if (!opt.intervals.empty()) {
    wanted = parse_intervals(opt.intervals, contigs);
  } else {
    for (const std::string& name : input.contigs()) {  // in the reads' order, as the one-GPU run goes
      const auto it = std::find_if(contigs.begin(), contigs.end(), [&](const auto& c) { return c.first == name; });
      if (it != contigs.end()) wanted.push_back({static_cast<int>(it - contigs.begin()), 0, it->second});
    }
  }
  const int lanes = static_cast<int>(engines.size());
  const std::vector<std::vector<Interval>> parts = split_intervals(wanted, lanes * kPartsPerLane, kMinPartWindows * opt.window);
  const int threads = omp_get_max_threads();
  io::VcfWriter vcf(opt.output, vcf_header(opt, *ref, input.samples()), std::min(8, threads));
  log::info("call", std::to_string(parts.size()) + " parts on " + std::to_string(lanes) + " lanes (" +
                        gpu::backend_name(backend) + "), " + std::to_string(std::max(1, threads / lanes)) +
                        " threads each");
  size_t next_part = 0;
  OrderedLanes<PartCalls> lanes_run(2 * static_cast<size_t>(lanes), [&](PartCalls& p) {
    if (next_part == parts.size()) return false;
    p.intervals = parts[next_part++];
    p.calls.clear();
    return true;
  });
  const auto lane = [&](int i) {
    omp_set_num_threads(std::max(1, threads / lanes));
    WindowCaller caller(opt, ref, backend, engines[static_cast<size_t>(i)], true);
    while (PartCalls* p = lanes_run.next(false)) {
      p->stats = caller.call_part(*p);
      lanes_run.done(p);
    }
  };
  CallStats stats;
  size_t written = 0;
  lanes_run.run(lanes, lane, [&](PartCalls& p) {
    for (const auto& [contig, call] : p.calls) {
      detail::write_site(vcf, bcf_hdr_name2id(vcf.header(), (*ref)[contig].name.c_str()), call, false, opt.min_qd);
    }
    stats += p.stats;
    const Interval& first = p.intervals.front();
    log::debug("call", "part " + std::to_string(written + 1) + ": " + stats_line(format_stats(p.stats)));
    log::info("call", "part " + std::to_string(++written) + " of " + std::to_string(parts.size()) + " (from " +
                          (*ref)[first.contig].name + ":" + std::to_string(first.begin + 1) + ") done: " +
                          std::to_string(stats.calls) + " calls so far");
  });
  vcf.close();
  stats.backend = gpu::backend_name(backend);
  return stats;
}

// Several GPUs call in parts where the parts can be read on their own (indexed input)
// and written apart (a VCF; a gVCF's blocks would be cut at the parts' edges).
bool can_call_in_parts(const CallOptions& opt, ReadInput& input) {
  if (opt.gvcf) {
    log::info("call", "--gvcf: called in one part (the parts would cut reference blocks at their edges)");
    return false;
  }
  try {
    input.load_indexes();
  } catch (const Error& e) {
    log::info("call", std::string("called in one part: the input has no index to read parts by (") + e.what() + ")");
    return false;
  }
  return true;
}

// The run, its warnings left to run_call.
CallStats run_call_quietly(const CallOptions& opt) {
  use_threads(opt.threads, 2);  // the read-ahead's team and the caller's
  if (opt.reference.empty()) throw UsageError("-r REF.fa is required");
  gpu::resolve_devices(opt.device, gpu::Backend::cpu);  // its syntax, before any work
  std::vector<std::string> inputs = opt.inputs;
  inputs.push_back(opt.reference);
  io::check_not_input(opt.output, "-o", inputs);
  io::check_vcf_name(opt.output, "-o");
  const log::Stopwatch t0;
  // The backend is chosen, and the first device's engine made, while the reference is read.
  std::promise<std::pair<gpu::Backend, std::vector<int>>> chosen;
  auto choice = chosen.get_future();
  std::unique_ptr<gpu::MemoryCap> capped;  // --gpu-mem, before any engine sizes itself
  EngineFuture first = run_beside([&opt, &capped, chosen = std::move(chosen)]() mutable {
    gpu::Backend b = gpu::Backend::cpu;
    std::vector<int> devices;
    try {
      b = gpu::choose_backend(opt.backend);
      devices = gpu::resolve_devices(opt.device, b);
      capped = std::make_unique<gpu::MemoryCap>(devices, opt.gpu_memory, "call");
    } catch (...) {
      chosen.set_exception(std::current_exception());
      throw;
    }
    chosen.set_value({b, devices});
    return std::make_shared<pairhmm::PairHmmEngine>(b, devices.empty() ? 0 : devices.front());
  });
  auto ref = std::make_shared<const Reference>(io::read_fasta(opt.reference));
  const auto [backend, devices] = choice.get();  // (no GPU for --backend gpu: an error before any output)
  CallStats stats;
  const size_t lanes = opt.lanes > 0 ? static_cast<size_t>(opt.lanes) : devices.size();
  if (lanes > 1) {
    ReadInput input(opt.inputs, opt.min_mapq, 1, opt.reference);
    if (can_call_in_parts(opt, input)) {
      std::vector<EngineFuture> engines{first};
      for (size_t i = 1; i < lanes; ++i) {
        const int device = devices.empty() ? 0 : devices[i % devices.size()];
        engines.push_back(run_beside([b = backend, device] { return std::make_shared<pairhmm::PairHmmEngine>(b, device); }));
      }
      const double setup_s = t0.seconds();
      stats = call_in_parts(opt, ref, backend, engines, input);
      stats.setup_s = setup_s;
      stats.total_s = t0.seconds();
      if (opt.leave_to_exit) {  // the engines' GPU memory
        auto kept = std::make_unique<std::vector<EngineFuture>>(std::move(engines));
        leave_to_exit(kept);
      }
      return stats;
    }
  }
  auto caller = std::make_unique<WindowCaller>(opt, ref, backend, first);
  const double setup_s = t0.seconds();
  stats = caller->run();  // the VCF is closed
  stats.setup_s = setup_s;
  if (opt.leave_to_exit) leave_to_exit(caller);  // its reference, reads and pair-HMM engine
  return stats;
}

}  // namespace

CallStats run_call(const CallOptions& opt) {
  const CallStats stats = run_call_quietly(opt);
  if (stats.reads_downsampled > 0) {
    log::warn("call", std::to_string(stats.reads_downsampled) + " of " + std::to_string(stats.reads) +
                          " reads left out: more than " + std::to_string(opt.max_reads_per_start) +
                          " of one sample started at one position (--max-reads-per-start; 0 keeps all)");
  }
  if (stats.regions_capped > 0) {
    log::warn("call", std::to_string(stats.regions_capped) + " of " + std::to_string(stats.regions) +
                          " regions had more candidate haplotypes than the cap (--max-haplotypes " +
                          std::to_string(opt.max_haplotypes) + " per sample), the first " + stats.first_capped +
                          ": the best-supported were kept");
  }
  return stats;
}


}  // namespace gatemap::caller

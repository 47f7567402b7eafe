#include "mapper/filter_stage.hpp"

#include <chrono>
#include <string>

#include "common/log.hpp"
#include "gpu/fallback.hpp"

namespace gatemap::mapper::detail {

FilterStage::FilterStage(const Reference& ref, bool on, const Hardware& hw) : ref_(ref), on_(on), hw_(hw) {
  if (!on_ || hw_.backend != gpu::Backend::gpu) return;
  // When the GPU seeds, it also filters (on its own copy of the reads and reference):
  // the engines are then made only if a batch falls back to this stage.
  const auto policy = hw_.seed_on_gpu ? std::launch::deferred : std::launch::async;
  engines_pending_ = std::async(policy, [this] {
    std::vector<std::unique_ptr<filter::GateKeeperGpu>> made;
    for (const int device : hw_.devices) {
      const log::Stopwatch t0;
      auto engine = gpu::make_engine_or_null<filter::GateKeeperGpu>("map", ref_.filter_view(), device);
      if (!engine) continue;
      log::info("map", "GPU filter ready (reference on device " + std::to_string(device) + ") in " +
                           std::to_string(t0.seconds()) + " s");
      made.push_back(std::move(engine));
    }
    return made;
  });
}

FilterStage::~FilterStage() {
  // Wait for engines being made, but do not make deferred ones now.
  if (engines_pending_.valid() && engines_pending_.wait_for(std::chrono::seconds(0)) != std::future_status::deferred) {
    engines_pending_.wait();
  }
}

void FilterStage::await_engine() {
  if (!engines_pending_.valid()) return;
  engines_ = engines_pending_.get();
  if (engines_.empty()) hw_.backend = gpu::Backend::cpu;  // every batch on the CPU twin
}

// Out of device memory (or another device failure): this batch takes the CPU twin,
// which gives the same codes; later batches try the GPU again.
void FilterStage::filter_on_cpu(CandidateBatch& cb, std::vector<uint8_t>& codes, MapStats& stats) const {
  if (hw_.backend == gpu::Backend::gpu) ++stats.filter_cpu_fallbacks;
  cb.ticket = -1;
  filter::pack_reads(cb.seqs, cb.reads, true);
  filter::gatekeeper_cpu(ref_.filter_view(), cb.reads, cb.cand, cb.max_edits, codes);
}

void FilterStage::start(CandidateBatch& cb, std::vector<uint8_t>& codes, MapStats& stats) {
  cb.ticket = -1;
  if (!on_) {
    codes.assign(static_cast<size_t>(cb.size()), 0);
    return;
  }
  await_engine();
  if (hw_.backend == gpu::Backend::cpu) return filter_on_cpu(cb, codes, stats);
  {
    const log::StageTimer timing(stats.filter_prepare_s);
    filter::pack_reads(cb.seqs, cb.reads, !hw_.encode_on_device);
  }
  const log::StageTimer timing(stats.filter_engine_s);
  gpu::run_or_fall_back(
      "map", "GPU filter failed, batch filtered",
      [&] {
        cb.engine = static_cast<int>(next_engine_++ % engines_.size());
        cb.ticket = engines_[cb.engine]->submit(cb.reads, cb.cand, cb.max_edits, hw_.encode_on_device);
      },
      [&] { filter_on_cpu(cb, codes, stats); });
}

void FilterStage::finish(CandidateBatch& cb, std::vector<uint8_t>& codes, MapStats& stats) {
  if (cb.ticket < 0) return;
  const log::Stopwatch t0;
  gpu::run_or_fall_back(
      "map", "GPU filter failed, batch filtered",
      [&] {
        filter::FilterTiming timing;
        engines_[cb.engine]->collect(cb.ticket, codes, &timing);
        stats.filter_kernel_s += timing.kernel_ms / 1000;
      },
      [&] { filter_on_cpu(cb, codes, stats); });
  cb.ticket = -1;
  const double waited = t0.seconds();
  stats.filter_engine_s += waited;
  stats.filter_s += waited;
}

}  // namespace gatemap::mapper::detail

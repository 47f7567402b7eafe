// The backend switch: the GPU engine where one can be made, its batches on the CPU twin
// when it fails, the CPU twin alone otherwise.
#include <vector>

#include "caller/pairhmm/pairhmm.hpp"
#include "gpu/fallback.hpp"

namespace gatemap::caller::pairhmm {

PairHmmEngine::PairHmmEngine(gpu::Backend backend, int device) : backend_(backend) {
  if (backend_ == gpu::Backend::gpu) gpu_ = gpu::make_engine_or_null<PairHmmGpu>("pairhmm", device);
  if (!gpu_) backend_ = gpu::Backend::cpu;
}

PairHmmEngine::~PairHmmEngine() = default;

void PairHmmEngine::compute(const PairHmmBatch& batch, const PairHmmOptions& opt, std::vector<double>& log10_lik,
                            PairHmmStats* stats) {
  const auto on_cpu = [&] { pairhmm_cpu(batch, opt, log10_lik, stats); };
  if (!gpu_) return on_cpu();
  gpu::run_or_fall_back(
      "pairhmm", "GPU failed, batch computed", [&] { gpu_->compute(batch, opt, log10_lik, stats); }, on_cpu);
}

}  // namespace gatemap::caller::pairhmm

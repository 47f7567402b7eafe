#include "correct/batch_corrector.hpp"

#include <future>
#include <string>

#include "common/error.hpp"
#include "common/log.hpp"
#include "gpu/fallback.hpp"

namespace gatemap::correct {

void correct_on_gpus(const std::vector<std::unique_ptr<KmerCorrectGpu>>& engines, const KmerSpectrum& spectrum,
                     const CorrectOptions& copt, BatchParts& batch, CorrectSummary& sum) {
  std::vector<double> kernel_ms(batch.parts.size(), 0.0);
  gpu::run_or_fall_back(
      "correct", "GPU failed, batch corrected",
      [&] {
        std::vector<std::future<void>> running;
        for (size_t p = 0; p < batch.parts.size(); ++p) {
          running.push_back(
              std::async(std::launch::async, [&, p] { engines[p]->correct(copt, batch.parts[p], &kernel_ms[p]); }));
        }
        for (auto& r : running) r.wait();
        for (auto& r : running) r.get();
      },
      [&] {
        for (CorrectBatch& part : batch.parts) correct_reads_cpu(spectrum, copt, part);
      });
  for (double ms : kernel_ms) sum.correct_kernel_ms += ms;
}

LaneEngines make_lane_engines(const KmerSpectrum& spectrum, const std::vector<int>& devices) {
  LaneEngines lanes;
  for (const int device : devices) {
    auto engine = gpu::make_engine_or_null<KmerCorrectGpu>("correct", spectrum, device);
    if (!engine) continue;
    lanes.emplace_back();
    lanes.back().push_back(std::move(engine));
  }
  const size_t gpus = lanes.size();
  if (gpus == 1) {
    try {
      std::vector<std::unique_ptr<KmerCorrectGpu>> second;
      second.push_back(std::make_unique<KmerCorrectGpu>(KmerCorrectGpu::SharingSpectrum{}, *lanes[0][0]));
      lanes.push_back(std::move(second));
    } catch (const CudaError& e) {
      log::debug("correct", std::string("one correcting lane (") + e.what() + ")");
    }
  }
  log::debug("correct", "spectrum on " + std::to_string(gpus) + " GPUs, " + std::to_string(lanes.size()) +
                            " correcting lanes, ready at " + std::to_string(log::wall_seconds()) + " s");
  return lanes;
}

}  // namespace gatemap::correct

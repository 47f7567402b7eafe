#pragma once
// Filtering (mapper stage 3): GateKeeper over a batch's candidates, on the GPU (started
// here, collected when the batch is verified, so that the next batch is seeded
// meanwhile; with several devices, batches take them in turn), on the CPU twin (same
// codes), or off (every candidate passes). A GPU that fails a batch leaves it to the CPU
// twin with a warning; a device that cannot be set up is left out (all of them: CPU).
#include <future>
#include <memory>
#include <vector>

#include "mapper/base/map_stats.hpp"
#include "mapper/base/options.hpp"
#include "mapper/base/reference.hpp"
#include "mapper/candidates.hpp"
#include "mapper/filter/gatekeeper.hpp"

namespace gatemap::mapper::detail {

class FilterStage {
 public:
  FilterStage(const Reference& ref, bool on, const Hardware& hw);
  ~FilterStage();
  FilterStage(const FilterStage&) = delete;
  FilterStage& operator=(const FilterStage&) = delete;

  bool on() const { return on_; }
  // One code per candidate into `codes` (filter::filter_accepts tells a pass). On the
  // GPU only enqueued: finish() waits. `cb` and `codes` must stay alive until then.
  void start(CandidateBatch& cb, std::vector<uint8_t>& codes, MapStats& stats);
  void finish(CandidateBatch& cb, std::vector<uint8_t>& codes, MapStats& stats);

 private:
  void await_engine();
  void filter_on_cpu(CandidateBatch& cb, std::vector<uint8_t>& codes, MapStats& stats) const;

  const Reference& ref_;
  bool on_;
  Hardware hw_;
  std::vector<std::unique_ptr<filter::GateKeeperGpu>> engines_;  // one per --device entry that could be set up
  size_t next_engine_ = 0;
  // The GPU engines (CUDA context, the reference on each device) are made on a thread of
  // their own while the first batch is read and seeded; the first start() waits for them
  // (with GPU seeding: makes them, deferred).
  std::future<std::vector<std::unique_ptr<filter::GateKeeperGpu>>> engines_pending_;
};

}  // namespace gatemap::mapper::detail

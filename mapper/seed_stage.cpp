#include "mapper/seed_stage.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

#include "common/log.hpp"
#include "common/parallel.hpp"
#include "gpu/fallback.hpp"
#include "mapper/seeding/seed.hpp"

namespace gatemap::mapper::detail {

SeedStage::SeedStage(const index::Index& idx, const MapOptions& opt, const Hardware& hw)
    : idx_(idx), opt_(opt), scratch_(static_cast<size_t>(omp_get_max_threads())) {
  if (hw.backend != gpu::Backend::gpu || !hw.seed_on_gpu || hw.devices.empty()) return;
  wants_gpu_ = true;
  const int device = device_ = hw.devices.front();  // one device seeds: it keeps ahead of the stages after it
  const int64_t limit = hw.seed_batch_bytes_limit, slots = hw.seed_max_hit_slots;
  gpu_pending_ = std::async(std::launch::async, [this, device, limit, slots] {
    const log::Stopwatch t0;
    auto engine = gpu::make_engine_or_null<seeding::SeedGpu>("map", idx_, device, slots, limit);
    if (engine) {
      log::info("map", "GPU seeding ready (index of " + std::to_string(engine->index_bytes() >> 20) +
                           " MiB on device " + std::to_string(device) + ") in " + std::to_string(t0.seconds()) +
                           " s");
      log::debug("map", "GPU seeding ready at " + std::to_string(log::wall_seconds()) + " s");
    }
    return engine;
  });
}

SeedStage::~SeedStage() {
  if (gpu_pending_.valid()) gpu_pending_.wait();
}

void SeedStage::candidates_on_cpu(std::vector<SeededRead>& seeded) {
  const int64_t n = static_cast<int64_t>(seeded.size());
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 256)
  for (int64_t r = 0; r < n; ++r) {
    errors.run([&] { collect_candidates(idx_, seeded[r], opt_.seed, scratch_[omp_get_thread_num()]); });
  }
  errors.rethrow();
}

void SeedStage::kept_candidates(int64_t r, const SeedCluster* clusters, SeededRead& w, SeedScratch& scratch) const {
  const seeding::SeedClusters& c = clusters_;
  w.cand.clear();
  w.cand_cap_hit = false;
  w.cap_left_hits = false;
  w.cand.reserve(static_cast<size_t>(c.first[2 * r + 2] - c.first[2 * r]));  // grown once, not per push
  for (uint8_t strand = 0; strand < 2; ++strand) {
    const int64_t t = 2 * r + strand;
    add_kept_candidates(idx_, strand, clusters + (c.first[t] - c.first[2 * r]), c.first[t + 1] - c.first[t],
                        c.cap_hit[t] != 0, w, scratch.order);
    w.cap_left_hits = w.cap_left_hits || (c.cap_hit[t] & seeding::kCapLeftHits) != 0;
  }
}

bool SeedStage::candidates_from_gpu(std::vector<SeededRead>& seeded) {
  const int64_t n = static_cast<int64_t>(seeded.size());
  const seeding::SeedClusters& c = clusters_;
  // (VerifiedCluster names a cluster in 32 bits.)
  const bool all_on_gpu = c.n_clusters <= int64_t{UINT32_MAX} &&
                          std::none_of(c.on_cpu.begin(), c.on_cpu.end(), [](uint8_t x) { return x != 0; });
  if (!all_on_gpu) gpu_->copy_clusters(clusters_);
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 256)
  for (int64_t r = 0; r < n; ++r) {
    errors.run([&] {
      SeededRead& w = seeded[r];
      SeedScratch& scratch = scratch_[omp_get_thread_num()];
      if (c.on_cpu[r]) return collect_candidates(idx_, w, opt_.seed, scratch);
      w.capped = c.capped[2 * r] || c.capped[2 * r + 1];
      if (!all_on_gpu) return kept_candidates(r, c.clusters + c.first[2 * r], w, scratch);
      w.cand.clear();
      w.cand_cap_hit = c.cap_hit[2 * r] || c.cap_hit[2 * r + 1];
      w.cap_left_hits = ((c.cap_hit[2 * r] | c.cap_hit[2 * r + 1]) & seeding::kCapLeftHits) != 0;
    });
  }
  errors.rethrow();
  return all_on_gpu;
}

void SeedStage::fetch_candidates(std::vector<SeededRead>& seeded, const std::vector<uint32_t>& reads) {
  std::vector<SeedCluster>& fetched = fetched_;
  gpu_->copy_clusters_of(reads, clusters_, fetched);
  const int64_t n = static_cast<int64_t>(reads.size());
  std::vector<int64_t>& at = fetched_at_;  // where each listed read's clusters begin
  at.resize(static_cast<size_t>(n));
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = reads[static_cast<size_t>(i)];
    at[static_cast<size_t>(i)] = total;
    total += clusters_.first[static_cast<size_t>(2 * r + 2)] - clusters_.first[static_cast<size_t>(2 * r)];
  }
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t i = 0; i < n; ++i) {
    errors.run([&] {
      const uint32_t r = reads[static_cast<size_t>(i)];
      kept_candidates(r, fetched.data() + at[static_cast<size_t>(i)], seeded[r], scratch_[omp_get_thread_num()]);
    });
  }
  errors.rethrow();
}

void SeedStage::all_candidates(std::vector<SeededRead>& seeded) {
  if (!gpu::run_or_fall_back(
          "map", "copying the seeds back failed, batch seeded", [&] { gpu_->copy_clusters(clusters_); }, [] {})) {
    return candidates_on_cpu(seeded);
  }
  const int64_t n = static_cast<int64_t>(seeded.size());
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 256)
  for (int64_t r = 0; r < n; ++r) {
    errors.run([&] {
      kept_candidates(r, clusters_.clusters + clusters_.first[2 * r], seeded[r], scratch_[omp_get_thread_num()]);
    });
  }
  errors.rethrow();
}

seeding::SeedsOn SeedStage::run(const io::ReadBatch& batch, std::vector<SeededRead>& seeded, MapStats& stats) {
  bool on_device = false;
  const int64_t n = static_cast<int64_t>(batch.size());
  seeded.resize(static_cast<size_t>(n));
  ParallelErrors errors;
#pragma omp parallel for schedule(static, 256)
  for (int64_t r = 0; r < n; ++r) {
    errors.run([&] {
      set_read_codes(seeded[r], batch.reads[r].seq);
      seeded[r].max_edits = edit_threshold(opt_.verify, seeded[r].length());
    });
  }
  errors.rethrow();
  if (gpu_pending_.valid()) gpu_ = gpu_pending_.get();
  const bool on_gpu = gpu_ && gpu::run_or_fall_back(
                                  "map", "GPU seeding failed, batch seeded",
                                  [&] {
                                    const uint32_t max_occ = opt_.seed.max_occ ? opt_.seed.max_occ : idx_.max_occ();
                                    gpu_->seed(seeded, max_occ, opt_.seed.max_candidates, clusters_);
                                    on_device = candidates_from_gpu(seeded);
                                  },
                                  [] {});
  if (on_gpu) {
    stats.seed_device_s += clusters_.kernel_ms / 1000;
  } else {
    if (gpu_) ++stats.seed_cpu_fallbacks;
    candidates_on_cpu(seeded);
  }
  int64_t capped = 0, cap_hits = 0, ncand = 0;
#pragma omp parallel for schedule(static, 1024) reduction(+ : capped, cap_hits, ncand)
  for (int64_t r = 0; r < n; ++r) {
    capped += seeded[r].capped;
    cap_hits += seeded[r].cand_cap_hit;
    ncand += static_cast<int64_t>(seeded[r].cand.size());
  }
  stats.capped_reads += capped;
  stats.candidate_cap_hits += cap_hits;
  stats.candidates += on_device ? clusters_.n_clusters : ncand;
  if (!on_gpu) return seeding::SeedsOn::kHost;
  return on_device ? seeding::SeedsOn::kDeviceCandidates : seeding::SeedsOn::kDeviceReads;
}

}  // namespace gatemap::mapper::detail

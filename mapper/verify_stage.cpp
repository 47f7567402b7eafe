// Verification (mapper stage 4), see verify_stage.hpp.
#include "mapper/verify_stage.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "common/log.hpp"
#include "common/parallel.hpp"
#include "gpu/fallback.hpp"
#include "mapper/hits.hpp"

namespace gatemap::mapper::detail {

VerifyStage::VerifyStage(const Reference& ref, const Verifier& verifier, const MapOptions& opt, bool filter_on,
                         int64_t verify_jobs_limit, std::vector<Workspace>& workspaces)
    : ref_(ref),
      verifier_(verifier),
      opt_(opt),
      filter_on_(filter_on),
      verify_jobs_limit_(verify_jobs_limit),
      workspaces_(workspaces) {}

VerifyStage::~VerifyStage() = default;

Workspace& VerifyStage::workspace() { return workspaces_.at(static_cast<size_t>(omp_get_thread_num())); }

bool VerifyStage::gpu_ready(int device) {
  if (!gpu_tried_) {
    gpu_tried_ = true;
    gpu_ = gpu::make_engine_or_null<verifying::VerifyGpu>("map", device, ref_.filter_view(), verify_jobs_limit_);
    log::debug("map", "GPU verifier ready at " + std::to_string(log::wall_seconds()) + " s");
  }
  return gpu_ != nullptr;
}

bool VerifyStage::begin(const io::ReadBatch& batch, seeding::SeedsOn seeds_on, seeding::DeviceSeeds& seeds,
                        std::vector<SeededRead>& seeded, CandidateBatch& cand, std::vector<uint8_t>& codes,
                        BatchVerification& v, MapStats& stats) {
  const bool on_device = seeds_on == seeding::SeedsOn::kDeviceCandidates;
  v.clip_first.clear();
  const bool on_gpu = seeds_on != seeding::SeedsOn::kHost && gpu_ready(seeds.device()) &&
                      (on_device ? verify_on_device(seeds, seeded, v, stats)
                                 : verify_host_candidates(batch, seeds, seeded, cand, codes, v, stats));
  v.verdicts_ready = on_gpu && on_device;
  if (on_gpu) {
    cand.ticket = -1;  // nothing for the filter stage to collect
  } else {
    v.device_result.clear();
    v.clip_first.clear();
    if (on_device) seeds.all_candidates(seeded);
  }
  return on_gpu;
}

// The candidates on the host, the reads on the device: every candidate filtered there
// (GateKeeper codes into `codes`) and those the filter accepts and the bit-vector takes
// verified there (v.device_result); hits() verifies the rest on the CPU.
bool VerifyStage::verify_host_candidates(const io::ReadBatch& batch, seeding::DeviceSeeds& seeds,
                                         const std::vector<SeededRead>& seeded, CandidateBatch& cand,
                                         std::vector<uint8_t>& codes, BatchVerification& v, MapStats& stats) {
  build_candidates(batch, seeded, false, cand);  // offsets and the batch's threshold: no host arrays
  const int64_t n = static_cast<int64_t>(seeded.size());
  std::vector<verifying::VerifyJob>& jobs = v.jobs;
  const auto count = static_cast<size_t>(cand.size());
  if (jobs.capacity() < count) jobs.reserve(count + count / 2);  // batches differ: grown rarely
  jobs.resize(count);
  int max_len = 1;
#pragma omp parallel for schedule(static, 1024) reduction(max : max_len)
  for (int64_t r = 0; r < n; ++r) {
    const SeededRead& w = seeded[r];
    max_len = std::max(max_len, w.length());
    const auto edits = static_cast<uint8_t>(w.max_edits);  // the device checks where the bit-vector verifier applies
    for (int64_t i = cand.first[r]; i < cand.first[r + 1]; ++i) {
      const Candidate& c = w.cand[i - cand.first[r]];
      jobs[i] = {c.diag, static_cast<uint32_t>(r), c.strand, edits, edits};
    }
  }
  const verifying::JobFilter job_filter{filter_on_, cand.max_edits, max_len};
  verifying::VerifyTiming timing;
  if (!gpu::run_or_fall_back(
          "map", "GPU filtering and verification failed, batch filtered and verified",
          [&] { gpu_->verify(seeds.device_reads(), jobs, job_filter, codes, v.device_result, &timing); },
          [&] { v.device_result.clear(); })) {
    return false;
  }
  stats.filter_kernel_s += timing.filter_ms / 1000;
  stats.verify_device_s += timing.verify_ms / 1000;  // hits() counts what the GPU verified
  return true;
}

// The candidates on the device: filtered and verified there; only the hits (and the
// candidates the bit-vector does not take) come back, ordered per read (v.verdicts),
// and the candidates of the reads the fallback may look at.
bool VerifyStage::verify_on_device(seeding::DeviceSeeds& seeds, std::vector<SeededRead>& seeded,
                                   BatchVerification& v, MapStats& stats) {
  const int64_t n = static_cast<int64_t>(seeded.size());
  int max_len = 1, max_edits = 0;
#pragma omp parallel for schedule(static, 1024) reduction(max : max_len, max_edits)
  for (int64_t r = 0; r < n; ++r) {
    max_len = std::max(max_len, seeded[r].length());
    max_edits = std::max(max_edits, seeded[r].max_edits);
  }
  const verifying::JobFilter job_filter{filter_on_, max_edits, max_len};
  verifying::VerifyTiming timing;
  verifying::VerifyCounts counts;
  if (!gpu::run_or_fall_back(
          "map", "GPU filtering and verification failed, batch filtered and verified",
          [&] {
            gpu_->verify_clusters(seeds.device_reads(), seeds.device_clusters(), job_filter, v.kept, counts, &timing);
            order_verdicts(ref_.index(), seeds.clusters(), v.kept, seeded, v.verdicts);
            seeds.fetch_candidates(seeded, v.verdicts.need_candidates);
            clip_on_device(seeds, seeded, v);
          },
          [] {})) {
    return false;
  }
  stats.filter_kernel_s += timing.filter_ms / 1000;
  stats.verify_device_s += timing.verify_ms / 1000;
  stats.filter_rejected += counts.rejected;
  stats.filter_unfiltered += counts.unfiltered;
  stats.verified += counts.accepted;
  stats.verified_on_gpu += counts.on_gpu;
  return true;
}

// Reads with no hit and nothing left to the CPU (their candidates fetched): the clipped
// fallback's verifications, on the device (the deep search may still find a hit first);
// bands over verifying::kMaxClipBand (long reads at high thresholds) stay on the CPU.
void VerifyStage::clip_on_device(const seeding::DeviceSeeds& seeds, const std::vector<SeededRead>& seeded,
                                 BatchVerification& v) {
  const int64_t n = static_cast<int64_t>(seeded.size());
  const auto contigs = static_cast<uint32_t>(ref_.index().contigs().size());
  v.clip_jobs.clear();
  v.clip_first.assign(static_cast<size_t>(n + 1), 0);
  std::vector<const Candidate*> order;
  for (int64_t r = 0; r < n; ++r) {
    const SeededRead& w = seeded[r];
    if (v.verdicts.first[r] == v.verdicts.first[r + 1] && Verifier::fallback_band(w) <= verifying::kMaxClipBand) {
      Verifier::clip_candidates(w, order);
      if (std::all_of(order.begin(), order.end(), [&](const Candidate* c) { return c->contig < contigs; })) {
        for (const Candidate* c : order) {
          v.clip_jobs.push_back({c->diag, ref_.contig_begin(c->contig), ref_.contig_end(c->contig),
                                 Verifier::fallback_max_cost(w), static_cast<uint32_t>(r), c->strand,
                                 static_cast<uint8_t>(Verifier::fallback_band(w))});
        }
      }
    }
    v.clip_first[r + 1] = static_cast<int64_t>(v.clip_jobs.size());
  }
  gpu_->clip_distances(seeds.device_reads(), v.clip_jobs, v.clip_results);
}

void VerifyStage::hits(const std::vector<SeededRead>& seeded, const CandidateBatch& cand,
                       const std::vector<uint8_t>& codes, BatchVerification& v, std::vector<ReadHits>& hits,
                       MapStats& stats) {
  hits.resize(seeded.size());
  if (v.verdicts_ready) return verified_on_device(seeded, v, hits);
  verified_on_host(seeded, cand, codes, v, hits, stats);
}

// Candidates that passed the filter, aligned within their read's threshold (those the
// GPU verified taken from v.device_result).
void VerifyStage::verified_on_host(const std::vector<SeededRead>& seeded, const CandidateBatch& cand,
                                   const std::vector<uint8_t>& codes, const BatchVerification& v,
                                   std::vector<ReadHits>& hits, MapStats& stats) {
  const int64_t n = static_cast<int64_t>(seeded.size());
  int64_t rejected = 0, unfiltered = 0, verified = 0, on_gpu = 0;
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : rejected, unfiltered, verified, on_gpu)
  for (int64_t r = 0; r < n; ++r) {
    errors.run([&] {
      const SeededRead& w = seeded[r];
      ReadHits& read_hits = hits[r];
      read_hits.clear();
      Workspace& ws = workspace();
      for (int64_t i = cand.first[r]; i < cand.first[r + 1]; ++i) {
        const auto at = static_cast<size_t>(i);
        const uint8_t code = codes[at];
        unfiltered += (code & filter::kFilterUnfiltered) != 0;
        if (!filter::filter_accepts(code, cand.max_edits)) {
          ++rejected;
          continue;
        }
        ++verified;
        const Candidate& c = w.cand[i - cand.first[r]];
        const bool gpu_verified = !v.device_result.empty() && v.device_result[at].edits != verifying::kNotVerified;
        on_gpu += gpu_verified;
        const Hit h = gpu_verified ? Verifier::make_hit(c, c.diag, v.device_result[at], false)
                                   : verifier_.verify_one(w, c, w.max_edits, c.diag, ws);
        if (h.edits >= 0) read_hits.push_back(h);
      }
    });
  }
  errors.rethrow();
  stats.filter_rejected += rejected;
  stats.filter_unfiltered += unfiltered;
  stats.verified += verified;
  stats.verified_on_gpu += on_gpu;
}

// The GPU's verdicts -> hits; candidates it left to the CPU verified here.
void VerifyStage::verified_on_device(const std::vector<SeededRead>& seeded, const BatchVerification& v,
                                     std::vector<ReadHits>& hits) {
  const int64_t n = static_cast<int64_t>(seeded.size());
  const DeviceVerdicts& verdicts = v.verdicts;
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 256)
  for (int64_t r = 0; r < n; ++r) {
    errors.run([&] {
      const SeededRead& w = seeded[r];
      ReadHits& read_hits = hits[r];
      read_hits.clear();
      for (int64_t i = verdicts.first[r]; i < verdicts.first[r + 1]; ++i) {
        const DeviceVerdict& d = verdicts.verdicts[static_cast<size_t>(i)];
        const Hit h = d.result.edits == verifying::kNotVerified
                          ? verifier_.verify_one(w, d.cand, w.max_edits, d.cand.diag, workspace())
                          : Verifier::make_hit(d.cand, d.cand.diag, d.result, false);
        if (h.edits >= 0) read_hits.push_back(h);
      }
    });
  }
  errors.rethrow();
}

// Both the deep search and the clipped fallback see every candidate whatever the filter
// said (the same work with the filter and without).
void VerifyStage::fallback(const std::vector<SeededRead>& seeded, bool paired, BatchVerification& v,
                           std::vector<ReadHits>& hits, MapStats& stats) {
  const int64_t n = static_cast<int64_t>(seeded.size());
  // A read placed well and uniquely: its best hits (not yet merged: neighbouring
  // candidates of one locus each give one) all end within its threshold of each other.
  const auto anchored = [&](int64_t r) {
    const ReadHits& read_hits = hits[r];
    const int e = seeded[r].max_edits;
    const Hit* first = nullptr;
    for (const Hit& h : read_hits) {
      if (!first || h.edits < first->edits) first = &h;
    }
    if (!first || first->clipped || 2 * first->edits > e) return false;
    return std::all_of(read_hits.begin(), read_hits.end(), [&](const Hit& h) {
      return h.edits > first->edits ||
             (h.strand == first->strand && h.contig == first->contig && std::llabs(h.ref_end - first->ref_end) <= e);
    });
  };
  std::vector<uint8_t>& deep = v.deep;
  deep.resize(static_cast<size_t>(n));
  int64_t searched = 0;
#pragma omp parallel for schedule(static, 1024) reduction(+ : searched)
  for (int64_t r = 0; r < n; ++r) {
    deep[r] = Verifier::needs_deep_search(seeded[r], hits[r], opt_.seed) && !(paired && anchored(r ^ 1));
    searched += deep[r];
  }
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t r = 0; r < n; ++r) {
    errors.run([&] {
      ReadHits& read_hits = hits[r];
      const SeededRead& w = seeded[r];
      if (deep[r]) verifier_.deep_search(w, opt_.seed, read_hits, workspace());
      if (read_hits.empty()) {
        const bool known = !v.clip_first.empty() && v.clip_first[r] < v.clip_first[r + 1];
        verifier_.clip_fallback(w, read_hits, workspace(), known ? &v.clip_results[v.clip_first[r]] : nullptr);
      }
      dedupe_hits(read_hits, w.max_edits);
    });
  }
  errors.rethrow();
  stats.deep_searches += searched;
}

}  // namespace gatemap::mapper::detail

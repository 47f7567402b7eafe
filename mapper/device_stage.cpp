// The GPU part of a batch's verification (mapper stage 4 on the device): the filter and
// the bit-vector over every candidate, only the hits back when the candidates stayed on
// the device, and the clipped fallback's verifications of reads without a hit.
#include <algorithm>

#include "common/log.hpp"
#include "gpu/fallback.hpp"
#include "mapper/mapper_impl.hpp"

namespace gatemap::mapper {
using namespace detail;

// With the reads on the device (the GPU seeded them): every candidate filtered there
// (GateKeeper codes into bs.codes) and those the filter accepts and the bit-vector
// verifier takes verified there (bs.device_result); verify_batch verifies the rest on
// the CPU. False when the GPU cannot (no engine, or the batch failed): the caller then
// runs the filter stage and the CPU verifier.
bool Mapper::Impl::filter_and_verify_on_gpu(const io::ReadBatch& batch, BatchState& bs) {
  if (!verify_gpu_tried) {
    verify_gpu_tried = true;
    verify_gpu = gpu::make_engine_or_null<seeding::VerifyGpu>("map", seeder.device(), ref.filter_view(),
                                                                verify_jobs_limit);
    log::debug("map", "GPU verifier ready at " + std::to_string(log::wall_seconds()) + " s");
  }
  if (!verify_gpu) return false;
  if (bs.on_device) return verify_on_device(bs);
  build_candidates(batch, bs.seeded, false, bs.cand);  // offsets and the batch's threshold: no host arrays
  bs.cand.ticket = -1;
  const int64_t n = static_cast<int64_t>(bs.seeded.size());
  std::vector<seeding::VerifyJob>& jobs = bs.jobs;
  const auto count = static_cast<size_t>(bs.cand.size());
  if (jobs.capacity() < count) jobs.reserve(count + count / 2);  // batches differ: grown rarely
  jobs.resize(count);
  int max_len = 1;
#pragma omp parallel for schedule(static, 1024) reduction(max : max_len)
  for (int64_t r = 0; r < n; ++r) {
    const SeededRead& w = bs.seeded[r];
    max_len = std::max(max_len, w.length());
    const auto edits = static_cast<uint8_t>(w.max_edits);  // the device checks where the bit-vector verifier applies
    for (int64_t i = bs.cand.first[r]; i < bs.cand.first[r + 1]; ++i) {
      const Candidate& c = w.cand[i - bs.cand.first[r]];
      jobs[i] = {c.diag, static_cast<uint32_t>(r), c.strand, edits, edits};
    }
  }
  const seeding::JobFilter job_filter{filter.on(), bs.cand.max_edits, max_len};
  seeding::VerifyTiming timing;
  if (!gpu::run_or_fall_back(
          "map", "GPU filtering and verification failed, batch filtered and verified",
          [&] {
            verify_gpu->verify(seeder.gpu()->device_reads(), jobs, job_filter, bs.codes, bs.device_result, &timing);
          },
          [&] { bs.device_result.clear(); })) {
    return false;
  }
  bs.stats.filter_kernel_s += timing.filter_ms / 1000;
  bs.stats.verify_device_s += timing.verify_ms / 1000;  // verify_batch counts what the GPU verified
  return true;
}

// The candidates on the device: filtered and verified there; only the hits (and the
// candidates the bit-vector does not take) come back, ordered per read (bs.verdicts),
// and the candidates of the reads the fallback stage may look at.
bool Mapper::Impl::verify_on_device(BatchState& bs) {
  bs.cand.ticket = -1;  // nothing for the filter stage to collect
  const int64_t n = static_cast<int64_t>(bs.seeded.size());
  int max_len = 1, max_edits = 0;
#pragma omp parallel for schedule(static, 1024) reduction(max : max_len, max_edits)
  for (int64_t r = 0; r < n; ++r) {
    max_len = std::max(max_len, bs.seeded[r].length());
    max_edits = std::max(max_edits, bs.seeded[r].max_edits);
  }
  const seeding::JobFilter job_filter{filter.on(), max_edits, max_len};
  seeding::VerifyTiming timing;
  seeding::VerifyCounts counts;
  if (!gpu::run_or_fall_back(
          "map", "GPU filtering and verification failed, batch filtered and verified",
          [&] {
            verify_gpu->verify_clusters(seeder.gpu()->device_reads(), seeder.gpu()->device_clusters(), job_filter,
                                        bs.kept, counts, &timing);
            order_verdicts(ref.index(), seeder.clusters(), bs.kept, bs.seeded, bs.verdicts);
            seeder.fetch_candidates(bs.seeded, bs.verdicts.need_candidates);
            clip_on_device(bs);
          },
          [] {})) {
    return false;
  }
  bs.stats.filter_kernel_s += timing.filter_ms / 1000;
  bs.stats.verify_device_s += timing.verify_ms / 1000;
  bs.stats.filter_rejected += counts.rejected;
  bs.stats.filter_unfiltered += counts.unfiltered;
  bs.stats.verified += counts.accepted;
  bs.stats.verified_on_gpu += counts.on_gpu;
  return true;
}

// Reads with no hit and nothing left to the CPU (their candidates fetched): the clipped
// fallback's verifications, on the device (the deep search may still find a hit first);
// bands over seeding::kMaxClipBand (long reads at high thresholds) stay on the CPU.
void Mapper::Impl::clip_on_device(BatchState& bs) {
  const int64_t n = static_cast<int64_t>(bs.seeded.size());
  const auto contigs = static_cast<uint32_t>(ref.index().contigs().size());
  bs.clip_jobs.clear();
  bs.clip_first.assign(static_cast<size_t>(n + 1), 0);
  std::vector<const Candidate*> order;
  for (int64_t r = 0; r < n; ++r) {
    const SeededRead& w = bs.seeded[r];
    if (bs.verdicts.first[r] == bs.verdicts.first[r + 1] && Verifier::fallback_band(w) <= seeding::kMaxClipBand) {
      Verifier::clip_candidates(w, order);
      if (std::all_of(order.begin(), order.end(), [&](const Candidate* c) { return c->contig < contigs; })) {
        for (const Candidate* c : order) {
          bs.clip_jobs.push_back({c->diag, ref.contig_begin(c->contig), ref.contig_end(c->contig),
                                  Verifier::fallback_max_cost(w), static_cast<uint32_t>(r), c->strand,
                                  static_cast<uint8_t>(Verifier::fallback_band(w))});
        }
      }
    }
    bs.clip_first[r + 1] = static_cast<int64_t>(bs.clip_jobs.size());
  }
  verify_gpu->clip_distances(seeder.gpu()->device_reads(), bs.clip_jobs, bs.clip_results);
}

}  // namespace gatemap::mapper

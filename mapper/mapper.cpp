// The mapper's batch pipeline, one call per stage: seed -> candidates -> filter ->
// verify (+ clipped fallback) -> placement -> records. begin_batch runs the first three
// (the GPU filter only started), finish_batch the rest.
#include "mapper/mapper.hpp"

#include <htslib/sam.h>
#include <omp.h>

#include <chrono>
#include <future>
#include <mutex>

#include "common/error.hpp"
#include "common/log.hpp"
#include "common/parallel.hpp"
#include "common/serial_worker.hpp"
#include "gpu/fallback.hpp"
#include "mapper/candidates.hpp"
#include "mapper/device_verdicts.hpp"
#include "mapper/filter_stage.hpp"
#include "mapper/hits.hpp"
#include "mapper/insert_model.hpp"
#include "mapper/placement.hpp"
#include "mapper/records.hpp"
#include "mapper/reference.hpp"
#include "mapper/sam_record.hpp"
#include "mapper/seed.hpp"
#include "mapper/seed_stage.hpp"
#include "mapper/seeding/verify_gpu.hpp"
#include "mapper/verify.hpp"
#include "mapper/workspace.hpp"

namespace gatemap::mapper {
using namespace detail;

struct Mapper::Impl {
  MapOptions opt;
  Reference ref;
  Verifier verifier;
  Placer placer;
  InsertModel insert;
  SeedStage seeder;
  FilterStage filter;
  std::vector<Workspace> workspaces;  // one per OpenMP thread
  std::mutex filter_mutex;            // begun batches start the filter while the main thread collects
  std::unique_ptr<seeding::VerifyGpu> verify_gpu;  // made on the worker for the first batch the GPU seeds
  bool verify_gpu_tried = false;
  int64_t verify_jobs_limit = 0;  // Hardware::verify_jobs_limit
  // A batch between begin_batch and finish_batch. Two exist, so that the next batch is
  // seeded (on the GPU or the CPU, on a thread of its own) and filtered while the current
  // one is verified and placed; their buffers are reused.
  struct BatchState {
    std::vector<SeededRead> seeded;
    CandidateBatch cand;
    std::vector<uint8_t> codes;  // filter result per candidate
    std::vector<ReadHits> hits;
    std::vector<std::vector<bam1_t*>> records;  // per read, handed on when the batch finishes
    std::vector<seeding::VerifyJob> jobs;       // per candidate: the GPU's job
    std::vector<BandResult> device_result;      // per candidate: the GPU's result; empty without the GPU
    // The candidates stayed on the device (the GPU seeded every read): what the GPU
    // verifier gave back, in verdicts; the host arrays above are then empty.
    bool on_device = false;
    std::vector<seeding::VerifiedCluster> kept;
    DeviceVerdicts verdicts;
    // And, for reads without a hit, the clipped fallback's verifications done there: read
    // r's in [clip_first[r], clip_first[r + 1]) (empty: none done).
    std::vector<seeding::ClipJob> clip_jobs;
    std::vector<seeding::ClipResult> clip_results;
    std::vector<int64_t> clip_first;
    std::vector<uint8_t> deep;  // reads the fallback stage seeds again deeper
    std::future<void> begun;  // seeding, candidates and the filter's start (and, with the GPU, verification)
    MapStats stats;           // of the begun part, added when the batch finishes
  };
  BatchState batches[2];
  SerialWorker worker;  // begins batches; last, so that its jobs end before what they use is destroyed
  int64_t begun = 0, finished = 0;

  Impl(const index::Index& idx, const MapOptions& o, const Hardware& hw)
      : opt(o),
        ref(idx),
        verifier(ref),
        placer(ref, verifier, opt),
        insert(opt.pair),
        seeder(idx, opt, hw),
        filter(ref, opt.filter, hw),
        workspaces(static_cast<size_t>(omp_get_max_threads())),
        verify_jobs_limit(hw.verify_jobs_limit) {}

  Workspace& workspace() { return workspaces.at(static_cast<size_t>(omp_get_thread_num())); }

  bool filter_and_verify_on_gpu(const io::ReadBatch& batch, BatchState& bs);
  bool verify_on_device(BatchState& bs);
  void clip_on_device(BatchState& bs);
  void verify_batch(BatchState& bs, MapStats& stats);
  void verify_verdicts(BatchState& bs);
  void fallback_batch(BatchState& bs, bool paired, MapStats& stats);
  void place_singles(const io::ReadBatch& batch, BatchState& bs, std::vector<std::vector<bam1_t*>>& recs);
  void place_pairs(const io::ReadBatch& batch, BatchState& bs, std::vector<std::vector<bam1_t*>>& recs,
                   MapStats& stats);
};

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

// Candidates that passed the filter, aligned within their read's threshold.
void Mapper::Impl::verify_batch(BatchState& bs, MapStats& stats) {
  const int64_t n = static_cast<int64_t>(bs.seeded.size());
  bs.hits.resize(static_cast<size_t>(n));
  if (bs.on_device) return verify_verdicts(bs);
  int64_t rejected = 0, unfiltered = 0, verified = 0, on_gpu = 0;
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : rejected, unfiltered, verified, on_gpu)
  for (int64_t r = 0; r < n; ++r) {
    errors.run([&] {
      const SeededRead& w = bs.seeded[r];
      ReadHits& hits = bs.hits[r];
      hits.clear();
      Workspace& ws = workspace();
      for (int64_t i = bs.cand.first[r]; i < bs.cand.first[r + 1]; ++i) {
        const auto at = static_cast<size_t>(i);
        const uint8_t code = bs.codes[at];
        unfiltered += (code & filter::kFilterUnfiltered) != 0;
        if (!filter::filter_accepts(code, bs.cand.max_edits)) {
          ++rejected;
          continue;
        }
        ++verified;
        const Candidate& c = w.cand[i - bs.cand.first[r]];
        const bool gpu_verified = !bs.device_result.empty() && bs.device_result[at].edits != seeding::kNotVerified;
        on_gpu += gpu_verified;
        const Hit h = gpu_verified ? Verifier::make_hit(c, c.diag, bs.device_result[at], false)
                                   : verifier.verify_one(w, c, w.max_edits, c.diag, ws);
        if (h.edits >= 0) hits.push_back(h);
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
void Mapper::Impl::verify_verdicts(BatchState& bs) {
  const int64_t n = static_cast<int64_t>(bs.seeded.size());
  const DeviceVerdicts& v = bs.verdicts;
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 256)
  for (int64_t r = 0; r < n; ++r) {
    errors.run([&] {
      const SeededRead& w = bs.seeded[r];
      ReadHits& hits = bs.hits[r];
      hits.clear();
      for (int64_t i = v.first[r]; i < v.first[r + 1]; ++i) {
        const DeviceVerdict& d = v.verdicts[static_cast<size_t>(i)];
        const Hit h = d.result.edits == seeding::kNotVerified
                          ? verifier.verify_one(w, d.cand, w.max_edits, d.cand.diag, workspace())
                          : Verifier::make_hit(d.cand, d.cand.diag, d.result, false);
        if (h.edits >= 0) hits.push_back(h);
      }
    });
  }
  errors.rethrow();
}

// Repetitive reads with poor hits or none: the deep search (not for a mate whose
// partner is placed well and uniquely: pairing and rescue look next to the partner);
// then reads with no hit within their threshold: the clipped fallback. Both see every
// candidate whatever the filter said (the same work with the filter and without).
void Mapper::Impl::fallback_batch(BatchState& bs, bool paired, MapStats& stats) {
  const int64_t n = static_cast<int64_t>(bs.seeded.size());
  // A read placed well and uniquely: its best hits (not yet merged: neighbouring
  // candidates of one locus each give one) all end within its threshold of each other.
  const auto anchored = [&](int64_t r) {
    const ReadHits& hits = bs.hits[r];
    const int e = bs.seeded[r].max_edits;
    const Hit* first = nullptr;
    for (const Hit& h : hits) {
      if (!first || h.edits < first->edits) first = &h;
    }
    if (!first || first->clipped || 2 * first->edits > e) return false;
    return std::all_of(hits.begin(), hits.end(), [&](const Hit& h) {
      return h.edits > first->edits ||
             (h.strand == first->strand && h.contig == first->contig && std::llabs(h.ref_end - first->ref_end) <= e);
    });
  };
  std::vector<uint8_t>& deep = bs.deep;
  deep.resize(static_cast<size_t>(n));
  int64_t searched = 0;
#pragma omp parallel for schedule(static, 1024) reduction(+ : searched)
  for (int64_t r = 0; r < n; ++r) {
    deep[r] = Verifier::needs_deep_search(bs.seeded[r], bs.hits[r], opt.seed) && !(paired && anchored(r ^ 1));
    searched += deep[r];
  }
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t r = 0; r < n; ++r) {
    errors.run([&] {
      ReadHits& hits = bs.hits[r];
      const SeededRead& w = bs.seeded[r];
      if (deep[r]) verifier.deep_search(w, opt.seed, hits, workspace());
      if (hits.empty()) {
        const bool known = !bs.clip_first.empty() && bs.clip_first[r] < bs.clip_first[r + 1];
        verifier.clip_fallback(w, hits, workspace(), known ? &bs.clip_results[bs.clip_first[r]] : nullptr);
      }
      dedupe_hits(hits, w.max_edits);
    });
  }
  errors.rethrow();
  stats.deep_searches += searched;
}

void Mapper::Impl::place_singles(const io::ReadBatch& batch, BatchState& bs, std::vector<std::vector<bam1_t*>>& recs) {
  const int64_t n = static_cast<int64_t>(batch.size());
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 256)
  for (int64_t r = 0; r < n; ++r) {
    errors.run([&] {
      const ReadPlacement p =
          placer.place_single(bs.seeded[r], bs.hits[r], name_hash(batch.reads[r].name), workspace());
      single_records(batch.reads[r], p, ref, opt.output, recs[r], workspace().records);
    });
  }
  errors.rethrow();
}

void Mapper::Impl::place_pairs(const io::ReadBatch& batch, BatchState& bs, std::vector<std::vector<bam1_t*>>& recs,
                               MapStats& stats) {
  const int64_t fragments = static_cast<int64_t>(batch.size()) / 2;
  if (!insert.known()) insert.estimate(bs.hits, fragments);
  int64_t proper = 0, rescued = 0;
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 128) reduction(+ : proper, rescued)
  for (int64_t f = 0; f < fragments; ++f) {
    errors.run([&] {
      const int64_t r = 2 * f;
      const SeededRead* const reads[2] = {&bs.seeded[r], &bs.seeded[r + 1]};
      ReadHits* const hits[2] = {&bs.hits[r], &bs.hits[r + 1]};
      const uint64_t tie[2] = {name_hash(batch.reads[r].name), name_hash(batch.reads[r + 1].name)};
      const PairPlacement pp = placer.place_pair(reads, hits, tie, insert, workspace());
      proper += pp.proper;
      rescued += pp.rescued;
      pair_records(batch.reads[r], batch.reads[r + 1], pp, ref, opt.output, recs[r], recs[r + 1],
                   workspace().records);
    });
  }
  errors.rethrow();
  stats.proper_pairs += proper;
  stats.rescued += rescued;
}

Mapper::Mapper(const index::Index& idx, const MapOptions& opt, const Hardware& hw) {
  validate(opt);
  impl_ = std::make_unique<Impl>(idx, opt, hw);
}
Mapper::~Mapper() = default;

void Mapper::set_record_pool(io::RecordPool* pool) {
  for (Workspace& ws : impl_->workspaces) ws.records.set_pool(pool);
}

void Mapper::map_batch(const io::ReadBatch& batch, std::vector<bam1_t*>& out) {
  begin_batch(batch);
  finish_batch(batch, out);
}

void Mapper::begin_batch(const io::ReadBatch& batch) {
  Impl& im = *impl_;
  if (im.begun - im.finished >= 2) throw Error("internal: more than two batches begun");
  Impl::BatchState& bs = im.batches[im.begun % 2];
  ++im.begun;
  if (im.opt.output.copy_comment) {  // here, not inside the parallel record building, which cannot throw
    for (const io::Read& read : batch.reads) check_comment_tags(read);
  }
  auto begin = [&im, &batch, &bs] {
    omp_set_num_threads(static_cast<int>(im.workspaces.size()));  // a thread's own setting: -t
    auto t0 = std::chrono::steady_clock::now();
    bs.clip_first.clear();
    const bool seeded_on_gpu = im.seeder.run(batch, bs.seeded, bs.on_device, bs.stats);
    bs.stats.seed_s += log::seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    if (!seeded_on_gpu || !im.filter_and_verify_on_gpu(batch, bs)) {
      bs.device_result.clear();
      bs.clip_first.clear();
      if (bs.on_device) im.seeder.all_candidates(bs.seeded);
      bs.on_device = false;
      build_candidates(batch, bs.seeded, im.filter.on(), bs.cand);
      const std::lock_guard<std::mutex> lock(im.filter_mutex);
      im.filter.start(bs.cand, bs.codes, bs.stats);  // on the GPU only started: finish_batch collects it
    }
    bs.stats.filter_s += log::seconds_since(t0);
  };
  // With the GPU seeding, batches are begun on the worker (one at a time, in order)
  // while the caller finishes the previous one; seeding on the CPU would only take
  // the cores the finishing needs, so it runs here.
  if (im.seeder.on_gpu()) {
    bs.begun = im.worker.submit(begin);
  } else {
    std::packaged_task<void()> now(begin);
    bs.begun = now.get_future();
    now();
  }
}

void Mapper::finish_batch(const io::ReadBatch& batch, std::vector<bam1_t*>& out) {
  Impl& im = *impl_;
  if (im.finished >= im.begun) throw Error("internal: finish_batch without begin_batch");
  Impl::BatchState& bs = im.batches[im.finished % 2];
  ++im.finished;
  auto t_wait = std::chrono::steady_clock::now();
  bs.begun.get();  // seeded, candidates built, filter started (or their error)
  stats_.begin_wait_s += log::seconds_since(t_wait);
  stats_ += bs.stats;
  bs.stats = {};
  const int64_t n = static_cast<int64_t>(batch.size());
  if (static_cast<int64_t>(bs.seeded.size()) != n) throw Error("internal: finish_batch with another batch");

  {
    const std::lock_guard<std::mutex> lock(im.filter_mutex);
    im.filter.finish(bs.cand, bs.codes, stats_);  // host time spent waiting counts as filter time
  }
  auto t0 = std::chrono::steady_clock::now();
  im.verify_batch(bs, stats_);
  stats_.verify_s += log::seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  im.fallback_batch(bs, batch.paired, stats_);
  stats_.fallback_s += log::seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  std::vector<std::vector<bam1_t*>>& recs = bs.records;
  recs.resize(static_cast<size_t>(n));
  for (auto& read_recs : recs) read_recs.clear();  // keeps their memory: no allocation per read
  if (batch.paired) {
    im.place_pairs(batch, bs, recs, stats_);
  } else {
    im.place_singles(batch, bs, recs);
  }
  int64_t records = 0, mapped = 0, secondary = 0, supplementary = 0;
  for (const auto& read_recs : recs) {
    for (bam1_t* b : read_recs) {
      if (b->core.flag & BAM_FSUPPLEMENTARY) {
        ++supplementary;
      } else if (b->core.flag & BAM_FSECONDARY) {
        ++secondary;
      } else {
        mapped += !(b->core.flag & BAM_FUNMAP);
      }
      out.push_back(b);
      ++records;
    }
  }
  stats_.reads += n;
  stats_.records += records;
  stats_.secondary += secondary;
  stats_.supplementary += supplementary;
  stats_.mapped += mapped;
  stats_.unmapped += n - mapped;
  stats_.pair_s += log::seconds_since(t0);
  stats_.insert_mean = im.insert.mean();
  stats_.insert_sd = im.insert.sd();
}

MapStats& MapStats::operator+=(const MapStats& o) {
  for (auto [a, b] : {std::pair{&reads, o.reads},
                      {&candidates, o.candidates},
                      {&filter_rejected, o.filter_rejected},
                      {&filter_unfiltered, o.filter_unfiltered},
                      {&verified, o.verified},
                      {&mapped, o.mapped},
                      {&unmapped, o.unmapped},
                      {&records, o.records},
                      {&secondary, o.secondary},
                      {&supplementary, o.supplementary},
                      {&proper_pairs, o.proper_pairs},
                      {&rescued, o.rescued},
                      {&capped_reads, o.capped_reads},
                      {&candidate_cap_hits, o.candidate_cap_hits},
                      {&deep_searches, o.deep_searches},
                      {&filter_cpu_fallbacks, o.filter_cpu_fallbacks},
                      {&seed_cpu_fallbacks, o.seed_cpu_fallbacks},
                      {&verified_on_gpu, o.verified_on_gpu},
                      {&duplicate_reads, o.duplicate_reads},
                      {&duplicate_pairs, o.duplicate_pairs},
                      {&duplicate_unpaired, o.duplicate_unpaired}}) {
    *a += b;
  }
  for (auto [a, b] : {std::pair{&seed_s, o.seed_s},
                      {&seed_device_s, o.seed_device_s},
                      {&verify_device_s, o.verify_device_s},
                      {&filter_s, o.filter_s},
                      {&filter_kernel_s, o.filter_kernel_s},
                      {&verify_s, o.verify_s},
                      {&pair_s, o.pair_s},
                      {&output_s, o.output_s},
                      {&fallback_s, o.fallback_s},
                      {&filter_prepare_s, o.filter_prepare_s},
                      {&filter_engine_s, o.filter_engine_s},
                      {&input_wait_s, o.input_wait_s},
                      {&begin_wait_s, o.begin_wait_s},
                      {&output_wait_s, o.output_wait_s}}) {
    *a += b;
  }
  if (o.insert_mean != 0) {
    insert_mean = o.insert_mean;
    insert_sd = o.insert_sd;
  }
  return *this;
}

void validate(const MapOptions& opt) {
  if (opt.verify.max_edits < -1 || opt.verify.max_edits > kMaxEditsLimit) {
    throw UsageError("-e " + std::to_string(opt.verify.max_edits) + " is out of range (0 to " +
                     std::to_string(kMaxEditsLimit) + ", or -1 for 4% of the read length)");
  }
  if (opt.seed.max_candidates < 1) {
    throw UsageError("--max-cand " + std::to_string(opt.seed.max_candidates) + " must be at least 1");
  }
}

}  // namespace gatemap::mapper

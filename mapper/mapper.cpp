// The mapper's batch pipeline, one call per stage: seed -> candidates -> filter ->
// verify (+ clipped fallback) -> placement -> records. begin_batch runs the first three
// (the GPU filter only started; on the GPU verification too: device_stage.cpp),
// finish_batch the rest.
#include "mapper/mapper.hpp"

#include <htslib/sam.h>
#include <omp.h>

#include <chrono>
#include <future>
#include <mutex>

#include "common/error.hpp"
#include "common/log.hpp"
#include "common/parallel.hpp"
#include "mapper/hits.hpp"
#include "mapper/mapper_impl.hpp"
#include "mapper/records.hpp"
#include "mapper/sam_record.hpp"
#include "mapper/seed.hpp"

namespace gatemap::mapper {
using namespace detail;

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
  inserts->for_batch(batch.first_id, n, bs.hits, false);  // no model, but the batches after it wait for it
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
  insert = inserts->for_batch(batch.first_id, fragments, bs.hits, true);
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

void Mapper::share_insert_model(std::shared_ptr<detail::InsertModelInOrder> model) {
  impl_->inserts = std::move(model);
}

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
  auto begin = [&im, &batch, &bs, number = im.begun] {
    omp_set_num_threads(static_cast<int>(im.workspaces.size()));  // a thread's own setting: -t
    auto t0 = std::chrono::steady_clock::now();
    bs.clip_first.clear();
    const bool seeded_on_gpu = im.seeder.run(batch, bs.seeded, bs.on_device, bs.stats);
    const double seed_s = log::seconds_since(t0);
    bs.stats.seed_s += seed_s;
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
    log::debug("map", "batch " + std::to_string(number) + " begun at " + std::to_string(log::wall_seconds()) +
                          " s: seeded in " + std::to_string(seed_s) + " s, filtered in " +
                          std::to_string(log::seconds_since(t0)) + " s");
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

void Mapper::finish_batch(const io::ReadBatch& batch, std::vector<bam1_t*>& out,
                          std::vector<uint32_t>* records_per_read) {
  Impl& im = *impl_;
  if (im.finished >= im.begun) throw Error("internal: finish_batch without begin_batch");
  Impl::BatchState& bs = im.batches[im.finished % 2];
  ++im.finished;
  {
    const log::StageTimer timing(stats_.begin_wait_s);
    bs.begun.get();  // seeded, candidates built, filter started (or their error)
  }
  stats_ += bs.stats;
  bs.stats = {};
  const int64_t n = static_cast<int64_t>(batch.size());
  if (static_cast<int64_t>(bs.seeded.size()) != n) throw Error("internal: finish_batch with another batch");

  {
    const std::lock_guard<std::mutex> lock(im.filter_mutex);
    im.filter.finish(bs.cand, bs.codes, stats_);  // host time spent waiting counts as filter time
  }
  {
    const log::StageTimer timing(stats_.verify_s);
    im.verify_batch(bs, stats_);
  }
  {
    const log::StageTimer timing(stats_.fallback_s);
    im.fallback_batch(bs, batch.paired, stats_);
  }
  const auto t0 = std::chrono::steady_clock::now();  // placing and records: pair_s
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
    if (records_per_read) records_per_read->push_back(static_cast<uint32_t>(read_recs.size()));
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

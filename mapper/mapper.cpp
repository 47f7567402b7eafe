// The mapper's batch pipeline, one call per stage: seed -> candidates -> filter ->
// verify (+ clipped fallback) -> placement -> records. begin_batch runs the first three
// (the GPU filter only started), finish_batch the rest.
#include "mapper/mapper.hpp"

#include <htslib/sam.h>
#include <omp.h>

#include <chrono>

#include "common/error.hpp"
#include "common/parallel.hpp"
#include "mapper/candidates.hpp"
#include "mapper/filter_stage.hpp"
#include "mapper/hits.hpp"
#include "mapper/insert_model.hpp"
#include "mapper/placement.hpp"
#include "mapper/records.hpp"
#include "mapper/reference.hpp"
#include "mapper/sam_record.hpp"
#include "mapper/seed.hpp"
#include "mapper/verify.hpp"
#include "mapper/workspace.hpp"

namespace gatemap::mapper {
using namespace detail;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

struct Mapper::Impl {
  MapOptions opt;
  Reference ref;
  Verifier verifier;
  Placer placer;
  InsertModel insert;
  FilterStage filter;
  std::vector<Workspace> workspaces;  // one per OpenMP thread
  // A batch between begin_batch and finish_batch. Two exist, so that the next batch is
  // seeded while the GPU filters the current one; their buffers are reused.
  struct BatchState {
    std::vector<SeededRead> seeded;
    CandidateBatch cand;
    std::vector<uint8_t> codes;  // filter result per candidate
    std::vector<ReadHits> hits;
  };
  BatchState batches[2];
  int64_t begun = 0, finished = 0;

  Impl(const index::Index& idx, const MapOptions& o, const Hardware& hw)
      : opt(o),
        ref(idx),
        verifier(ref),
        placer(ref, verifier, opt),
        insert(opt.pair),
        filter(ref, opt.filter, hw),
        workspaces(static_cast<size_t>(omp_get_max_threads())) {}

  Workspace& workspace() { return workspaces.at(static_cast<size_t>(omp_get_thread_num())); }

  void seed_batch(const io::ReadBatch& batch, BatchState& bs, MapStats& stats);
  void verify_batch(BatchState& bs, MapStats& stats);
  void fallback_batch(BatchState& bs);
  void place_singles(const io::ReadBatch& batch, BatchState& bs, std::vector<std::vector<bam1_t*>>& recs);
  void place_pairs(const io::ReadBatch& batch, BatchState& bs, std::vector<std::vector<bam1_t*>>& recs,
                   MapStats& stats);
};

void Mapper::Impl::seed_batch(const io::ReadBatch& batch, BatchState& bs, MapStats& stats) {
  const int64_t n = static_cast<int64_t>(batch.size());
  bs.seeded.resize(static_cast<size_t>(n));
  int64_t capped = 0, cap_hits = 0, ncand = 0;
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : capped, cap_hits, ncand)
  for (int64_t r = 0; r < n; ++r) {
    errors.run([&] {
      SeededRead& w = bs.seeded[r];
      seed_read(ref.index(), batch.reads[r].seq, opt, workspace().seed, w);
      capped += w.capped;
      cap_hits += w.cand_cap_hit;
      ncand += static_cast<int64_t>(w.cand.size());
    });
  }
  errors.rethrow();
  stats.capped_reads += capped;
  stats.candidate_cap_hits += cap_hits;
  stats.candidates += ncand;
}

// Candidates that passed the filter, aligned within their read's threshold.
void Mapper::Impl::verify_batch(BatchState& bs, MapStats& stats) {
  const int64_t n = static_cast<int64_t>(bs.seeded.size());
  bs.hits.resize(static_cast<size_t>(n));
  int64_t rejected = 0, unfiltered = 0, verified = 0;
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : rejected, unfiltered, verified)
  for (int64_t r = 0; r < n; ++r) {
    errors.run([&] {
      const SeededRead& w = bs.seeded[r];
      ReadHits& hits = bs.hits[r];
      hits.clear();
      Workspace& ws = workspace();
      for (int64_t i = bs.cand.first[r]; i < bs.cand.first[r + 1]; ++i) {
        const uint8_t code = bs.codes[i];
        unfiltered += (code & filter::kFilterUnfiltered) != 0;
        if (!filter::filter_accepts(code, bs.cand.max_edits)) {
          ++rejected;
          continue;
        }
        ++verified;
        const Candidate& c = w.cand[i - bs.cand.first[r]];
        const Hit h = verifier.verify_one(w, c, w.max_edits, c.diag, ws);
        if (h.edits >= 0) hits.push_back(h);
      }
    });
  }
  errors.rethrow();
  stats.filter_rejected += rejected;
  stats.filter_unfiltered += unfiltered;
  stats.verified += verified;
}

// Reads with no hit within their threshold: the clipped fallback, which sees every
// candidate whatever the filter said (the same work with the filter and without).
void Mapper::Impl::fallback_batch(BatchState& bs) {
  const int64_t n = static_cast<int64_t>(bs.seeded.size());
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t r = 0; r < n; ++r) {
    errors.run([&] {
      ReadHits& hits = bs.hits[r];
      if (hits.empty()) verifier.clip_fallback(bs.seeded[r], hits, workspace());
      dedupe_hits(hits, bs.seeded[r].max_edits);
    });
  }
  errors.rethrow();
}

void Mapper::Impl::place_singles(const io::ReadBatch& batch, BatchState& bs, std::vector<std::vector<bam1_t*>>& recs) {
  const int64_t n = static_cast<int64_t>(batch.size());
  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 256)
  for (int64_t r = 0; r < n; ++r) {
    errors.run([&] {
      const ReadPlacement p =
          placer.place_single(bs.seeded[r], bs.hits[r], name_hash(batch.reads[r].name), workspace());
      single_records(batch.reads[r], p, ref, opt.output, recs[r]);
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
      pair_records(batch.reads[r], batch.reads[r + 1], pp, ref, opt.output, recs[r], recs[r + 1]);
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
  auto t0 = std::chrono::steady_clock::now();
  im.seed_batch(batch, bs, stats_);
  stats_.seed_s += seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  build_candidates(batch, bs.seeded, im.filter.on(), bs.cand);
  im.filter.start(bs.cand, bs.codes, stats_);  // on the GPU only started: finish_batch collects it
  stats_.filter_s += seconds_since(t0);
}

void Mapper::finish_batch(const io::ReadBatch& batch, std::vector<bam1_t*>& out) {
  Impl& im = *impl_;
  if (im.finished >= im.begun) throw Error("internal: finish_batch without begin_batch");
  Impl::BatchState& bs = im.batches[im.finished % 2];
  ++im.finished;
  const int64_t n = static_cast<int64_t>(batch.size());
  if (static_cast<int64_t>(bs.seeded.size()) != n) throw Error("internal: finish_batch with another batch");

  im.filter.finish(bs.cand, bs.codes, stats_);  // host time spent waiting counts as filter time
  auto t0 = std::chrono::steady_clock::now();
  im.verify_batch(bs, stats_);
  stats_.verify_s += seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  im.fallback_batch(bs);
  stats_.fallback_s += seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  std::vector<std::vector<bam1_t*>> recs(static_cast<size_t>(n));
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
  stats_.pair_s += seconds_since(t0);
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

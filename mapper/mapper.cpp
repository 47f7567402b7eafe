// The mapper's batch pipeline, one call per stage: seed -> candidates -> filter ->
// verify (+ fallback) -> placement -> records. begin_batch runs the first three (the GPU
// filter only started; where the GPU seeded, the verify stage's device part instead),
// finish_batch the rest.
#include "mapper/mapper.hpp"

#include <htslib/sam.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <future>
#include <mutex>

#include "common/error.hpp"
#include "common/log.hpp"
#include "common/parallel.hpp"
#include "mapper/hits.hpp"
#include "mapper/mapper_impl.hpp"
#include "mapper/records.hpp"
#include "mapper/sam_record.hpp"

namespace gatemap::mapper {
using namespace detail;

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
    log::Stopwatch t0;
    const seeding::SeedsOn seeds_on = im.seeder.run(batch, bs.seeded, bs.stats);
    const double seed_s = t0.seconds();
    bs.stats.seed_s += seed_s;
    t0.restart();
    if (!im.verifying.begin(batch, seeds_on, im.seeder, bs.seeded, bs.cand, bs.codes, bs.verification, bs.stats)) {
      build_candidates(batch, bs.seeded, im.filter.on(), bs.cand);
      const std::lock_guard<std::mutex> lock(im.filter_mutex);
      im.filter.start(bs.cand, bs.codes, bs.stats);  // on the GPU only started: finish_batch collects it
    }
    bs.stats.filter_s += t0.seconds();
    log::debug("map", "batch " + std::to_string(number) + " begun at " + std::to_string(log::wall_seconds()) +
                          " s: seeded in " + std::to_string(seed_s) + " s, filtered in " +
                          std::to_string(t0.seconds()) + " s");
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

namespace {

// A mapped primary record into --stats' histograms and depth: its MAPQ, the reference bases
// it covers, and (mate 1 of a proper pair) its insert size.
void tally_mapped_primary(const bam1_t* b, MapStats& st) {
  ++st.mapq_histogram[std::min<size_t>(b->core.qual, st.mapq_histogram.size() - 1)];
  if (b->core.tid >= 0) {
    const auto tid = static_cast<size_t>(b->core.tid);
    if (tid >= st.aligned_bases.size()) st.aligned_bases.resize(tid + 1);
    st.aligned_bases[tid] += bam_cigar2rlen(static_cast<int>(b->core.n_cigar), bam_get_cigar(b));
  }
  if ((b->core.flag & BAM_FPROPER_PAIR) && (b->core.flag & BAM_FREAD1) && b->core.isize != 0) {
    const int64_t bin = std::min<int64_t>(std::llabs(b->core.isize) / MapStats::kInsertBinBp,
                                          static_cast<int64_t>(st.insert_histogram.size()) - 1);
    ++st.insert_histogram[static_cast<size_t>(bin)];
  }
}

}  // namespace

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
    im.verifying.hits(bs.seeded, bs.cand, bs.codes, bs.verification, bs.hits, stats_);
  }
  {
    const log::StageTimer timing(stats_.fallback_s);
    im.verifying.fallback(bs.seeded, batch.paired, bs.verification, bs.hits, stats_);
  }
  const log::Stopwatch t0;  // placing and records: pair_s
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
        if (!(b->core.flag & BAM_FUNMAP)) {
          ++mapped;
          tally_mapped_primary(b, stats_);
        }
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
  stats_.pair_s += t0.seconds();
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

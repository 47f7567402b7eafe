#pragma once
// The mapper's state between its stages (mapper.cpp runs a batch through them).
#include <htslib/sam.h>
#include <omp.h>

#include <future>
#include <memory>
#include <mutex>
#include <vector>

#include "common/serial_worker.hpp"
#include "mapper/base/reference.hpp"
#include "mapper/base/workspace.hpp"
#include "mapper/candidates.hpp"
#include "mapper/filter_stage.hpp"
#include "mapper/insert_model.hpp"
#include "mapper/mapper.hpp"
#include "mapper/placement.hpp"
#include "mapper/seed_stage.hpp"
#include "mapper/verify/verifier.hpp"
#include "mapper/verify_stage.hpp"

namespace gatemap::mapper {

struct Mapper::Impl {
  MapOptions opt;
  Reference ref;
  detail::Verifier verifier;
  detail::Placer placer;
  std::shared_ptr<detail::InsertModelInOrder> inserts;  // the model of each batch, in input order
  detail::InsertModel insert;                           // the finishing batch's
  detail::SeedStage seeder;
  detail::FilterStage filter;
  std::vector<detail::Workspace> workspaces;  // one per OpenMP thread
  detail::VerifyStage verifying;
  std::mutex filter_mutex;  // begun batches start the filter while the main thread collects
  // A batch between begin_batch and finish_batch. Two exist, so that the next batch is
  // seeded (on the GPU or the CPU, on a thread of its own) and filtered while the current
  // one is verified and placed; their buffers are reused.
  struct BatchState {
    std::vector<detail::SeededRead> seeded;
    detail::CandidateBatch cand;  // on the host (not when verified where the GPU seeded them)
    std::vector<uint8_t> codes;   // the filter's code per host candidate
    detail::BatchVerification verification;
    std::vector<detail::ReadHits> hits;
    std::vector<std::vector<bam1_t*>> records;  // per read, handed on when the batch finishes
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
        inserts(std::make_shared<detail::InsertModelInOrder>(opt.pair, false)),
        insert(opt.pair),
        seeder(idx, opt, hw),
        filter(ref, opt.filter, hw),
        workspaces(static_cast<size_t>(omp_get_max_threads())),
        verifying(ref, verifier, opt, filter.on(), hw.verify_jobs_limit, workspaces) {}

  detail::Workspace& workspace() { return workspaces.at(static_cast<size_t>(omp_get_thread_num())); }

  void place_singles(const io::ReadBatch& batch, BatchState& bs, std::vector<std::vector<bam1_t*>>& recs);
  void place_pairs(const io::ReadBatch& batch, BatchState& bs, std::vector<std::vector<bam1_t*>>& recs,
                   MapStats& stats);
};

}  // namespace gatemap::mapper

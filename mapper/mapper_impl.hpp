#pragma once
// The mapper's state between its stages (mapper.cpp runs a batch through them;
// device_stage.cpp holds the part that runs on the GPU).
#include <htslib/sam.h>
#include <omp.h>

#include <future>
#include <memory>
#include <mutex>
#include <vector>

#include "common/serial_worker.hpp"
#include "mapper/candidates.hpp"
#include "mapper/device_verdicts.hpp"
#include "mapper/filter_stage.hpp"
#include "mapper/insert_model.hpp"
#include "mapper/mapper.hpp"
#include "mapper/placement.hpp"
#include "mapper/reference.hpp"
#include "mapper/seed_stage.hpp"
#include "mapper/seeding/verify_gpu.hpp"
#include "mapper/verify.hpp"
#include "mapper/workspace.hpp"

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
  std::mutex filter_mutex;            // begun batches start the filter while the main thread collects
  std::unique_ptr<seeding::VerifyGpu> verify_gpu;  // made on the worker for the first batch the GPU seeds
  bool verify_gpu_tried = false;
  int64_t verify_jobs_limit = 0;  // Hardware::verify_jobs_limit
  // A batch between begin_batch and finish_batch. Two exist, so that the next batch is
  // seeded (on the GPU or the CPU, on a thread of its own) and filtered while the current
  // one is verified and placed; their buffers are reused.
  struct BatchState {
    std::vector<detail::SeededRead> seeded;
    detail::CandidateBatch cand;
    std::vector<uint8_t> codes;  // filter result per candidate
    std::vector<detail::ReadHits> hits;
    std::vector<std::vector<bam1_t*>> records;  // per read, handed on when the batch finishes
    std::vector<seeding::VerifyJob> jobs;       // per candidate: the GPU's job
    std::vector<BandResult> device_result;      // per candidate: the GPU's result; empty without the GPU
    // The candidates stayed on the device (the GPU seeded every read): what the GPU
    // verifier gave back, in verdicts; the host arrays above are then empty.
    bool on_device = false;
    std::vector<seeding::VerifiedCluster> kept;
    detail::DeviceVerdicts verdicts;
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
        inserts(std::make_shared<detail::InsertModelInOrder>(opt.pair, false)),
        insert(opt.pair),
        seeder(idx, opt, hw),
        filter(ref, opt.filter, hw),
        workspaces(static_cast<size_t>(omp_get_max_threads())),
        verify_jobs_limit(hw.verify_jobs_limit) {}

  detail::Workspace& workspace() { return workspaces.at(static_cast<size_t>(omp_get_thread_num())); }

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

}  // namespace gatemap::mapper

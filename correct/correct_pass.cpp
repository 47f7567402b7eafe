#include "correct/correct_pass.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "common/log.hpp"
#include "common/ordered_lanes.hpp"
#include "common/split_threads.hpp"
#include "common/dna.hpp"
#include "gpu/fallback.hpp"

namespace gatemap::correct {

namespace {

// A batch on its way through the pass, with what its lane found.
struct Slot {
  io::ReadBatch batch;
  CorrectBatch codes;  // reused: no allocation per batch once sizes settle
  int64_t reads_changed = 0, bases_changed = 0, uncorrectable = 0, too_long = 0;
  double kernel_ms = 0;
};

// The reads as 2-bit codes for the corrector (N and IUPAC: 4), on `threads` threads.
void encode(const std::vector<io::Read>& reads, int threads, CorrectBatch& cb) {
  const size_t n = reads.size();
  cb.offset.resize(n);
  cb.len.resize(n);
  int64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    cb.offset[i] = total;
    cb.len[i] = static_cast<int32_t>(reads[i].seq.size());
    total += cb.len[i];
  }
  cb.codes.resize(static_cast<size_t>(total));
  split_threads(n, threads, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      uint8_t* out = cb.codes.data() + cb.offset[i];
      for (char c : reads[i].seq) *out++ = base_code(c);
    }
  });
}

// Lane `lane`'s work on one batch: encode, correct (its engine, else the CPU twin; a GPU
// failure sends the batch to the twin), the corrected bases back into the reads.
void correct_slot(const CorrectPass& pass, int lane, int threads, Slot& slot) {
  std::vector<io::Read>& reads = slot.batch.reads;
  CorrectBatch& cb = slot.codes;
  encode(reads, threads, cb);
  slot.kernel_ms = 0;
  if (pass.pass_through) {
    cb.status.assign(cb.size(), static_cast<uint8_t>(CorrectStatus::clean));
    cb.changed.assign(cb.size(), 0);
  } else if (!pass.engines.empty()) {
    KmerCorrectGpu& engine = *pass.engines[static_cast<size_t>(lane) % pass.engines.size()];
    gpu::run_or_fall_back(
        "correct", "GPU failed, batch corrected", [&] { engine.correct(pass.options, cb, &slot.kernel_ms); },
        [&] { correct_reads_cpu(pass.spectrum, pass.options, cb); });
  } else {
    correct_reads_cpu(pass.spectrum, pass.options, cb);
  }
  split_threads(reads.size(), threads, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      if (cb.status[i] != static_cast<uint8_t>(CorrectStatus::corrected)) continue;
      std::string& seq = reads[i].seq;
      for (int32_t b = 0; b < cb.len[i]; ++b) seq[static_cast<size_t>(b)] = "ACGTN"[cb.codes[cb.offset[i] + b]];
    }
  });
  slot.reads_changed = slot.bases_changed = slot.uncorrectable = slot.too_long = 0;
  for (size_t i = 0; i < reads.size(); ++i) {
    const auto status = static_cast<CorrectStatus>(cb.status[i]);
    if (status == CorrectStatus::corrected) {
      ++slot.reads_changed;
      slot.bases_changed += cb.changed[i];
    }
    slot.uncorrectable += status == CorrectStatus::uncorrectable;
    slot.too_long += status == CorrectStatus::too_long;
    if (reads[i].qual.size() != reads[i].seq.size()) {  // FASTA input: nothing to write qualities from
      throw FormatError("gatemap correct writes FASTQ and needs FASTQ input: read '" + reads[i].name +
                        "' has no qualities");
    }
  }
}

}  // namespace

void run_correct_pass(const CorrectPass& pass, ReadInput& input, io::FastqWriter& out1, io::FastqWriter* out2,
                      CorrectSummary& sum) {
  const int lanes = std::max<int>(1, static_cast<int>(pass.engines.size()));
  const int lane_threads = std::max(1, pass.threads / lanes);
  input.begin_last_pass();  // on this thread: its thread count
  OrderedLanes<Slot> pipeline(static_cast<size_t>(lanes) + 3,
                              [&](Slot& slot) { return input.next_of_last_pass(slot.batch); });
  int64_t written = 0;
  pipeline.run(
      lanes,
      [&](int lane) {
        while (Slot* slot = pipeline.next(false)) {
          correct_slot(pass, lane, lane_threads, *slot);
          pipeline.done(slot);
        }
      },
      [&](Slot& slot) {
        const io::ReadBatch& batch = slot.batch;
        for (size_t i = 0; i < batch.size(); ++i) {
          io::FastqWriter& w = (batch.paired && i % 2 == 1) ? *out2 : out1;
          w.write(batch.reads[i]);  // the header as it was: name, /1 or /2, comment
        }
        sum.reads_changed += slot.reads_changed;
        sum.bases_changed += slot.bases_changed;
        sum.uncorrectable += slot.uncorrectable;
        sum.too_long += slot.too_long;
        sum.correct_kernel_ms += slot.kernel_ms;
        written += static_cast<int64_t>(batch.size());
        log::info("correct", "corrected " + std::to_string(written) + " reads");
      });
  sum.correct_read_wait_s = pipeline.lane_wait_s();
  sum.write_wait_s = pipeline.reader_wait_s();
}

}  // namespace gatemap::correct

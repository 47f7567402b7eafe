#pragma once
// The correction of a batch (correct/correct.cpp's pass 2): its reads encoded in parts,
// one per GPU engine of a lane, corrected there (or by the CPU twin), the corrected bases
// put back and the statuses tallied.
#include <omp.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "common/dna.hpp"
#include "common/split_threads.hpp"
#include "correct/correct.hpp"
#include "correct/kmer_correct.hpp"

namespace gatemap::correct {

// Reads [first, first + n) as 2-bit codes for the corrector, encoded on all cores
// (split_threads: no OpenMP team left spinning beside the parser's threads). `bases(i)`
// is read i's bases.
template <class Bases>
void encode_batch(const Bases& bases, size_t first, size_t n, CorrectBatch& cb) {
  cb.offset.resize(n);
  cb.len.resize(n);
  int64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    cb.offset[i] = total;
    cb.len[i] = static_cast<int32_t>(bases(first + i).size());
    total += cb.len[i];
  }
  cb.codes.resize(static_cast<size_t>(total));
  split_threads(n, omp_get_max_threads(), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      uint8_t* out = cb.codes.data() + cb.offset[i];
      for (char c : bases(first + i)) *out++ = base_code(c);  // N and IUPAC: 4
    }
  });
}

// A batch's reads in one part per GPU engine (one part on the CPU), each part's reads
// contiguous: part p holds reads [p * per, (p + 1) * per).
struct BatchParts {
  std::vector<CorrectBatch> parts;
  size_t per = 0;
  template <class Bases>
  BatchParts(const Bases& bases, size_t n, size_t n_parts) : parts(std::max<size_t>(1, n_parts)) {
    per = std::max<size_t>(1, (n + parts.size() - 1) / parts.size());
    for (size_t p = 0; p < parts.size(); ++p) {
      const size_t b = std::min(n, p * per), e = std::min(n, b + per);
      encode_batch(bases, b, e - b, parts[p]);
    }
  }
  CorrectBatch& of(size_t read) { return parts[read / per]; }
  size_t index(size_t read) const { return read % per; }
  CorrectStatus status(size_t read) const {
    return static_cast<CorrectStatus>(parts[read / per].status[read % per]);
  }
};

// Every part on its own GPU at once; any GPU failure sends the whole batch to the CPU twin.
void correct_on_gpus(const std::vector<std::unique_ptr<KmerCorrectGpu>>& engines, const KmerSpectrum& spectrum,
                     const CorrectOptions& copt, BatchParts& batch, CorrectSummary& sum);

// GPU engines per lane of the correction pass: a lane's engines, one per GPU. Two lanes,
// whose engines share each GPU's copy of the spectrum: one lane's copies and encoding
// overlap the other lane's kernels.
using LaneEngines = std::vector<std::vector<std::unique_ptr<KmerCorrectGpu>>>;

// The correction of one batch (its reads' bases encoded in `parts`): on the GPU engines
// of the lane, else the CPU twin; the corrected bases put back through bases_of(i) (read
// i's bases, writable) and the statuses tallied in `sum` (the lane's own).
struct BatchCorrector {
  const KmerSpectrum& spectrum;
  const LaneEngines& lane_engines;
  CorrectOptions options;
  bool pass_through = false;  // no threshold: reads written unchanged
  int threads = 1;

  int lanes() const { return std::max<int>(1, static_cast<int>(lane_engines.size())); }
  size_t parts_per_batch() const { return lane_engines.empty() ? 1 : lane_engines[0].size(); }

  template <class BasesOf>
  void run(int lane, BatchParts& parts, size_t n, const BasesOf& bases_of, CorrectSummary& sum) const {
    if (pass_through) {
      for (CorrectBatch& cb : parts.parts) {
        cb.status.assign(cb.size(), static_cast<uint8_t>(CorrectStatus::clean));
        cb.changed.assign(cb.size(), 0);
      }
    } else if (!lane_engines.empty()) {
      correct_on_gpus(lane_engines[lane], spectrum, options, parts, sum);
    } else {
      correct_reads_cpu(spectrum, options, parts.parts[0]);
    }
    split_threads(n, threads, [&](size_t begin, size_t end) {  // in parallel, in place
      for (size_t i = begin; i < end; ++i) {
        if (parts.status(i) != CorrectStatus::corrected) continue;
        const CorrectBatch& cb = parts.of(i);
        const size_t j = parts.index(i);
        char* bases = bases_of(i);
        for (int32_t b = 0; b < cb.len[j]; ++b) bases[b] = "ACGTN"[cb.codes[cb.offset[j] + b]];
      }
    });
    for (size_t i = 0; i < n; ++i) {
      const CorrectStatus st = parts.status(i);
      if (st == CorrectStatus::corrected) {
        ++sum.reads_changed;
        sum.bases_changed += parts.of(i).changed[parts.index(i)];
      }
      sum.uncorrectable += st == CorrectStatus::uncorrectable;
      sum.too_long += st == CorrectStatus::too_long;
    }
  }
};

// The engines of the correction pass's lanes: a lane per device that takes the spectrum
// (none: the CPU twin), each correcting whole batches (4 GPUs sharing each batch spent
// 1.7x the kernel time of one and were slower); with one device, a second lane sharing
// its spectrum, so that one lane's host work overlaps the other's kernels.
LaneEngines make_lane_engines(const KmerSpectrum& spectrum, const std::vector<int>& devices);

}  // namespace gatemap::correct

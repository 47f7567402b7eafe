#pragma once
// The corrector's second pass as a pipeline (common/ordered_lanes.hpp): the input read a
// batch at a time on one thread, the batches corrected by lanes (one per GPU engine, or
// one lane for the CPU twin), the reads written in input order on another thread. A lane
// corrects whole batches, so a GPU's transfers and the host's work on one batch overlap
// another lane's kernel.
#include <memory>
#include <vector>

#include "correct/correct.hpp"
#include "correct/kmer_correct.hpp"
#include "correct/read_input.hpp"
#include "io/fastq_writer.hpp"

namespace gatemap::correct {

struct CorrectPass {
  const KmerSpectrum& spectrum;
  const std::vector<std::unique_ptr<KmerCorrectGpu>>& engines;  // none: the CPU twin
  CorrectOptions options;
  bool pass_through = false;  // no threshold: the reads are written unchanged
  int threads = 1;
};

// Corrects and writes every read of `input` (its last reading): mates to out1 and out2
// in turn when paired. Adds the tallies and times to `sum`.
void run_correct_pass(const CorrectPass& pass, ReadInput& input, io::FastqWriter& out1, io::FastqWriter* out2,
                      CorrectSummary& sum);

}  // namespace gatemap::correct

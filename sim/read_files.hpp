#pragma once
// Simulated reads as FASTQ files, as `sim reads` and `demo` write them: one file of single
// reads or two of mates ("/1", "/2" on the names), and optionally each read's true
// sequence beside it (for `eval correct`; a base the sequencer inserted counts as true,
// since corrections of substitutions are what is scored).
#include <memory>
#include <string>
#include <vector>

#include "io/text/fastq_writer.hpp"
#include "sim/sim.hpp"

namespace gatemap::sim {

class ReadFiles {
 public:
  // paths: one (single) or two (pairs) FASTQ names (.gz: gzip); truth_paths: as many, or none.
  ReadFiles(const std::vector<std::string>& paths, const std::vector<std::string>& truth_paths, int threads = 1);
  // Reads as simulate_reads gives them (pairs: mate 1, mate 2, mate 1, ...); any number of calls.
  void write(const std::vector<SimRead>& reads);
  void close();

 private:
  std::vector<std::unique_ptr<io::FastqWriter>> out_, truth_;
  std::string name_, true_seq_;  // reused
};

}  // namespace gatemap::sim

#pragma once
// The caller's end-to-end tests: a genome with a donor's variants written as ref.fa, its
// simulated pairs as r_1.fq / r_2.fq, and ref.gmi, in a test folder.
#include <string>
#include <vector>

#include "index/index.hpp"
#include "io/reads/fasta.hpp"
#include "sim/sim.hpp"
#include "tests/test_util.hpp"

namespace gatemap::test {

inline void write_reference_and_pairs(const TempDir& dir, const std::vector<io::FastaRecord>& genome,
                                      const sim::Donor& donor, const sim::ReadOptions& ro) {
  io::write_fasta(dir.file("ref.fa"), genome);
  std::vector<sim::SimRead> reads;
  sim::simulate_reads(genome, &donor, ro, reads);
  std::string fq[2];
  for (size_t i = 0; i < reads.size(); ++i) {
    fq[i % 2] += "@" + reads[i].name + "\n" + reads[i].seq + "\n+\n" + reads[i].qual + "\n";
  }
  write_file(dir.file("r_1.fq"), fq[0]);
  write_file(dir.file("r_2.fq"), fq[1]);
  index::IndexOptions io;
  index::save_index(*index::build_index(dir.file("ref.fa"), io), dir.file("ref.gmi"));
}

}  // namespace gatemap::test

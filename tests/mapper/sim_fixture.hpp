#pragma once
// A small simulated data set for end-to-end mapper tests: a human-like genome, a donor,
// paired 150 bp and single 100 bp reads, and the index.
#include <string>
#include <vector>

#include "../test_util.hpp"
#include "index/index.hpp"
#include "io/text/fastq_writer.hpp"
#include "mapper/run.hpp"
#include "sim/sim.hpp"

namespace gatemap::test {

// SAM text without its @PG lines (the command line differs between runs).
inline std::string without_pg(const std::string& text) {
  std::string body;
  size_t at = 0;
  while (at < text.size()) {
    const size_t nl = text.find('\n', at);
    const std::string line = text.substr(at, nl - at);
    if (line.rfind("@PG", 0) != 0) body += line + "\n";
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  return body;
}

// The tab-separated fields of a SAM line.
inline std::vector<std::string> sam_fields(const std::string& line) {
  std::vector<std::string> fields;
  size_t at = 0;
  for (size_t tab; (tab = line.find('\t', at)) != std::string::npos; at = tab + 1) {
    fields.push_back(line.substr(at, tab - at));
  }
  fields.push_back(line.substr(at));
  return fields;
}

struct SimData {
  TempDir dir;
  std::string ref, gmi, pe1, pe2, se;

  explicit SimData(int64_t pairs = 3000, int64_t singles = 3000) {
    sim::GenomeOptions g;
    g.length = 2000000;
    g.contigs = 3;
    g.seed = 5;
    const auto genome = sim::simulate_genome(g);
    ref = dir.file("ref.fa");
    io::write_fasta(ref, genome);
    sim::VariantOptions v;
    const auto donor = sim::simulate_donor(genome, v);
    write_reads(genome, donor, pairs, 150, true, "pe");
    write_reads(genome, donor, singles, 100, false, "se");
    pe1 = dir.file("pe_1.fq");
    pe2 = dir.file("pe_2.fq");
    se = dir.file("se.fq");
    auto idx = index::build_index(ref, {});
    gmi = dir.file("ref.gmi");
    index::save_index(*idx, gmi);
  }

  void write_reads(const std::vector<io::FastaRecord>& genome, const sim::Donor& donor, int64_t n, int len,
                   bool paired, const std::string& prefix) {
    sim::ReadOptions ro;
    ro.n_fragments = n;
    ro.read_len = len;
    ro.paired = paired;
    ro.seed = paired ? 7 : 8;
    std::vector<sim::SimRead> reads;
    sim::simulate_reads(genome, &donor, ro, reads);
    const int mates = paired ? 2 : 1;
    for (int m = 0; m < mates; ++m) {
      io::FastqWriter w(dir.file(prefix + (paired ? "_" + std::to_string(m + 1) : "") + ".fq"));
      for (size_t i = m; i < reads.size(); i += mates) w.write(reads[i].name, reads[i].seq, reads[i].qual);
      w.close();
    }
  }

  // A mapping job of this index: reads to `output`, the CPU filter on two threads.
  mapper::RunOptions options(const std::string& r1, const std::string& r2, const std::string& output) const {
    mapper::RunOptions o;
    o.index_path = gmi;
    o.reads1 = r1;
    o.reads2 = r2;
    o.output = output;
    o.filter = "cpu";
    o.hw.threads = 2;
    o.command_line = "test";
    return o;
  }

  // Maps and returns the SAM text without @PG (the command line differs between runs).
  std::string map(const std::string& r1, const std::string& r2, const std::string& filter, int threads = 2,
                  size_t batch = 100000, mapper::MapStats* stats = nullptr, const std::string& extra_out = "") const {
    mapper::RunOptions o = options(r1, r2, extra_out.empty() ? dir.file("out_" + filter + ".sam") : extra_out);
    o.filter = filter;
    o.batch_reads = batch;
    o.hw.threads = threads;
    const auto st = mapper::run_mapping(o);
    if (stats) *stats = st;
    return without_pg(read_file(o.output));
  }
};

}  // namespace gatemap::test

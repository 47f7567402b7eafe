// gatemap bench fastq: single-thread FASTQ parsing speed (records/s and MB/s of
// uncompressed text), through the same reader `gatemap map` uses.
#include <chrono>
#include <cstdio>

#include "bench/bench.hpp"
#include "io/fastq.hpp"

namespace gatemap::bench {

void run_fastq_bench(const std::string& path) {
  const auto t0 = std::chrono::steady_clock::now();
  io::FastqReader reader(path);
  io::Read read;
  int64_t records = 0, bytes = 0;
  while (reader.next(read)) {
    ++records;
    // '@' name (the first word; comments are not counted), sequence, '+', quality, 4 newlines.
    bytes += static_cast<int64_t>(read.name.size() + 2 * read.seq.size() + 6);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("file\t%s\nrecords\t%lld\nseconds\t%.3f\nrecords_per_s\t%.0f\nMB_per_s\t%.1f\n", path.c_str(),
              static_cast<long long>(records), s, records / s, bytes / s / 1e6);
}

}  // namespace gatemap::bench

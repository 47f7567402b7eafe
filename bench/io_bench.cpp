// gatemap bench fastq: FASTQ parsing speed (records/s and MB/s of uncompressed text)
// through the readers `gatemap map` and `correct` use: record by record on one thread,
// and in batches (one file, or two files of pairs) on all threads.
#include <omp.h>

#include <chrono>
#include <cstdio>

#include "bench/bench.hpp"
#include "io/reads/fastq.hpp"
#include "io/reads/line_reader.hpp"

namespace gatemap::bench {

namespace {
// '@' name (the first word; comments are not counted), sequence, '+', quality, 4 newlines.
int64_t text_bytes(const io::Read& read) { return static_cast<int64_t>(read.name.size() + 2 * read.seq.size() + 6); }

void print_row(const char* mode, int threads, int64_t records, int64_t bytes, double s) {
  std::printf("%s\t%d\t%lld\t%.3f\t%.0f\t%.1f\n", mode, threads, static_cast<long long>(records), s, records / s,
              bytes / s / 1e6);
}
// The files through FastqSource in batches of 65,536 reads, as map and correct read them.
void time_batches(const char* mode, const std::string& path1, const std::string& path2) {
  const auto t0 = std::chrono::steady_clock::now();
  io::FastqSource source(path1, path2, false, omp_get_max_threads());
  io::ReadBatch batch;
  int64_t records = 0, bytes = 0;
  while (source.next_batch(batch, 65536, 65536 * 300)) {
    records += static_cast<int64_t>(batch.size());
    for (const io::Read& read : batch.reads) bytes += text_bytes(read);
  }
  print_row(mode, omp_get_max_threads(), records, bytes,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

}  // namespace

void run_fastq_bench(const std::string& path1, const std::string& path2) {
  std::printf("mode\tthreads\trecords\tseconds\trecords_per_s\tMB_per_s\n");
  {  // the lines alone: what a parser that converts on other threads cannot go below
    const auto t0 = std::chrono::steady_clock::now();
    io::LineReader lines(path1);
    std::string_view line;
    int64_t n = 0, bytes = 0;
    for (; lines.next(line); ++n) bytes += static_cast<int64_t>(line.size() + 1);
    print_row("lines_only", 1, n / 4, bytes, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  for (const std::string& path : {path1, path2}) {
    if (path.empty()) continue;
    const auto t0 = std::chrono::steady_clock::now();
    io::FastqReader reader(path);
    io::Read read;
    int64_t records = 0, bytes = 0;
    for (; reader.next(read); ++records) bytes += text_bytes(read);
    print_row("one_record_at_a_time", 1, records, bytes,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  if (!path2.empty()) time_batches("batches", path1, "");  // the first file alone
  time_batches(path2.empty() ? "batches" : "batches_of_pairs", path1, path2);
}

}  // namespace gatemap::bench

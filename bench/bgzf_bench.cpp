// gatemap bench bgzf: BAM compression speed and size. A BAM's uncompressed bytes, cut
// into BGZF-sized blocks, compressed by libdeflate (htslib's deflate) at levels 1 and 6
// on -t threads, by gatemap's DEFLATE on the same threads (the CPU twin) and on the GPU.
#include <htslib/bgzf.h>
#include <libdeflate.h>
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "common/error.hpp"
#include "io/deflate/bgzf_deflate.hpp"

namespace gatemap::bench {

namespace {

std::string uncompressed_bytes(const std::string& path) {
  BGZF* fp = bgzf_open(path.c_str(), "r");
  if (!fp) throw IoError("cannot open '" + path + "'");
  std::string all;
  std::vector<char> buf(1 << 20);
  ssize_t n;
  while ((n = bgzf_read(fp, buf.data(), buf.size())) > 0) all.append(buf.data(), static_cast<size_t>(n));
  bgzf_close(fp);
  if (n < 0) throw IoError("cannot read '" + path + "'");
  return all;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void run_bgzf_bench(const std::string& bam, int threads, int reps) {
  const std::string data = uncompressed_bytes(bam);
  const size_t block = 0xff00, blocks = (data.size() + block - 1) / block;
  std::vector<std::string> out(blocks, std::string(65536, '\0'));
  std::vector<io::BgzfJob> jobs(blocks);
  for (size_t i = 0; i < blocks; ++i) {
    jobs[i].in = reinterpret_cast<const uint8_t*>(data.data()) + i * block;
    jobs[i].size = static_cast<uint32_t>(std::min(block, data.size() - i * block));
    jobs[i].out = reinterpret_cast<uint8_t*>(out[i].data());
  }
  std::printf("compressor\tthreads\tMB\tcompressed_MB\tratio\tseconds\tMB_per_s\n");
  const auto report = [&](const char* name, double s) {
    size_t total = 0;
    for (const io::BgzfJob& j : jobs) total += j.out_size;
    std::printf("%s\t%d\t%.1f\t%.1f\t%.4f\t%.3f\t%.0f\n", name, threads, data.size() / 1e6, total / 1e6,
                static_cast<double>(total) / static_cast<double>(data.size()), s, data.size() / s / 1e6);
    std::fflush(stdout);
  };
  for (const int level : {1, 6}) {
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
      {
        libdeflate_compressor* c = libdeflate_alloc_compressor(level);
#pragma omp for schedule(dynamic, 16)
        for (size_t i = 0; i < blocks; ++i) {  // the deflate stream only: the frame is the same for all
          jobs[i].out_size = static_cast<uint32_t>(
              26 + libdeflate_deflate_compress(c, jobs[i].in, jobs[i].size, jobs[i].out + 18, 65536 - 26));
        }
        libdeflate_free_compressor(c);
      }
      best = std::min(best, seconds_since(t0));
    }
    report(level == 1 ? "libdeflate-1" : "libdeflate-6", best);
  }
  io::BgzfDeflateCpu twin(threads);
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    twin.compress(jobs.data(), jobs.size());
    best = std::min(best, seconds_since(t0));
  }
  report("gatemap-cpu", best);
  std::unique_ptr<io::BgzfDeflateGpu> gpu;
  try {
    gpu = std::make_unique<io::BgzfDeflateGpu>(0, threads);
  } catch (const CudaError& e) {
    std::fprintf(stderr, "[bench bgzf] no GPU: %s\n", e.what());
    return;
  }
  gpu->compress(jobs.data(), jobs.size());  // buffers made once, as a run's first batch makes them
  best = 1e30;
  const double kernels_before = gpu->kernel_seconds(), matches_before = gpu->match_seconds();
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    gpu->compress(jobs.data(), jobs.size());
    best = std::min(best, seconds_since(t0));
  }
  report("gatemap-gpu", best);
  std::printf("# GPU kernels alone: %.3f s per pass, of which finding matches %.3f s\n",
              (gpu->kernel_seconds() - kernels_before) / reps, (gpu->match_seconds() - matches_before) / reps);
  // As a sorted BAM's writer hands them: windows of a few thousand blocks.
  constexpr size_t kWindow = 2048;
  best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t from = 0; from < jobs.size(); from += kWindow) {
      gpu->compress(jobs.data() + from, std::min(kWindow, jobs.size() - from));
    }
    best = std::min(best, seconds_since(t0));
  }
  report("gatemap-gpu-windows", best);
}

}  // namespace gatemap::bench

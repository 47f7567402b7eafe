#include "correct/correct.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <memory>

#include "common/thread_budget.hpp"
#include "common/dna.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "common/split_threads.hpp"
#include "correct/correct_pass.hpp"
#include "correct/count_pass.hpp"
#include "correct/kmer_count.hpp"
#include "correct/kmer_count_gpu.hpp"
#include "correct/read_input.hpp"
#include "gpu/device.hpp"
#include "gpu/fallback.hpp"
#include "io/fastq.hpp"
#include "io/fastq_writer.hpp"
#include "io/output_file.hpp"
#include "io/sam_reader.hpp"

namespace gatemap::correct {

namespace {

// Batches parsed ahead of the GPU's counting (about 20 MB each at 16 threads).
constexpr size_t kReadAheadForTheGpu = 16;

// A second engine (its own copy of the spectrum) per GPU up to this size.
constexpr size_t kSecondEngineBytes = size_t{1} << 30;

size_t batch_reads(const CorrectRunOptions& opt) {
  if (opt.batch_reads) return opt.batch_reads;
  const size_t threads = static_cast<size_t>(opt.threads > 0 ? opt.threads : omp_get_max_threads());
  return std::clamp<size_t>(4096 * threads, 8192, 131072);
}

// Counters of the CPU table's seen-twice filter: about one per k-mer of the input (a
// few percent of the k-mers seen once get through at that size); 2^27 when the input's
// size is unknown (a pipe). At most a quarter of the count budget.
uint64_t seen_twice_counters(const ReadInput& input, size_t budget) {
  const double bases = input.estimated_bases();
  if (bases < 0) return uint64_t(1) << 27;
  return static_cast<uint64_t>(std::min(bases, budget / 4 * 4.0));  // 4 counters a byte
}

size_t default_count_budget(gpu::Backend backend) {
  if (backend == gpu::Backend::gpu) return 0;  // the GPU table takes half the free device memory
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) / 2 : size_t(8) << 30;
}

// Pass 1: count (on the GPU when there is one; any GPU failure counts again on the
// CPU), pick the threshold and build the solid spectrum.
KmerSpectrum count_pass(const CorrectRunOptions& opt, gpu::Backend backend, int device, ReadInput& input,
                        CorrectSummary& sum) {
  const auto t0 = std::chrono::steady_clock::now();
  const SpectrumOptions sopt{opt.threshold, opt.spectrum, opt.bloom_fpr};
  const size_t budget = opt.count_mem ? opt.count_mem : default_count_budget(backend);
  CountStats stats;
  KmerSpectrum spectrum;
  std::unique_ptr<KmerCountGpu> gpu_table;
  if (backend == gpu::Backend::gpu) {
    gpu_table = gpu::make_engine_or_null<KmerCountGpu>("correct", opt.k, budget, device);
    log::debug("correct", "GPU count table ready");
  }
  const bool on_gpu =
      gpu_table && gpu::run_or_fall_back(
                       "correct", "GPU failed, k-mers counted",
                       [&] { spectrum = count_and_build_spectrum(*gpu_table, input, sopt, stats); }, [&] {});
  if (on_gpu) {
    sum.count_kernel_ms = gpu_table->kernel_ms();
  } else {
    gpu_table.reset();
    // k-mers seen once are left out of the table unless they can be solid (--solid 1).
    const size_t cpu_budget = opt.count_mem ? opt.count_mem : default_count_budget(gpu::Backend::cpu);
    KmerCounter table(opt.k, cpu_budget, opt.threshold == 1 ? 0 : seen_twice_counters(input, cpu_budget));
    spectrum = count_and_build_spectrum(table, input, sopt, stats);
  }
  sum.count_backend = on_gpu ? "gpu" : "cpu";
  sum.reads = input.reads();
  sum.kmers = stats.kmers;
  sum.distinct_kmers = stats.distinct;
  sum.threshold = stats.threshold;
  sum.count_parts = stats.parts;
  sum.count_table_bytes = stats.table_bytes;
  sum.spectrum_s = stats.spectrum_s;
  sum.count_read_wait_s = input.read_wait_s();
  sum.solid_kmers = spectrum.n_kmers;
  sum.spectrum_bytes = spectrum.bytes();
  sum.count_s = log::seconds_since(t0);
  std::string hist_text;
  for (size_t c = 1; c <= 12 && c < stats.histogram.size(); ++c) {
    hist_text += " " + std::to_string(c) + ":" + std::to_string(stats.histogram[c]);
  }
  log::info("correct", std::to_string(sum.kmers) + " k-mers (k=" + std::to_string(opt.k) + "), " +
                           std::to_string(sum.distinct_kmers) + " distinct, counted on the " + sum.count_backend +
                           "; histogram" + hist_text);
  if (sum.threshold == 0) {
    log::warn("correct", "the k-mer histogram has no coverage peak after its error peak (coverage too low for "
                         "spectrum correction, or -k too large): reads are written unchanged; --solid N forces a threshold");
  }
  log::info("correct", "solid threshold " + std::to_string(sum.threshold) + ": " + std::to_string(sum.solid_kmers) +
                           " solid k-mers in " + (spectrum.kind == KmerSpectrum::Kind::exact ? "an exact" : "a Bloom") +
                           " spectrum of " + std::to_string(sum.spectrum_bytes >> 20) + " MiB");
  return spectrum;
}

}  // namespace

CorrectSummary run_correct(const CorrectRunOptions& opt) {
  use_threads(opt.threads, 2);  // the reader's team and the corrector's
  if (opt.k < 8 || opt.k > kMaxK)
    throw UsageError("-k must be between 8 and " + std::to_string(kMaxK));
  if (opt.threshold > KmerCounter::kMaxCount)
    throw UsageError("--solid must be at most " + std::to_string(KmerCounter::kMaxCount));
  if (opt.in2.empty() != opt.out2.empty()) throw UsageError("paired input needs both a second FASTQ and -p OUT_2");
  if (opt.spectrum != "auto" && opt.spectrum != "bloom" && opt.spectrum != "exact") {
    throw UsageError("--spectrum is auto, bloom or exact");
  }
  for (const std::string& in : {opt.in1, opt.in2}) {  // map reads these; correct writes FASTQ from FASTQ
    if (io::SamReader::is_sam_bam_cram(in)) {
      throw UsageError("'" + in + "' is SAM/BAM/CRAM: correct reads FASTQ (samtools fastq -1 r1.fq -2 r2.fq '" + in +
                       "' gives it)");
    }
  }
  io::check_not_input(opt.out1, "-o", {opt.in1, opt.in2});
  if (!opt.out2.empty()) {
    io::check_not_input(opt.out2, "-p", {opt.in1, opt.in2});
    if (opt.out2 != "-" && io::same_file(opt.out1, opt.out2)) {
      throw UsageError("-o and -p name the same file '" + opt.out2 + "': each mate needs its own");
    }
    if (opt.out1 == "-" && opt.out2 == "-") throw UsageError("-o and -p cannot both be standard output");
  }
  // Batches are parsed while CUDA starts (looking for a device starts it: a few tenths
  // of a second), many of them unless the CPU is asked for; one at a time on the CPU.
  ReadInput input(opt.in1, opt.in2, batch_reads(opt), opt.keep_reads_gb, opt.threads);
  input.set_read_ahead(opt.backend == "cpu" ? 1 : kReadAheadForTheGpu);
  input.start();
  CorrectSummary sum;
  const gpu::Backend backend = gpu::choose_backend(opt.backend);
  if (backend == gpu::Backend::cpu) input.set_read_ahead(1);
  const std::vector<int> devices = gpu::resolve_devices(opt.device, backend);  // a bad --device before the count
  sum.backend = gpu::backend_name(backend);
  log::debug("correct", "backend " + sum.backend + " chosen");

  // Pass 1: count, then the solid spectrum (the counts are freed when it returns).
  const KmerSpectrum spectrum = count_pass(opt, backend, devices.empty() ? 0 : devices[0], input, sum);
  const bool pass_through = sum.threshold == 0;

  // Pass 2: correct and write. Two engines (lanes) per GPU where the spectrum is small:
  // one batch's transfers and host work beside the other's kernel.
  log::debug("correct", "count pass done");
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<KmerCorrectGpu>> engines;  // none made (the spectrum does not fit): the CPU twin
  if (backend == gpu::Backend::gpu && !pass_through) {
    for (const int device : devices) {
      auto engine = gpu::make_engine_or_null<KmerCorrectGpu>("correct", spectrum, device);
      if (!engine) continue;
      engines.push_back(std::move(engine));
      if (spectrum.bytes() <= kSecondEngineBytes) {
        try {
          engines.push_back(std::make_unique<KmerCorrectGpu>(spectrum, device));
        } catch (const CudaError&) {  // one engine on this GPU, then
        }
      }
    }
    if (engines.empty()) sum.backend = "cpu";
    log::debug("correct", "spectrum on " + std::to_string(engines.size()) + " GPU engines");
  }
  CorrectPass pass{spectrum, engines, CorrectOptions{}, pass_through, opt.threads > 0 ? opt.threads : omp_get_max_threads()};
  pass.options.max_corrections = opt.max_corrections;
  io::FastqWriter out1(opt.out1, pass.threads);  // bgzip output on all the threads
  std::unique_ptr<io::FastqWriter> out2;
  if (!opt.out2.empty()) out2 = std::make_unique<io::FastqWriter>(opt.out2, pass.threads);
  run_correct_pass(pass, input, out1, out2.get(), sum);
  sum.read_passes = input.passes();
  out1.close();
  if (out2) out2->close();
  sum.correct_s = log::seconds_since(t0);
  log::debug("correct", "outputs closed");
  return sum;
}

std::string format_summary(const CorrectSummary& s) {
  char buf[2048];
  std::snprintf(
      buf, sizeof(buf),
      "reads\t%lld\nreads_changed\t%lld\nbases_changed\t%lld\nreads_uncorrectable\t%lld\n"
      "reads_too_long\t%lld\nkmers\t%llu\ndistinct_kmers\t%llu\nsolid_threshold\t%u\nsolid_kmers\t%llu\n"
      "spectrum_bytes\t%zu\ncount_table_bytes\t%zu\ncount_backend\t%s\ncount_parts\t%d\nread_passes\t%d\nbackend\t%s\n"
      "count_s\t%.3f\ncorrect_s\t%.3f\ncount_kernel_ms\t%.3f\ncorrect_kernel_ms\t%.3f\n"
      "count_read_wait_s\t%.3f\nspectrum_s\t%.3f\ncorrect_read_wait_s\t%.3f\nwrite_wait_s\t%.3f\n",
      static_cast<long long>(s.reads), static_cast<long long>(s.reads_changed), static_cast<long long>(s.bases_changed),
      static_cast<long long>(s.uncorrectable), static_cast<long long>(s.too_long),
      static_cast<unsigned long long>(s.kmers), static_cast<unsigned long long>(s.distinct_kmers), s.threshold,
      static_cast<unsigned long long>(s.solid_kmers), s.spectrum_bytes, s.count_table_bytes, s.count_backend.c_str(),
      s.count_parts, s.read_passes, s.backend.c_str(), s.count_s, s.correct_s, s.count_kernel_ms, s.correct_kernel_ms,
      s.count_read_wait_s, s.spectrum_s, s.correct_read_wait_s, s.write_wait_s);
  return buf;
}

}  // namespace gatemap::correct

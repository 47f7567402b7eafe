#include "correct/correct.hpp"

#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <future>
#include <memory>

#include "common/dna.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "common/parallel.hpp"
#include "correct/kmer_count.hpp"
#include "gpu/device.hpp"
#include "gpu/fallback.hpp"
#include "io/fastq.hpp"
#include "io/fastq_writer.hpp"
#include "io/output_file.hpp"

namespace gatemap::correct {

namespace {
// Reads [0, n) as 2-bit codes for the corrector, encoded on all cores.
void encode_batch(const io::Read* reads, size_t n, CorrectBatch& cb) {
  cb.offset.resize(n);
  cb.len.resize(n);
  int64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    cb.offset[i] = total;
    cb.len[i] = static_cast<int32_t>(reads[i].seq.size());
    total += cb.len[i];
  }
  cb.codes.resize(static_cast<size_t>(total));
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    uint8_t* out = cb.codes.data() + cb.offset[i];
    for (char c : reads[i].seq) *out++ = base_code(c);  // N and IUPAC: 4
  }
}

// A batch's reads in one part per GPU engine (one part on the CPU), each part's reads
// contiguous: part p holds reads [p * per, (p + 1) * per).
struct BatchParts {
  std::vector<CorrectBatch> parts;
  size_t per = 0;
  BatchParts(const std::vector<io::Read>& reads, size_t n_parts) : parts(std::max<size_t>(1, n_parts)) {
    per = std::max<size_t>(1, (reads.size() + parts.size() - 1) / parts.size());
    for (size_t p = 0; p < parts.size(); ++p) {
      const size_t b = std::min(reads.size(), p * per), e = std::min(reads.size(), b + per);
      encode_batch(reads.data() + b, e - b, parts[p]);
    }
  }
  CorrectBatch& of(size_t read) { return parts[read / per]; }
  size_t index(size_t read) const { return read % per; }
};

// Every part on its own GPU at once; any GPU failure sends the whole batch to the CPU twin.
void correct_on_gpus(const std::vector<std::unique_ptr<KmerCorrectGpu>>& engines, const KmerSpectrum& spectrum,
                     const CorrectOptions& copt, BatchParts& batch, CorrectSummary& sum) {
  std::vector<double> kernel_ms(batch.parts.size(), 0.0);
  gpu::run_or_fall_back(
      "correct", "GPU failed, batch corrected",
      [&] {
        std::vector<std::future<void>> running;
        for (size_t p = 0; p < batch.parts.size(); ++p) {
          running.push_back(
              std::async(std::launch::async, [&, p] { engines[p]->correct(copt, batch.parts[p], &kernel_ms[p]); }));
        }
        for (auto& r : running) r.wait();
        for (auto& r : running) r.get();
      },
      [&] {
        for (CorrectBatch& part : batch.parts) correct_reads_cpu(spectrum, copt, part);
      });
  for (double ms : kernel_ms) sum.correct_kernel_ms += ms;
}
}  // namespace

KmerSpectrum build_spectrum(const KmerCounter& counter, uint32_t threshold, const std::string& kind,
                                     double fpr) {
  uint64_t n = 0;
  counter.for_each_solid(threshold, [&](uint64_t) { ++n; });
  KmerSpectrum s = kind == "exact" ? KmerSpectrum::make_exact(counter.k(), n)
                                            : KmerSpectrum::make_bloom(counter.k(), n, fpr);
  counter.for_each_solid(threshold, [&](uint64_t x) { s.insert(x); });
  return s;
}

// Inputs that cannot be read twice (a pipe, stdin, process substitution) and outgrow
// the in-memory allowance are copied to bgzipped FASTQ files in the temporary directory
// during pass 1, read by pass 2 and removed at the end.
class Spill {
 public:
  Spill(bool paired, int threads) {
    std::string dir = (std::filesystem::temp_directory_path() / "gatemap-correct-XXXXXX").string();
    if (!::mkdtemp(dir.data())) throw IoError("cannot create a temporary folder '" + dir + "': " + std::strerror(errno));
    dir_ = dir;
    for (int m = 0; m < (paired ? 2 : 1); ++m) {
      paths_.push_back(dir_ + "/reads_" + std::to_string(m + 1) + ".fq.gz");
      writers_.push_back(std::make_unique<io::FastqWriter>(paths_.back(), std::max(1, threads)));
    }
    log::info("correct", "the input cannot be read twice and outgrows --keep-reads-gb: spilling it to '" + dir_ + "'");
  }
  ~Spill() {
    writers_.clear();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  void write(const io::ReadBatch& batch) {
    for (size_t i = 0; i < batch.size(); ++i) writers_[batch.paired ? i % 2 : 0]->write(batch.reads[i]);
  }
  void close() {
    for (auto& w : writers_) w->close();
  }
  std::string path(int mate) const { return mate < static_cast<int>(paths_.size()) ? paths_[mate] : ""; }

 private:
  std::string dir_;
  std::vector<std::string> paths_;
  std::vector<std::unique_ptr<io::FastqWriter>> writers_;
};

// A regular file can be read again; a pipe or stdin cannot.
bool rereadable(const std::string& path) {
  struct stat st {};
  return path.empty() || (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode));
}

// Pass 1: counts the k-mers of every read, picks the threshold and builds the solid
// spectrum. Reads stay in `kept` for the second pass while they fit the allowance
// (parsing FASTQ is most of a pass); otherwise all_kept is false and the files are read
// again, or their spill (`spill`, made here) when they cannot be. With no threshold
// (sum.threshold == 0) the spectrum is empty.
KmerSpectrum count_pass(const CorrectRunOptions& opt, CorrectSummary& sum, std::vector<io::ReadBatch>& kept,
                                 bool& all_kept, std::unique_ptr<Spill>& spill) {
  auto t0 = std::chrono::steady_clock::now();
  KmerCounter counter(opt.k);
  double kept_bytes = 0;
  all_kept = true;
  const bool can_reread = rereadable(opt.in1) && rereadable(opt.in2);
  {
    io::FastqSource src(opt.in1, opt.in2);
    io::ReadBatch batch;
    while (src.next_batch(batch, opt.batch_reads, opt.batch_reads * 300)) {
      counter.add(batch.reads);
      sum.reads += static_cast<int64_t>(batch.size());
      log::info("correct", "counted k-mers of " + std::to_string(sum.reads) + " reads");
      if (all_kept) {
        for (const io::Read& r : batch.reads) kept_bytes += 96.0 + r.name.size() + 2.0 * r.seq.size();
        if (kept_bytes <= opt.keep_reads_gb * 1073741824.0) {
          kept.push_back(std::move(batch));
          batch = io::ReadBatch();
          continue;
        }
        all_kept = false;
        if (!can_reread) {
          spill = std::make_unique<Spill>(batch.paired, opt.threads);
          for (const io::ReadBatch& b : kept) spill->write(b);
        }
        kept.clear();
      }
      if (spill) spill->write(batch);
    }
  }
  if (spill) spill->close();
  sum.kmers = counter.total();
  sum.distinct_kmers = counter.distinct();
  const auto hist = counter.histogram();
  sum.threshold = opt.threshold ? opt.threshold : first_valley(hist);
  if (sum.threshold == 0) {
    log::warn("correct", "the k-mer histogram has no coverage peak after its error peak (coverage too low for "
                         "spectrum correction, or -k too large): reads are written unchanged; --solid N forces a threshold");
  }
  sum.count_s = log::seconds_since(t0);
  std::string hist_text;
  for (size_t c = 1; c <= 12 && c < hist.size(); ++c) hist_text += " " + std::to_string(c) + ":" + std::to_string(hist[c]);
  log::info("correct", std::to_string(sum.kmers) + " k-mers (k=" + std::to_string(opt.k) + "), " +
                           std::to_string(sum.distinct_kmers) + " distinct; histogram" + hist_text);

  t0 = std::chrono::steady_clock::now();
  KmerSpectrum spectrum =
      build_spectrum(counter, sum.threshold ? sum.threshold : UINT32_MAX, opt.spectrum, opt.bloom_fpr);
  sum.solid_kmers = spectrum.n_kmers;
  sum.spectrum_bytes = spectrum.bytes();
  sum.spectrum_s = log::seconds_since(t0);
  log::info("correct", "solid threshold " + std::to_string(sum.threshold) + ": " + std::to_string(sum.solid_kmers) +
                           " solid k-mers in a " + opt.spectrum + " spectrum of " +
                           std::to_string(sum.spectrum_bytes >> 20) + " MiB");
  return spectrum;
}

CorrectSummary run_correct(const CorrectRunOptions& opt) {
  if (opt.threads > 0) omp_set_num_threads(opt.threads);
  if (opt.k < 8 || opt.k > kMaxK)
    throw UsageError("-k must be between 8 and " + std::to_string(kMaxK));
  if (opt.in2.empty() != opt.out2.empty()) throw UsageError("paired input needs both a second FASTQ and -p OUT_2");
  if (opt.spectrum != "bloom" && opt.spectrum != "exact") throw UsageError("--spectrum is bloom or exact");
  io::check_not_input(opt.out1, "-o", {opt.in1, opt.in2});
  if (!opt.out2.empty()) {
    io::check_not_input(opt.out2, "-p", {opt.in1, opt.in2});
    if (opt.out2 != "-" && io::same_file(opt.out1, opt.out2)) {
      throw UsageError("-o and -p name the same file '" + opt.out2 + "': each mate needs its own");
    }
    if (opt.out1 == "-" && opt.out2 == "-") throw UsageError("-o and -p cannot both be standard output");
  }
  CorrectSummary sum;
  const gpu::Backend backend = gpu::choose_backend(opt.backend);
  const std::vector<int> devices = gpu::resolve_devices(opt.device, backend);  // a bad --device before any work
  sum.backend = gpu::backend_name(backend);

  // Pass 1: count, then the solid spectrum (the counts are freed when it returns).
  std::vector<io::ReadBatch> kept;
  bool all_kept = true;
  std::unique_ptr<Spill> spill;
  const KmerSpectrum spectrum = count_pass(opt, sum, kept, all_kept, spill);
  const bool pass_through = sum.threshold == 0;

  // Pass 2: correct and write.
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<KmerCorrectGpu>> engines;  // none made (the spectrum does not fit): the CPU twin
  if (backend == gpu::Backend::gpu && !pass_through) {
    for (const int device : devices) {
      auto engine = gpu::make_engine_or_null<KmerCorrectGpu>("correct", spectrum, device);
      if (engine) engines.push_back(std::move(engine));
    }
    if (engines.empty()) sum.backend = "cpu";
  }
  CorrectOptions copt;
  copt.max_corrections = opt.max_corrections;
  std::unique_ptr<io::FastqSource> src;
  if (spill) {
    src = std::make_unique<io::FastqSource>(spill->path(0), spill->path(1));
  } else if (!all_kept) {
    src = std::make_unique<io::FastqSource>(opt.in1, opt.in2);
  }
  io::FastqWriter out1(opt.out1);
  std::unique_ptr<io::FastqWriter> out2;
  if (!opt.out2.empty()) out2 = std::make_unique<io::FastqWriter>(opt.out2);
  io::ReadBatch batch;
  size_t next_kept = 0;
  auto next_batch = [&] {
    if (!src) {
      if (next_kept == kept.size()) return false;
      batch = std::move(kept[next_kept++]);
      return true;
    }
    return src->next_batch(batch, opt.batch_reads, opt.batch_reads * 300);
  };
  int64_t done = 0;
  while (next_batch()) {
    BatchParts parts(batch.reads, engines.size());
    if (pass_through) {
      for (CorrectBatch& cb : parts.parts) {
        cb.status.assign(cb.size(), static_cast<uint8_t>(CorrectStatus::clean));
        cb.changed.assign(cb.size(), 0);
      }
    } else if (!engines.empty()) {
      correct_on_gpus(engines, spectrum, copt, parts, sum);
    } else {
      correct_reads_cpu(spectrum, copt, parts.parts[0]);
    }
    // Corrected sequences back into the reads (in parallel), then written in order.
    ParallelErrors errors;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < batch.size(); ++i) {
      errors.run([&] {
        const CorrectBatch& cb = parts.of(i);
        if (cb.status[parts.index(i)] == static_cast<uint8_t>(CorrectStatus::corrected))
          batch.reads[i].seq = cb.sequence(parts.index(i));
      });
    }
    errors.rethrow();
    for (size_t i = 0; i < batch.size(); ++i) {
      const io::Read& r = batch.reads[i];
      const auto st = static_cast<CorrectStatus>(parts.of(i).status[parts.index(i)]);
      if (st == CorrectStatus::corrected) {
        ++sum.reads_changed;
        sum.bases_changed += parts.of(i).changed[parts.index(i)];
      }
      sum.uncorrectable += st == CorrectStatus::uncorrectable;
      sum.too_long += st == CorrectStatus::too_long;
      if (r.qual.size() != r.seq.size()) {  // FASTA input: nothing to write qualities from
        throw FormatError("gatemap correct writes FASTQ and needs FASTQ input: read '" + r.name +
                          "' has no qualities");
      }
      io::FastqWriter& w = (batch.paired && i % 2 == 1) ? *out2 : out1;
      w.write(r);  // the header as it was: name, /1 or /2, comment
    }
    done += static_cast<int64_t>(batch.size());
    log::info("correct", "corrected " + std::to_string(done) + " reads");
  }
  out1.close();
  if (out2) out2->close();
  sum.correct_s = log::seconds_since(t0);
  return sum;
}

std::string format_summary(const CorrectSummary& s) {
  char buf[1024];
  std::snprintf(buf, sizeof(buf),
                "reads\t%lld\nreads_changed\t%lld\nbases_changed\t%lld\nreads_uncorrectable\t%lld\n"
                "reads_too_long\t%lld\nkmers\t%llu\ndistinct_kmers\t%llu\nsolid_threshold\t%u\nsolid_kmers\t%llu\n"
                "spectrum_bytes\t%zu\nbackend\t%s\ncount_s\t%.3f\nspectrum_s\t%.3f\ncorrect_s\t%.3f\n"
                "correct_kernel_ms\t%.3f\n",
                static_cast<long long>(s.reads), static_cast<long long>(s.reads_changed),
                static_cast<long long>(s.bases_changed), static_cast<long long>(s.uncorrectable),
                static_cast<long long>(s.too_long), static_cast<unsigned long long>(s.kmers),
                static_cast<unsigned long long>(s.distinct_kmers), s.threshold,
                static_cast<unsigned long long>(s.solid_kmers), s.spectrum_bytes, s.backend.c_str(), s.count_s,
                s.spectrum_s, s.correct_s, s.correct_kernel_ms);
  return buf;
}

}  // namespace gatemap::correct

#include "correct/correct.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <future>
#include <memory>

#include "common/error.hpp"
#include "common/log.hpp"
#include "common/ordered_lanes.hpp"
#include "common/side_task.hpp"
#include "common/stat_fields.hpp"
#include "common/thread_budget.hpp"
#include "correct/batch_corrector.hpp"
#include "correct/count_pass.hpp"
#include "correct/kept_text.hpp"
#include "correct/kmer_count.hpp"
#include "correct/kmer_count_gpu.hpp"
#include "correct/read_input.hpp"
#include "gpu/device.hpp"
#include "gpu/fallback.hpp"
#include "gpu/memory_cap.hpp"
#include "io/output_file.hpp"
#include "io/reads/fastq.hpp"
#include "io/reads/sam_reader.hpp"
#include "io/text/fastq_writer.hpp"

namespace gatemap::correct {

namespace {

// CorrectSummary's fields in the order they are shown (--summary, --stats). Summed: what
// each lane of the correction pass counts of its own; the rest is the run's.
const std::vector<StatField<CorrectSummary>>& summary_fields() {
  static const std::vector<StatField<CorrectSummary>> table = {
      stat_field("reads", &CorrectSummary::reads, false),
      stat_field("reads_changed", &CorrectSummary::reads_changed),
      stat_field("bases_changed", &CorrectSummary::bases_changed),
      stat_field("reads_uncorrectable", &CorrectSummary::uncorrectable),
      stat_field("reads_too_long", &CorrectSummary::too_long),
      stat_field("kmers", &CorrectSummary::kmers, false),
      stat_field("distinct_kmers", &CorrectSummary::distinct_kmers, false),
      stat_field("solid_threshold", &CorrectSummary::threshold, false),
      stat_field("solid_kmers", &CorrectSummary::solid_kmers, false),
      stat_field("spectrum_bytes", &CorrectSummary::spectrum_bytes, false),
      stat_field("count_table_bytes", &CorrectSummary::count_table_bytes, false),
      stat_field("count_backend", &CorrectSummary::count_backend),
      stat_field("count_parts", &CorrectSummary::count_parts, false),
      stat_field("read_passes", &CorrectSummary::read_passes, false),
      stat_field("backend", &CorrectSummary::backend),
      stat_field("count_s", &CorrectSummary::count_s, false),
      stat_field("correct_s", &CorrectSummary::correct_s, false),
      stat_field("count_kernel_ms", &CorrectSummary::count_kernel_ms, false),
      stat_field("correct_kernel_ms", &CorrectSummary::correct_kernel_ms),
      stat_field("count_read_wait_s", &CorrectSummary::count_read_wait_s, false),
      stat_field("spectrum_s", &CorrectSummary::spectrum_s, false),
      stat_field("correct_read_wait_s", &CorrectSummary::correct_read_wait_s),
      stat_field("write_s", &CorrectSummary::write_s, false),
  };
  return table;
}


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

size_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : size_t(16) << 30;
}

size_t default_count_budget(gpu::Backend backend) {
  if (backend == gpu::Backend::gpu) return 0;  // the GPU table takes half the free device memory
  return physical_memory() / 2;
}

// Pass 1: count (on the GPU when there is one; any GPU failure counts again on the
// CPU), pick the threshold and build the solid spectrum.
KmerSpectrum count_pass(const CorrectRunOptions& opt, gpu::Backend backend, int device, ReadInput& input,
                        CorrectSummary& sum) {
  const log::Stopwatch t0;
  const SpectrumOptions sopt{opt.threshold, opt.spectrum, opt.bloom_fpr, backend == gpu::Backend::gpu};
  const size_t budget = opt.count_mem ? opt.count_mem : default_count_budget(backend);
  CountStats stats;
  KmerSpectrum spectrum;
  std::unique_ptr<KmerCountGpu> gpu_table;
  if (backend == gpu::Backend::gpu) {
    gpu_table = gpu::make_engine_or_null<KmerCountGpu>("correct", opt.k, budget, device);
    log::debug("correct", "GPU count table ready at " + std::to_string(log::wall_seconds()) + " s");
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
  sum.count_s = t0.seconds();
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
                           " solid k-mers in " + (spectrum.kind == KmerSpectrum::Kind::bloom      ? "a Bloom"
                                             : spectrum.kind == KmerSpectrum::Kind::exact ? "an exact"
                                                                                          : "a compact exact") +
                           " spectrum of " + std::to_string(sum.spectrum_bytes >> 20) + " MiB");
  return spectrum;
}

// Whether a SAM/BAM/CRAM file's first primary record is one of a pair.
bool sam_holds_pairs(const std::string& path, const std::string& reference) {
  io::SamReader in(path, 1, reference);
  bam1_t* b = bam_init1();
  if (!b) throw std::bad_alloc();
  bool paired = false;
  while (in.next(b)) {
    if (b->core.flag & (BAM_FSECONDARY | BAM_FSUPPLEMENTARY)) continue;
    paired = b->core.flag & BAM_FPAIRED;
    break;
  }
  bam_destroy1(b);
  return paired;
}

// The options and files checked before any reading: a clear error, nothing written.
void check_options(const CorrectRunOptions& opt) {
  if (opt.k < 8 || opt.k > kMaxK)
    throw UsageError("-k must be between 8 and " + std::to_string(kMaxK));
  if (opt.threshold > KmerCounter::kMaxCount)
    throw UsageError("--solid must be at most " + std::to_string(KmerCounter::kMaxCount));
  // SAM/BAM/CRAM (an unmapped BAM, or one mapped before, mates next to each other) is read as
  // map reads it; whether it holds pairs (two outputs) its first primary record says.
  const bool aligned_input = io::SamReader::is_sam_bam_cram(opt.in1);
  if (aligned_input) {
    if (!opt.in2.empty()) throw UsageError("reads from SAM/BAM/CRAM come in one file: '" + opt.in2 + "' is one too many");
    if (sam_holds_pairs(opt.in1, opt.reference) == opt.out2.empty()) {
      throw UsageError("'" + opt.in1 + "' " + (opt.out2.empty() ? "holds read pairs: name mate 2's output with -p OUT_2"
                                                                 : "holds single reads: -p OUT_2 has no mates to take"));
    }
  } else if (opt.in2.empty() != opt.out2.empty()) {
    throw UsageError("paired input needs both a second FASTQ and -p OUT_2");
  }
  if (opt.spectrum != "auto" && opt.spectrum != "bloom" && opt.spectrum != "exact") {
    throw UsageError("--spectrum is auto, bloom or exact");
  }
  io::check_not_input(opt.out1, "-o", {opt.in1, opt.in2});
  if (!opt.out2.empty()) {
    io::check_not_input(opt.out2, "-p", {opt.in1, opt.in2});
    if (opt.out2 != "-" && io::same_file(opt.out1, opt.out2)) {
      throw UsageError("-o and -p name the same file '" + opt.out2 + "': each mate needs its own");
    }
    if (opt.out1 == "-" && opt.out2 == "-") throw UsageError("-o and -p cannot both be standard output");
  }
}

// The correction pass as a pipeline (common/ordered_lanes.hpp): one thread reads batches,
// the lanes correct them (on the GPUs, or the CPU twin), one thread writes them in input
// order; slots_for(lanes) batches alive at once. The lanes' waits for batches go to
// sum.correct_read_wait_s, the writing thread's time to sum.write_s.
size_t slots_for(int lanes) { return 2 + static_cast<size_t>(lanes); }

template <class Item>
void correction_pipeline(OrderedLanes<Item>& items, int lanes, CorrectSummary& sum,
                         const std::function<void(int, Item&, CorrectSummary&)>& correct,
                         const std::function<void(Item&)>& write) {
  std::vector<CorrectSummary> of_lane(static_cast<size_t>(lanes));  // each lane tallies its own
  items.run(
      lanes,
      [&](int lane) {
        CorrectSummary& mine = of_lane[static_cast<size_t>(lane)];
        for (;;) {
          Item* item;
          {
            const log::StageTimer timing(mine.correct_read_wait_s);
            item = items.next(false);
          }
          if (!item) return;
          correct(lane, *item, mine);
          items.done(item);
        }
      },
      [&](Item& item) {
        const log::StageTimer timing(sum.write_s);
        write(item);
      });
  for (const CorrectSummary& s : of_lane) add_stats(sum, s, summary_fields());
}

// The reads read again (or replayed from memory): a kept batch is corrected in place,
// one read from the files in its item's own batch.
struct ReplayedBatch {
  io::ReadBatch space;
  io::ReadBatch* batch = nullptr;
};

// The correction pass's progress: reads written of the input's (counted by the first
// pass), and the time left at this pace.
void say_corrected(int64_t done, int64_t total, const log::Stopwatch& began) {
  std::string of;
  if (total > 0 && done < total) {
    const double share = static_cast<double>(done) / static_cast<double>(total), spent = began.seconds();
    of = " of " + std::to_string(total) + " (" + std::to_string(static_cast<int>(100 * share)) + "%), " +
         log::time_left(spent, share);
  }
  log::progress("correct", "corrected " + std::to_string(done) + " reads" + of);
}

// A SAM/BAM input whose first reads were pairs (or single) holds the other kind later.
std::string pairing_changed(const std::string& path) {
  return "'" + path + "' holds single reads and pairs: correct takes one kind per input "
         "(samtools view -f 1 keeps the pairs)";
}

void write_corrected_reads(const BatchCorrector& corrector, ReadInput& input, io::FastqWriter& out1,
                           io::FastqWriter* out2, CorrectSummary& sum) {
  ReplayPass pass(input);
  OrderedLanes<ReplayedBatch> items(slots_for(corrector.lanes()), [&](ReplayedBatch& item) {
    item.batch = pass.next(item.space);
    return item.batch != nullptr;
  });
  int64_t done = 0;
  const log::Stopwatch began;
  correction_pipeline<ReplayedBatch>(
      items, corrector.lanes(), sum,
      [&](int lane, ReplayedBatch& item, CorrectSummary& tally) {
        io::ReadBatch& batch = *item.batch;
        for (const io::Read& r : batch.reads) {
          if (r.qual.size() != r.seq.size()) {  // FASTA input: nothing to write qualities from
            throw FormatError("gatemap correct writes FASTQ and needs FASTQ input: read '" + r.name +
                              "' has no qualities");
          }
        }
        BatchParts parts([&](size_t i) { return std::string_view(batch.reads[i].seq); }, batch.size(),
                         corrector.parts_per_batch());
        corrector.run(lane, parts, batch.size(), [&](size_t i) { return batch.reads[i].seq.data(); }, tally);
      },
      [&](ReplayedBatch& item) {
        const io::ReadBatch& batch = *item.batch;
        if (batch.paired != (out2 != nullptr)) throw FormatError(pairing_changed(input.path()));
        for (size_t i = 0; i < batch.size(); ++i) {
          io::FastqWriter& w = (batch.paired && i % 2 == 1) ? *out2 : out1;
          w.write(batch.reads[i]);  // the header as it was: name, /1 or /2, comment
        }
        done += static_cast<int64_t>(batch.size());
        say_corrected(done, sum.reads, began);
      });
}

// The text kept from the first reading: no parsing, no formatting; a batch's text freed
// once written. The mates' files are written at once, mate 2's on a thread of its own
// (one thread wrote 2.5-3 GB/s to the page cache, and the correction pass waited for it).
void write_corrected_texts(const BatchCorrector& corrector, std::vector<KeptText>& texts, const std::string& in1,
                           io::FastqWriter& out1, io::FastqWriter* out2, CorrectSummary& sum) {
  size_t next = 0;
  OrderedLanes<size_t> items(slots_for(corrector.lanes()), [&](size_t& k) {
    k = next++;
    return k < texts.size();
  });
  int64_t done = 0;
  const log::Stopwatch began;
  correction_pipeline<size_t>(
      items, corrector.lanes(), sum,
      [&](int lane, size_t& k, CorrectSummary& tally) {
        KeptText& kt = texts[k];
        BatchParts parts([&](size_t i) { return std::string_view(kt.bases(i), static_cast<size_t>(kt.len[i])); },
                         kt.size(), corrector.parts_per_batch());
        corrector.run(lane, parts, kt.size(), [&](size_t i) { return kt.bases(i); }, tally);
      },
      [&](size_t& k) {
        if (texts[k].paired != (out2 != nullptr)) throw FormatError(pairing_changed(in1));
        std::shared_future<void> mate2;
        if (out2) mate2 = run_beside([&] { out2->write_text(texts[k].text[1].view()); });
        out1.write_text(texts[k].text[0].view());
        if (mate2.valid()) mate2.get();
        done += static_cast<int64_t>(texts[k].size());
        texts[k] = KeptText();  // written: its memory goes
        say_corrected(done, sum.reads, began);
      });
}

}  // namespace

CorrectSummary run_correct(const CorrectRunOptions& opt) {
  use_threads(opt.threads, 2);  // the reader's team and the corrector's
  check_options(opt);
  // The reads are parsed while CUDA starts (looking for a device starts it: a few tenths
  // of a second).
  ReadInput input(opt.in1, opt.in2, batch_reads(opt), opt.keep_reads_gb, opt.threads, opt.reference);
  // The outputs are opened before the reads are counted: one that cannot be written is
  // said at once, not after the count pass (1 M pairs on 2 cores: 19 s).
  const int threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();  // bgzip output on all of them
  io::FastqWriter out1(opt.out1, threads, opt.gz_level);
  std::unique_ptr<io::FastqWriter> out2;
  if (!opt.out2.empty()) out2 = std::make_unique<io::FastqWriter>(opt.out2, threads, opt.gz_level);
  // With the GPU the reads are also kept as the text the correction pass writes (it is
  // otherwise bound by parsing them again) when the input's files say they fit a quarter
  // of the RAM (FASTQ text: about 2.3 bytes a base). Decided before the backend is known
  // (the first batches are parsed meanwhile) and taken back if it is the CPU.
  const bool text_option = opt.keep_text_gb >= 0;
  const double text_bytes = input.estimated_bases() * 2.3;
  const bool text_fits = text_bytes >= 0 && text_bytes < static_cast<double>(physical_memory() / 4);
  if (text_option) {
    input.keep_text(static_cast<size_t>(opt.keep_text_gb * 1073741824.0));
  } else if (opt.backend != "cpu" && text_fits) {
    input.keep_text(physical_memory() / 4);
  }
  input.start();
  CorrectSummary sum;
  const gpu::Backend backend = gpu::choose_backend(opt.backend);
  const std::vector<int> devices = gpu::resolve_devices(opt.device, backend);  // a bad --device before the count
  const gpu::MemoryCap capped(devices, opt.gpu_memory, "correct");  // before any engine sizes itself
  sum.backend = gpu::backend_name(backend);
  log::debug("correct", "backend " + sum.backend + " chosen at " + std::to_string(log::wall_seconds()) + " s");
  if (!text_option && backend != gpu::Backend::gpu) input.keep_text(0);
  // Pass 1: count, then the solid spectrum (the counts are freed when it returns).
  const KmerSpectrum spectrum = count_pass(opt, backend, devices.empty() ? 0 : devices[0], input, sum);
  const bool pass_through = sum.threshold == 0;

  // Pass 2: correct and write.
  log::debug("correct", "count pass done at " + std::to_string(log::wall_seconds()) + " s");
  const log::Stopwatch t0;
  LaneEngines engines;  // none made (the spectrum does not fit): the CPU twin
  if (backend == gpu::Backend::gpu && !pass_through) engines = make_lane_engines(spectrum, devices);
  if (backend == gpu::Backend::gpu && engines.empty()) sum.backend = "cpu";
  CorrectOptions copt;
  copt.max_corrections = opt.max_corrections;
  const BatchCorrector corrector{spectrum, engines, copt, pass_through, threads};
  std::vector<KeptText> texts = input.take_text();
  if (!texts.empty()) {
    write_corrected_texts(corrector, texts, opt.in1, out1, out2.get(), sum);
  } else {
    write_corrected_reads(corrector, input, out1, out2.get(), sum);
  }
  sum.read_passes = input.passes();
  log::debug("correct", "last batch written at " + std::to_string(log::wall_seconds()) + " s");
  out1.close();
  if (out2) out2->close();
  sum.correct_s = t0.seconds();
  log::debug("correct", "outputs closed at " + std::to_string(log::wall_seconds()) + " s");
  return sum;
}

std::string format_summary(const CorrectSummary& s) { return stats_tsv(s, summary_fields()); }

}  // namespace gatemap::correct

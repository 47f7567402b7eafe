#include "mapper/run.hpp"

#include <malloc.h>
#include <omp.h>

#include <fstream>
#include <future>
#include <memory>
#include <utility>

#include "common/error.hpp"
#include "common/leave_to_exit.hpp"
#include "common/log.hpp"
#include "common/ordered_lanes.hpp"
#include "common/side_task.hpp"
#include "common/thread_budget.hpp"
#include "gpu/device.hpp"
#include "gpu/memory_cap.hpp"
#include "io/output_file.hpp"
#include "io/bam/sam_writer.hpp"
#include "io/reads/input_stream.hpp"
#include "io/run_paths.hpp"
#include "io/text/text_output.hpp"
#include "mapper/insert_model.hpp"
#include "mapper/map_lanes.hpp"
#include "mapper/record_output.hpp"
#include "mapper/reference_check.hpp"

namespace gatemap::mapper {

namespace {

// --filter says whether GateKeeper runs (auto|off; gpu|cpu as before: on, and where),
// --backend where the GPU stages (seeding, the filter, verification) run; the two must
// not disagree.
std::string backend_of(const RunOptions& opt) {
  if (opt.filter == "auto" || opt.filter == "off") return opt.backend;
  if (opt.backend != "auto" && opt.backend != opt.filter) {
    throw UsageError("--filter " + opt.filter + " and --backend " + opt.backend + " disagree");
  }
  return opt.filter;
}

// The final counts and stage times on stderr, and as JSON with --stats.
void report(const MapStats& st, const std::string& stats_path, const index::Index& idx) {
  log::info("map", "reads " + std::to_string(st.reads) + ", records " + std::to_string(st.records) + ", mapped " +
                       std::to_string(st.mapped) + ", unmapped " + std::to_string(st.unmapped) + ", supplementary " +
                       std::to_string(st.supplementary) + ", proper pairs " + std::to_string(st.proper_pairs) +
                       ", rescued " + std::to_string(st.rescued));
  log::info("map", "candidates " + std::to_string(st.candidates) + ", rejected by filter " +
                       std::to_string(st.filter_rejected) + ", unfiltered (N) " + std::to_string(st.filter_unfiltered) +
                       ", verified " + std::to_string(st.verified) + "; reads with capped seeds " +
                       std::to_string(st.capped_reads) + ", at the candidate cap " +
                       std::to_string(st.candidate_cap_hits));
  log::info("map", "time: seed " + std::to_string(st.seed_s) + " s (device " + std::to_string(st.seed_device_s) +
                       " s), filter " + std::to_string(st.filter_s) + " s (kernel " +
                       std::to_string(st.filter_kernel_s) + " s), verify " + std::to_string(st.verify_s) + " s (" +
                       std::to_string(st.verified_on_gpu) + " on the GPU in " + std::to_string(st.verify_device_s) +
                       " s), fallback " + std::to_string(st.fallback_s) + " s, finish " + std::to_string(st.pair_s) +
                       " s, output " + std::to_string(st.output_s) + " s, input " + std::to_string(st.read_s) +
                       " s; mapping waiting for input " +
                       std::to_string(st.input_wait_s) + " s, for seeding " + std::to_string(st.begin_wait_s) +
                       " s; reading waiting for a free slot " + std::to_string(st.output_wait_s) + " s");
  if (stats_path.empty()) return;
  std::vector<std::pair<std::string, int64_t>> contigs;
  for (const auto& c : idx.contigs()) contigs.emplace_back(c.name, c.length);
  io::write_side_output(stats_path, st.to_json(contigs));
}

// Each batch allocates and frees the same large buffers: kept in the heap rather than
// mapped and unmapped each time, they are not faulted in again (5-8% of a run). Heaps
// grow 64 MiB at a time: each growth is an mprotect that stalls every thread's page
// faults (the mm lock); growing by the request alone cost 5% of a GPU-seeded run.
void tune_malloc() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
#endif
}

// The index a sorted output gets beside it (io/sort/bam_sorter.cpp: .bai, or .csi for long contigs).
std::vector<std::string> output_indexes(const RunOptions& opt) {
  if (!opt.sort) return {};
  if (io::sam_output_mode(opt.output) == std::string("wc")) return {opt.output + ".crai"};
  return {opt.output + ".bai", opt.output + ".csi"};
}

// Option errors, before the index loads (UsageError).
void check_options(const RunOptions& opt) {
  if (opt.batch_reads < 2) throw UsageError("--batch must be at least 2");
  validate(opt.map);
  const std::string mode = io::sam_output_mode(opt.output);  // a refused suffix
  if (opt.markdup && !opt.sort) throw UsageError("--markdup works with --sort");
  if (opt.reads1 == "-" && opt.reads2 == "-") {
    throw UsageError("both mates' files are '-': standard input holds one of them (interleaved pairs: -p)");
  }
  if (opt.sort && mode != "wb" && mode != "wc") throw UsageError("--sort needs -o FILE.bam or FILE.cram");
  if (opt.bgzf_gpu && opt.bam_level >= 0) throw UsageError("--bgzf-gpu has a compression of its own: leave out -l");
  if (opt.bgzf_gpu && mode != "wb") throw UsageError("--bgzf-gpu compresses BAM: it needs -o FILE.bam");
  if (!opt.read_group.empty()) {  // before the index loads (11 GB for GRCh37)
    std::string id;
    io::parse_read_group(opt.read_group, id);
  }
  io::RunPaths paths;
  paths.reads(opt.index_path).reads(opt.reference).reads(opt.reads1).reads(opt.reads2);
  paths.writes(opt.output, "-o", output_indexes(opt)).writes(opt.stats_path, "--stats").check();
}

// The index (its checksums checked later, on another thread), said on stderr.
// Whether the file's first byte (gzip's inflated) opens a FASTA record. Read plainly
// first: an index (gigabytes) is not streamed for it.
bool is_fasta(const std::string& path) {
  if (path == "-") return false;
  char head[2] = {};
  std::ifstream file(path, std::ios::binary);
  file.read(head, 2);
  if (file.gcount() >= 1 && head[0] == '>') return true;
  if (file.gcount() < 2 || head[0] != '\x1f' || head[1] != '\x8b') return false;
  char first = 0;
  io::InputStream in(path);
  return in.read(&first, 1) == 1 && first == '>';
}

// The index at `path`, or, when `path` is a FASTA with no index beside it, one built now
// for this run only (as minimap2 indexes a FASTA it is given), said on stderr with how
// to keep it. The FASTA then serves as CRAM's reference too.
std::unique_ptr<index::Index> load_index_saying(RunOptions& opt) {
  const std::string& path = opt.index_path;
  const double t_load = log::wall_seconds();
  if (is_fasta(path)) {
    log::info("map", "'" + path + "' is a FASTA with no index beside it ('" + path +
                         ".gmi'): indexing it for this run; 'gatemap index " + path + "' keeps one for the next runs");
    index::IndexOptions io;
    io.threads = omp_get_max_threads();
    auto idx = index::build_index(path, io);
    log::info("map", "indexed '" + path + "' (" + std::to_string(idx->contigs().size()) + " contigs, " +
                         std::to_string(idx->length()) + " bp) in " + std::to_string(log::wall_seconds() - t_load) +
                         " s");
    if (opt.reference.empty()) opt.reference = path;
    return idx;
  }
  auto idx = index::load_index(path, index::Checksums::later);
  log::info("map", "loaded index '" + path + "' (" + std::to_string(idx->contigs().size()) + " contigs, " +
                       std::to_string(idx->length()) + " bp, k=" + std::to_string(idx->k()) + ") in " +
                       std::to_string(log::wall_seconds() - t_load) + " s");
  return idx;
}

void say_where_it_runs(const RunOptions& opt, bool on_gpu, int lanes, int lane_threads) {
  log::info("map", std::string("seeding on the ") + (on_gpu && opt.hw.seed_on_gpu ? "GPU" : "CPU") +
                       ", GateKeeper filter " + (!opt.map.filter ? "off" : on_gpu ? "on the GPU" : "on the CPU") +
                       (lanes > 1 ? "; " + std::to_string(lanes) + " lanes of " + std::to_string(lane_threads) +
                                        " threads" + (on_gpu ? ", one per GPU" : "")
                                  : ""));
}

// --markdup's counts, once the output is closed.
void add_duplicates(const RecordOutput& out, MapStats& st) {
  if (const io::DuplicateCounts* d = out.duplicates()) {
    st.duplicate_reads = d->duplicate_reads;
    st.duplicate_pairs = d->duplicate_pairs;
    st.duplicate_unpaired = d->duplicate_fragments;
  }
}

// The report (stderr, --stats) and the run's time and memory; a failed report removes the output.
void report_run(const MapStats& st, const RunOptions& opt, const index::Index& idx) {
  const double wall = log::wall_seconds();
  try {
    report(st, opt.stats_path, idx);
  } catch (...) {  // no output under its name after a failure, a report's included
    io::remove_outputs(opt.output, output_indexes(opt));
    throw;
  }
  log::info("main", "Real time: " + std::to_string(wall) + " sec; CPU: " + std::to_string(log::cpu_seconds()) +
                        " sec; Peak RSS: " + std::to_string(log::peak_rss_bytes() / 1048576) + " MiB");
}

}  // namespace

MapStats run_mapping(RunOptions opt) {
  use_threads(opt.hw.threads, 3);  // the reader's, the lane's and the writer's teams
  tune_malloc();
  check_options(opt);
  const size_t batch_bases = opt.batch_bases ? opt.batch_bases : opt.batch_reads * 1000;
  const std::string where = backend_of(opt);
  opt.map.filter = opt.filter != "off";
  // Whether a GPU seeds and filters: probed on a thread of its own (CUDA's start-up takes a few
  // tenths of a second) while the index loads and the first batch is read.
  gpu::resolve_devices(opt.device, gpu::Backend::cpu);  // its syntax, before any work
  std::shared_future<gpu::Backend> probe = run_beside([where] { return gpu::choose_backend(where); });
  // BGZF-compressed reads are inflated on a few threads per file (a quarter of -t).
  const int threads = omp_get_max_threads();
  // -C keeps a SAM/BAM/CRAM input's tags as it keeps a FASTQ's comments (bwa mem -C).
  io::FastqSource source(opt.reads1, opt.reads2, opt.interleaved, std::max(1, threads / 4), opt.reference,
                         opt.map.output.copy_comment);
  // Batches are read from now on (the first while the index loads), in a few slots
  // until the lanes are known. FASTQ/FASTA files are only cut here (in order, each file
  // on a thread) and parsed by the lanes: parsing here too bounded 4 GPUs' runs.
  double read_s = 0;  // the reader's busy time
  auto reads_ahead = std::make_unique<OrderedLanes<MapItem>>(kSlotsPerLane + kSlotsMore, [&](MapItem& item) {
    omp_set_num_threads(threads);
    const log::StageTimer timing(read_s);
    item.parse_error = nullptr;
    if (source.cuts()) return source.cut_batch(item.raw, opt.batch_reads, batch_bases);
    item.raw.cut = false;
    return source.next_batch(item.reads, opt.batch_reads, batch_bases, &item.singles);
  });
  OrderedLanes<MapItem>& reads = *reads_ahead;
  auto idx = load_index_saying(opt);
  // Its checksums are checked while CUDA starts and the index goes to the device; the
  // first batch waits for them.
  std::shared_future<void> checksums = run_beside([&idx, threads] {
    omp_set_num_threads(threads);
    idx->verify_checksums();
  });
  auto spare_records = std::make_unique<io::RecordPool>();  // before the output and the mapper, which use it
  // Reads from SAM/BAM/CRAM keep their read groups (RG:Z:, carried as their comment)
  // with the input's @RG lines, unless -R names the run's one read group.
  if (!source.read_groups().empty() && opt.read_group.empty()) opt.map.output.copy_comment = true;
  if (!opt.reference.empty() && io::sam_output_mode(opt.output) == std::string("wc")) {
    check_reference_matches_index(*idx, opt.reference, threads);
  }
  RecordOutput out(opt, *idx, source.read_groups(), source.comment_lines());
  opt.map.output.read_group_id = out.read_group_id();

  // The backend: GPU when asked or (auto) when present; otherwise the CPU twins. One
  // lane (a mapper with its share of the cores) per GPU: each seeds, filters and
  // verifies its batches on its own device.
  opt.hw.backend = probe.get();
  log::debug("map", "backend known at " + std::to_string(log::wall_seconds()) + " s");
  const bool on_gpu = opt.hw.backend == gpu::Backend::gpu;
  // The GPU maps faster than one thread inflates a gzip file, but the reader stops while
  // the writer holds every slot: gzip input is then inflated far ahead meanwhile (chr20 at
  // 30x: the lanes' wait for input 2.3-2.6 s -> 0.04-1.7 s on an H100).
  if (on_gpu) io::InputStream::set_gzip_read_ahead(size_t{256} << 20);
  const std::vector<int> devices = gpu::resolve_devices(opt.device, opt.hw.backend);
  const gpu::MemoryCap capped(devices, opt.gpu_memory, "map");  // before any engine sizes itself
  const int lanes = opt.lanes > 0 ? opt.lanes : on_gpu ? static_cast<int>(devices.size()) : 1;
  const int lane_threads = std::max(1, threads / lanes);
  // With the GPU seeding, the GPU filters the seeder's reads itself; a batch that falls
  // back to the filter stage has its reads packed on the device there too (the worker's
  // host time bounds the run).
  if (on_gpu && opt.hw.seed_on_gpu) opt.hw.encode_on_device = true;
  say_where_it_runs(opt, on_gpu, lanes, lane_threads);
  // BAM's deflate on the GPUs (each lane's, and the sorted output's on the first):
  // asked for (--bgzf-gpu), or by default on a GPU run without -l (files within ~1.5% of
  // level 6's; at level 6 the CPU's deflate took two thirds of a run's CPU time).
  const bool deflate_on_gpu = opt.bgzf_gpu || (on_gpu && opt.bam_level < 0 && !devices.empty());
  if (deflate_on_gpu) out.compress_on(on_gpu && !devices.empty() ? devices[0] : -1, threads, opt.bgzf_gpu);
  const bool compress_in_lanes = deflate_on_gpu && out.prepares() && out.is_bam();
  const size_t per_lane = kSlotsPerLane + (compress_in_lanes ? kCompressWorkers : 0);
  reads.set_slots(per_lane * static_cast<size_t>(lanes) + kSlotsMore);
  MapLanes mapping(opt, *idx, devices, lanes, lane_threads, *spare_records, out, checksums, compress_in_lanes);
  BatchWriter writer{out, *spare_records, source, opt, threads};
  reads.run(lanes, [&](int i) { mapping.run(i, reads); }, [&](MapItem& item) { writer(item); });
  log::debug("map", "last batch written at " + std::to_string(log::wall_seconds()) + " s");
  MapStats st = mapping.stats();
  out.close();  // a sorted BAM is written only now
  log::debug("map", "output closed at " + std::to_string(log::wall_seconds()) + " s");
  st.output_s = writer.output_s + mapping.prepare_s();
  st.read_s = read_s + mapping.parse_s();  // cut by the reader, parsed by the lanes
  st.output_wait_s = reads.reader_wait_s();
  add_duplicates(out, st);
  report_run(st, opt, *idx);
  if (st.reads + st.secondary + st.supplementary != st.records) throw Error("internal: records do not match reads");
  if (opt.leave_to_exit) {
    leave_to_exit(idx);
    leave_to_exit(spare_records);
    leave_to_exit(reads_ahead);  // the slots' last batches: a million small strings freed one by one
  }
  return st;
}

}  // namespace gatemap::mapper

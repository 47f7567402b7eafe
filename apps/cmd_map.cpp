// gatemap map: FASTQ -> SAM/BAM.
#include <htslib/sam.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "apps/commands.hpp"
#include "common/build_info.hpp"
#include "common/error.hpp"
#include "io/sort/bam_sorter.hpp"
#include "mapper/run.hpp"

namespace gatemap::apps {

void register_map(CLI::App& app, AppContext& ctx) {
  auto* sub = app.add_subcommand("map", "Map single or paired reads to an index (SAM to stdout or -o)");
  auto o = std::make_shared<mapper::RunOptions>();
  sub->add_option("index", o->index_path, "Index from 'gatemap index', or its FASTA (REF.gmi beside it is used; without one, REF is indexed for the run)")
      ->required();
  sub->add_option("reads1", o->reads1,
                  "FASTQ or FASTA (plain or gzip; '-' is stdin), or a SAM/BAM/CRAM file (e.g. unmapped BAM; mates next to "
                  "each other, read groups kept)")
      ->required();
  sub->add_option("reads2", o->reads2, "Mate FASTQ for paired reads");
  sub->add_flag("-p,--interleaved", o->interleaved,
                "Smart pairing, as bwa mem -p: in reads1 two consecutive reads of one name are a pair, any other read is single");
  sub->add_option("-o,--output", o->output, "SAM, or BAM / CRAM with a .bam / .cram suffix")->capture_default_str();
  sub->add_option("-T,--reference", o->reference,
                  "The reference FASTA, for CRAM output and input [the index's FASTA: REF, or REF.gmi without .gmi]");
  sub->add_option("-t,--threads", o->hw.threads, "Threads")->capture_default_str();
  sub->add_option("-e,--max-edits", o->map.verify.max_edits, "Edit threshold, 0-64 (-1: 4% of the read length)")
      ->check(CLI::Range(-1, mapper::kMaxEditsLimit))
      ->capture_default_str();
  sub->add_option("--filter", o->filter,
                  "GateKeeper pre-alignment filter: auto (on), off (verify every candidate; same records), "
                  "or gpu/cpu (on, there)")
      ->check(CLI::IsMember({"auto", "gpu", "cpu", "off"}))
      ->capture_default_str();
  sub->add_option("--backend", o->backend, "Where seeding, the filter and verification run: gpu, cpu or auto (records are the same)")
      ->check(CLI::IsMember({"auto", "gpu", "cpu"}))
      ->capture_default_str();
  sub->add_flag("--encode-on-device", o->hw.encode_on_device, "2-bit encode the filter's reads on the GPU (always when the GPU seeds)");
  sub->add_flag(
      "--cpu-seed", [o](int64_t) { o->hw.seed_on_gpu = false; }, "Seed on the CPU even when a GPU filters");
  sub->add_option("--device", o->device, "GPUs: 0, 0,1,... or all (one mapping lane per GPU; records do not change)")
      ->capture_default_str();
  auto gpu_mem = add_gpu_memory_option(sub);
  sub->add_flag("-a,--all", o->map.output.all_hits, "Report every hit within -e as secondary records");
  sub->add_option("--max-cand", o->map.seed.max_candidates, "Candidates verified per read and strand")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  sub->add_option("--max-occ", o->map.seed.max_occ, "Skip seeds with more hits (0: the index's cap)")
      ->capture_default_str();
  sub->add_option("--insert", o->map.pair.insert_mean, "Mean insert size (-1: estimate)")
      ->check(finite_in(-1, 1e6))
      ->capture_default_str();
  sub->add_option("--insert-sd", o->map.pair.insert_sd, "Insert size standard deviation (-1: a tenth of the mean)")
      ->check(finite_in(-1, 1e6))
      ->capture_default_str();
  sub->add_option("-R", o->read_group, "Read group line, e.g. '@RG\\tID:x\\tSM:y'");
  auto lean_cram = std::make_shared<bool>(false);
  sub->add_flag("--cram-no-nm-md", *lean_cram,
                "CRAM output without NM and MD (smaller; samtools rebuilds them from the reference, htsjdk and "
                "Picard do not; stored by default)");
  sub->add_flag("-C", o->map.output.copy_comment, "Copy FASTQ comments (SAM tags such as BX:Z:...) to the records");
  sub->add_flag("-M", o->map.output.split_as_secondary,
                "Flag the parts of chimeric reads secondary, not supplementary (Picard)");
  sub->add_flag("-Y", o->map.output.split_soft_clip, "Soft-clip the parts of chimeric reads (hard clips by default)");
  sub->add_option("--batch", o->batch_reads, "Reads per batch")
      ->check(CLI::Range(size_t{2}, size_t{1} << 30))
      ->capture_default_str();
  sub->add_option("-K", o->batch_bases, "Bases per batch at most, as bwa mem -K (0: 1000 per read)")
      ->check(finite_in(0, 1e12))
      ->capture_default_str();
  sub->add_option("--stats", o->stats_path, "Write the run's counts and stage times as JSON");
  sub->add_flag("--sort", o->sort,
                "Write a coordinate-sorted, indexed BAM (-o x.bam; .bai, or .csi for contigs over 512 Mbp), "
                "sorted within -m per thread, spilling sorted runs to --tmp-dir");
  auto sort_mem = std::make_shared<std::string>("768M");
  sub->add_option("-m,--sort-mem", *sort_mem, "With --sort: memory per thread for sorting, as samtools sort -m")
      ->capture_default_str();
  sub->add_flag("--markdup", o->markdup,
                "With --sort: flag duplicates (0x400) as Picard MarkDuplicates: by library and the unclipped 5' "
                "ends of both mates (or of unpaired reads), the best sum of base qualities kept; the ends take an "
                "quarter of -m and spill to --tmp-dir beyond it");
  sub->add_option("--tmp-dir", o->tmp_dir, "With --sort: folder for sorted runs [the output's folder]");
  sub->add_option("-l", o->bam_level,
                  "Compression level of BAM and .sam.gz output, 0-9, by htslib on the CPU (as samtools sort -l; 1 is "
                  "several times faster to write, files a few percent larger) [6; a GPU run compresses BAM on the "
                  "GPU instead, files within ~1.5% of level 6's]")
      ->check(CLI::Range(0, 9));
  sub->add_flag("--bgzf-gpu", o->bgzf_gpu,
                "Compress BAM on the GPU (gatemap's DEFLATE, the default on a GPU without -l: files within ~1.5% "
                "of -l 6's; without a GPU the same bytes from the CPU, several times slower than -l 6)");
  on_run(sub, ctx, [o, sort_mem, lean_cram, gpu_mem, &ctx] {
    o->cram_nm_md = !*lean_cram;
    o->command_line = ctx.command_line;
    // As bwa mem takes the reference's path for its index: REF.gmi next to REF.
    const std::string path = o->index_path;
    const bool gmi = path.size() > 4 && path.compare(path.size() - 4, 4, ".gmi") == 0;
    if (!gmi && std::filesystem::exists(path + ".gmi")) o->index_path = path + ".gmi";
    // CRAM's reference: the FASTA beside the index unless -T names one.
    const std::string fasta = gmi ? path.substr(0, path.size() - 4) : path;
    if (o->reference.empty() && fasta != o->index_path && std::filesystem::is_regular_file(fasta)) o->reference = fasta;
    o->version = GATEMAP_VERSION;
    o->sort_memory = io::parse_memory(*sort_mem, "-m");
    o->gpu_memory = gpu_memory_bytes(*gpu_mem);
    o->leave_to_exit = true;
    mapper::run_mapping(*o);
    return 0;
  });
}

}  // namespace gatemap::apps

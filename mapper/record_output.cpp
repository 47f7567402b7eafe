#include "mapper/record_output.hpp"

#include <algorithm>

#include "common/log.hpp"
#include "io/deflate/bgzf_deflate.hpp"
#include "io/output_file.hpp"

namespace gatemap::mapper {

std::shared_ptr<io::BlockCompressor> make_block_compressor(int device, int threads, bool twin) {
  const auto cpu = [&]() -> std::unique_ptr<io::BlockCompressor> {
    if (twin) return std::make_unique<io::BgzfDeflateCpu>(threads);
    return std::make_unique<io::LevelDeflateCpu>(threads, -1);
  };
  std::shared_ptr<io::BlockCompressor> c = device >= 0 ? io::make_gpu_block_compressor(device, threads, cpu()) : nullptr;
  if (!c && twin) c = cpu();
  return c;
}

RecordOutput::RecordOutput(const RunOptions& opt, const index::Index& idx,
                           const std::vector<std::string>& input_read_groups,
                           const std::vector<std::string>& input_comments)
    : path_(opt.output), path_is_bam_(io::sam_output_mode(opt.output) == std::string("wb")) {
  io::SamHeaderInfo info;
  for (const auto& c : idx.contigs()) info.contigs.emplace_back(c.name, c.length);
  info.read_group = opt.read_group;
  if (opt.read_group.empty()) info.input_read_groups = input_read_groups;
  info.comment_lines = input_comments;
  info.reference = opt.reference;
  info.cram_nm_md = opt.cram_nm_md;
  info.command_line = opt.command_line;
  info.version = opt.version;
  const int threads = std::max(1, opt.hw.threads);
  if (opt.sort) {
    io::SortOptions so;
    so.memory_bytes = opt.sort_memory * static_cast<size_t>(threads);
    so.tmp_dir = opt.tmp_dir;
    so.threads = threads;
    so.mark_duplicates = opt.markdup;
    so.level = opt.bam_level;
    sorter_ = std::make_unique<io::BamSorter>(opt.output, info, so);
  } else {
    writer_ = std::make_unique<io::SamWriter>(opt.output, info, threads, opt.bam_level);
  }
}

void RecordOutput::compress_on(int device, int threads, bool twin) {
  if (!path_is_bam_) return;
  std::shared_ptr<io::BlockCompressor> c = make_block_compressor(device, threads, twin);
  if (!c) return;
  if (sorter_) {
    sorter_->set_block_compressor(std::move(c));
  } else {
    writer_->set_block_compressor(std::move(c));
  }
}

void RecordOutput::take(std::vector<bam1_t*>& recs, io::RecordPool& spare) {
  if (sorter_) {
    sorter_->add(recs);
  } else {
    writer_->write_all(recs);
  }
  spare.give(recs);
}

void RecordOutput::close() {
  if (!sorter_) return writer_->close();
  const double t = log::wall_seconds();
  log::info("map", "all reads mapped: " +
                       (sorter_->runs() > 0 ? "merging " + std::to_string(sorter_->runs()) + " sorted runs"
                                            : std::string("sorting the records in memory")) +
                       (sorter_->duplicates() ? ", marking duplicates" : std::string()) + " and writing '" + path_ +
                       "' with its index");
  sorter_->close();
  log::info("map", "sorted " + std::to_string(sorter_->records()) + " records (" + std::to_string(sorter_->runs()) +
                       " runs spilled) and indexed '" + path_ + "' in " + std::to_string(log::wall_seconds() - t) +
                       " s");
  if (const io::DuplicateCounts* d = sorter_->duplicates()) {
    log::info("map", "duplicates: " + std::to_string(d->duplicate_reads) + " of " + std::to_string(d->reads) +
                         " mapped reads (" + std::to_string(d->duplicate_pairs) + " of " + std::to_string(d->pairs) +
                         " pairs, " + std::to_string(d->duplicate_fragments) + " of " + std::to_string(d->fragments) +
                         " unpaired reads)");
  }
}

}  // namespace gatemap::mapper

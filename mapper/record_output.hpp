#pragma once
// Where map's records go (mapper/run.cpp): the output as they come, or (--sort) the
// bounded-memory sorter; BAM's blocks compressed on a GPU where one works.
#include <htslib/sam.h>

#include <memory>
#include <string>
#include <vector>

#include "index/index.hpp"
#include "io/bam/compress_pool.hpp"
#include "io/bam/sam_writer.hpp"
#include "io/sort/bam_sorter.hpp"
#include "mapper/run.hpp"

namespace gatemap::mapper {

// BAM's compressor on a device (-1: none). Where no GPU works (or a batch fails on it):
// with --bgzf-gpu its CPU twin (the same bytes); chosen by default (a GPU run without -l),
// htslib's level 6, or null when there is no GPU at all (htslib compresses as usual).
std::shared_ptr<io::BlockCompressor> make_block_compressor(int device, int threads, bool twin);

// Where records go: the output as they come, or (--sort) the bounded-memory sorter.
class RecordOutput {
 public:
  RecordOutput(const RunOptions& opt, const index::Index& idx, const std::vector<std::string>& input_read_groups,
               const std::vector<std::string>& input_comments);
  const std::string& read_group_id() const { return sorter_ ? sorter_->read_group_id() : writer_->read_group_id(); }
  // Whether records can be made ready to write (prepare) where they are made, several
  // batches at once, leaving the writer only bytes to copy: unsorted BAM and plain SAM.
  bool prepares() const { return writer_ && writer_->can_prepare(); }
  void prepare(const std::vector<bam1_t*>& recs, io::PreparedRecords& out, io::CompressPool* pool) const {
    writer_->prepare(recs, out, pool);
  }
  bool is_bam() const { return path_is_bam_; }
  // BAM's blocks compressed on this GPU (make_block_compressor): the sorted output's, and
  // the unsorted output's where a lane has no compress pool of its own.
  void compress_on(int device, int threads, bool twin);
  void write_prepared(io::PreparedRecords& p) { writer_->write_prepared(p); }
  // Writes (or hands to the sorter) the records; written ones go to `spare` for reuse.
  void take(std::vector<bam1_t*>& recs, io::RecordPool& spare);
  // Closes the output (the sorter merges its runs, marks duplicates, writes the index).
  void close();
  const io::DuplicateCounts* duplicates() const { return sorter_ ? sorter_->duplicates() : nullptr; }

 private:
  std::string path_;
  bool path_is_bam_;
  std::unique_ptr<io::SamWriter> writer_;
  std::unique_ptr<io::BamSorter> sorter_;
};

}  // namespace gatemap::mapper

#pragma once
// Coordinate sorting with bounded memory, in samtools sort's order: by reference
// (unplaced records last), position, forward before reverse; ties keep their input
// order. Records are buffered up to a memory budget; each full buffer is sorted and
// spilled as a temporary run (io/sort/record_runs.hpp) into a private folder in tmp_dir
// (with --markdup, a quarter of the budget holds the read ends, io/sort/duplicates.hpp);
// close() merges the runs and the last buffer, read where it lies, into the output BAM
// (BGZF on all threads while the merge goes on, @HD SO:coordinate),
// renames it into place and indexes it (.bai, or .csi when a contig is longer than BAI
// allows). Runs are removed on success, on failure and on SIGINT/SIGTERM/SIGHUP.
#include <htslib/sam.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/signal_cleanup.hpp"
#include "io/bam/sam_writer.hpp"
#include "io/mapped_buffer.hpp"
#include "io/sort/duplicates.hpp"
#include "io/sort/record_arena.hpp"

namespace gatemap::io {

// samtools sort's order (stable sorts keep ties in input order).
bool coordinate_less(const bam1_t* a, const bam1_t* b);

struct SortOptions {
  size_t memory_bytes = size_t{768} << 20;  // -m x -t: records buffered before a run is spilled
  std::string tmp_dir;                      // --tmp-dir; empty: the output's folder
  int threads = 1;
  bool write_index = true;
  bool mark_duplicates = false;  // --markdup (io/sort/duplicates.hpp)
  int level = -1;                // -l: the output's compression level (-1: htslib's, 6)
};

// Parses "768M", "2G", "500000K" or plain bytes; throws UsageError naming `flag`.
size_t parse_memory(const std::string& text, const std::string& flag);

class BamSorter {
 public:
  // Opens the output (under a temporary name until close()). Not thread-safe.
  BamSorter(const std::string& out_bam, const SamHeaderInfo& info, const SortOptions& opt);
  ~BamSorter();  // removes runs and the unfinished output; never throws
  BamSorter(const BamSorter&) = delete;
  BamSorter& operator=(const BamSorter&) = delete;

  const std::string& read_group_id() const;
  // The output's blocks compressed by `c` (the GPU's) instead of htslib's (the runs keep htslib's).
  void set_block_compressor(std::shared_ptr<BlockCompressor> c) { out_->set_block_compressor(std::move(c)); }
  // Copies the records in (the originals stay the caller's, to reuse or free: with
  // --markdup they carry a tag added here); may spill a run.
  void add(const std::vector<bam1_t*>& recs);
  // Merges and writes everything, renames the output into place, writes the index.
  void close();
  int runs() const { return spilled_; }  // runs spilled from memory
  // With mark_duplicates, after close().
  const DuplicateCounts* duplicates() const { return marker_ ? &marker_->counts() : nullptr; }
  int64_t records() const { return records_; }

 private:
  std::string temp_path();  // the next temporary file in run_dir_
  size_t run_block_bytes() const;
  void merge_runs(const std::vector<std::string>& paths, const std::function<void(bam1_t*)>& out,
                  bool and_buffer = false);
  void merge_in_rounds();
  void merge_into_output();
  void spill();
  void sort_buffer();
  // A buffered record: its coordinate key, its place in the input (ties), where it lies.
  struct Entry {
    std::pair<uint64_t, uint64_t> key;
    uint64_t input;
    const uint8_t* at;
    bool operator<(const Entry& o) const { return key != o.key ? key < o.key : input < o.input; }
  };

  std::string out_path_;
  SortOptions opt_;
  std::unique_ptr<SamWriter> out_;
  std::unique_ptr<DuplicateMarker> marker_;
  std::string run_dir_;
  RemovedOnSignal run_dir_on_signal_;  // the runs go with it if a signal ends the run
  std::vector<std::string> runs_;
  int temp_files_ = 0;
  int spilled_ = 0;
  RecordArena arena_;
  MappedBuffer<Entry> buffer_;
  size_t buffered_bytes_ = 0;
  int64_t records_ = 0;
  int64_t longest_contig_ = 0;
};

}  // namespace gatemap::io

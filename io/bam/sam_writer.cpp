#include "io/bam/sam_writer.hpp"

#include <htslib/faidx.h>

#include <htslib/hfile.h>
#include <htslib/hts.h>
#include <htslib/kstring.h>
#include <omp.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <future>
#include <optional>
#include <vector>

#include "common/error.hpp"
#include "common/log.hpp"
#include "common/serial_worker.hpp"
#include "io/bam/bam_encode.hpp"
#include "io/bam/compress_pool.hpp"
#include "io/hts_threads.hpp"

namespace gatemap::io {

namespace {
constexpr int64_t kFormatChunk = 1024;  // records a thread formats (or encodes as BAM) at a time
constexpr size_t kGathered = 16384;     // records write() gathers before they are written as BAM

// One thread's room for encoding BAM, kept across batches.
struct EncodeSpace {
  std::vector<bam1_t> views;
  std::vector<const bam1_t*> recs;
};
}  // namespace

struct SamWriter::BamState {
  std::vector<EncodeSpace> spaces;  // one per thread
  int level = -1;
  uint64_t address = 0;  // where the next block goes in the file
  hts_idx_t* index = nullptr;
  std::string index_path;
  int index_format = HTS_FMT_BAI;
  std::vector<bam1_t*> gathered;  // copies made by write()
  // write_bam's windows of encoded chunks: one compressed (with a block compressor) and
  // one written while the next is encoded.
  static constexpr size_t kWindows = 3;
  std::vector<EncodedChunk> windows[kWindows];
  SerialWorker compressing;  // compresses a window's chunks with the block compressor
  SerialWorker writer;       // writes a window's chunks in order
  SerialWorker indexing;     // tells the index of a written window's records in order
  ~BamState() {
    if (index) hts_idx_destroy(index);
    for (bam1_t* b : gathered) bam_destroy1(b);
  }
};

std::string parse_read_group(const std::string& value, std::string& id) {
  std::string line;
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '\\' && i + 1 < value.size() && value[i + 1] == 't') {
      line += '\t';
      ++i;
    } else {
      line += value[i];
    }
  }
  if (line.rfind("@RG\t", 0) != 0) throw UsageError("-R '" + value + "': the read group line must start with @RG\\t");
  const size_t pos = line.find("\tID:");
  if (pos == std::string::npos) throw UsageError("-R '" + value + "': the read group has no ID field");
  const size_t begin = pos + 4;
  const size_t end = line.find('\t', begin);
  id = line.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  if (id.empty()) throw UsageError("-R '" + value + "': empty read group ID");
  if (line.find('\n') != std::string::npos) throw UsageError("-R '" + value + "': contains a newline");
  // Every field after @RG is TAG:VALUE (a letter, a letter or digit, ':'), as htslib
  // parses a header line: said here, naming -R, rather than by htslib as a bad header.
  for (size_t at = 4; at <= line.size();) {
    const size_t next = std::min(line.find('\t', at), line.size());
    const std::string field = line.substr(at, next - at);
    const bool shaped = field.size() >= 4 && std::isalpha(static_cast<unsigned char>(field[0])) &&
                        std::isalnum(static_cast<unsigned char>(field[1])) && field[2] == ':';
    if (!shaped) throw UsageError("-R '" + value + "': field '" + field + "' is not TAG:VALUE (e.g. SM:sample)");
    at = next + 1;
  }
  return line;
}

const char* sam_output_mode(const std::string& path) {
  const auto ends_with = [&](const std::string& s) {
    return path.size() > s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  if (ends_with(".bam")) return "wb";
  if (ends_with(".sam.gz")) return "wz";
  if (ends_with(".cram")) return "wc";
  // Anything else compressed would pass for what it is not.
  if (ends_with(".gz") || ends_with(".bgz") || ends_with(".bcf") || ends_with(".vcf")) {
    throw UsageError("-o '" + path + "': write .bam, .sam or .sam.gz");
  }
  return "w";
}

namespace {

// CRAM stores bases as differences from the reference: encoded against another FASTA
// they would decode as other reads. Its contigs must be the header's, by name and length.
void check_cram_reference(const SamHeaderInfo& info, const std::string& path) {
  if (info.reference.empty()) {
    throw UsageError("-o '" + path + "': CRAM is written against the reference FASTA; give it with -T FASTA");
  }
  faidx_t* fai = fai_load(info.reference.c_str());  // builds FASTA.fai if it is missing
  if (!fai) throw IoError("cannot read the reference '" + info.reference + "' (a FASTA, or its .fai)");
  std::string mismatch;
  for (const auto& [name, length] : info.contigs) {
    const int64_t len = faidx_seq_len(fai, name.c_str());  // contigs fit an int (index refuses longer)
    if (len != length) {
      mismatch = "contig '" + name + "' (" + std::to_string(length) + " bp) is " +
                 (len < 0 ? "not in it" : std::to_string(len) + " bp there");
      break;
    }
  }
  fai_destroy(fai);
  if (!mismatch.empty()) {
    throw UsageError("-T '" + info.reference + "' is not the index's reference: " + mismatch);
  }
}

}  // namespace

SamWriter::SamWriter(const std::string& path, const SamHeaderInfo& info, int threads, int level)
    : path_(path.empty() ? "-" : path), out_(path_) {
  std::string mode = sam_output_mode(path_);
  if (level >= 0 && level <= 9 && mode != "w") mode += static_cast<char>('0' + level);
  threads_ = std::max(1, threads);
  hdr_ = sam_hdr_init();
  if (!hdr_) throw Error("cannot allocate a SAM header");
  std::string text = info.coordinate_sorted ? "@HD\tVN:1.6\tSO:coordinate\n" : "@HD\tVN:1.6\tSO:unsorted\tGO:query\n";
  for (const auto& [name, len] : info.contigs) {
    text += "@SQ\tSN:" + name + "\tLN:" + std::to_string(len) + "\n";
  }
  if (!info.read_group.empty()) text += parse_read_group(info.read_group, rg_id_) + "\n";
  for (const std::string& line : info.input_read_groups) text += line + "\n";
  // @PG without empty tags (Picard rejects "VN:" with no value).
  text += "@PG\tID:gatemap\tPN:gatemap";
  if (!info.version.empty()) text += "\tVN:" + info.version;
  if (!info.command_line.empty()) {  // a tab (e.g. in a -R given as $'@RG\t...') would end the field
    std::string cl = info.command_line;
    std::replace(cl.begin(), cl.end(), '\t', ' ');
    text += "\tCL:" + cl;
  }
  text += "\n";
  for (const std::string& line : info.comment_lines) text += line + "\n";
  if (sam_hdr_add_lines(hdr_, text.c_str(), text.size()) != 0) {
    sam_hdr_destroy(hdr_);
    throw Error("cannot build the SAM header (bad read group?)");
  }
  if (mode[1] == 'c') check_cram_reference(info, path_);
  fp_ = hts_open(out_.write_path().c_str(), mode.c_str());
  if (!fp_) {
    sam_hdr_destroy(hdr_);
    throw IoError("cannot open '" + path_ + "' for writing: " + std::strerror(errno));
  }
  if (mode[1] == 'c' && hts_set_opt(fp_, CRAM_OPT_REFERENCE, info.reference.c_str()) != 0) {
    hts_close(fp_);
    fp_ = nullptr;
    sam_hdr_destroy(hdr_);
    hdr_ = nullptr;
    throw IoError("cannot use '" + info.reference + "' as the reference of '" + path_ + "'");
  }
  if (mode[1] == 'c' && info.cram_nm_md) {  // else htslib drops them where the reference restores them
    hts_set_opt(fp_, CRAM_OPT_STORE_NM, 1);
    hts_set_opt(fp_, CRAM_OPT_STORE_MD, 1);
  }
  writeback_ = std::make_unique<EarlyWriteback>(out_.write_path());
  plain_sam_ = mode[1] == '\0';
  if (mode[1] == 'b') {  // records compressed here, in parallel (write_bam)
    bam_ = std::make_unique<BamState>();
    bam_->level = level >= 0 && level <= 9 ? level : -1;
    bam_->spaces.resize(static_cast<size_t>(threads_));
  } else if (!plain_sam_) {
    set_hts_threads(fp_, threads, path_);  // BGZF compression on threads
  }
  if (sam_hdr_write(fp_, hdr_) != 0 || (bam_ && bgzf_flush(fp_->fp.bgzf) != 0)) {
    hts_close(fp_);
    fp_ = nullptr;
    sam_hdr_destroy(hdr_);
    hdr_ = nullptr;
    throw IoError("cannot write the SAM header to '" + path_ + "'");
  }
  if (bam_) bam_->address = static_cast<uint64_t>(bgzf_tell(fp_->fp.bgzf)) >> 16;  // the header's blocks end here
}

SamWriter::~SamWriter() {
  if (fp_) hts_close(fp_);
  if (hdr_) sam_hdr_destroy(hdr_);
}

void SamWriter::write(const bam1_t* rec) {
  if (bam_) {
    bam_->gathered.push_back(bam_dup1(rec));
    if (!bam_->gathered.back()) throw Error("out of memory copying a record for '" + path_ + "'");
    if (bam_->gathered.size() == kGathered) write_gathered();
    return;
  }
  if (sam_write1(fp_, hdr_, rec) < 0) {
    throw IoError("write to '" + path_ + "' failed (disk full?) at record " + std::to_string(written_ + 1));
  }
  ++written_;
}

// The copies write() gathered, written and freed (after a failure, BamState frees them).
void SamWriter::write_gathered() {
  write_all(bam_->gathered);
  for (bam1_t* b : bam_->gathered) bam_destroy1(b);
  bam_->gathered.clear();
}

void SamWriter::write_all(const std::vector<bam1_t*>& recs) {
  if (bam_) return write_bam(recs.size(), [&recs](size_t i, bam1_t*) { return recs[i]; });
  const int64_t n = static_cast<int64_t>(recs.size());
  if (!plain_sam_ || n < 2 * kFormatChunk) {
    for (const bam1_t* b : recs) write(b);
    return;
  }
  // Chunks of records formatted as text on the threads, each written, in order, as soon
  // as the ones before it are (the writes overlap the formatting of later chunks).
  const int64_t chunks = (n + kFormatChunk - 1) / kFormatChunk;
  int64_t failed_at = -1;  // the first record not written
  bool cannot_format = false;
#pragma omp parallel for schedule(dynamic, 1) ordered num_threads(threads_)
  for (int64_t c = 0; c < chunks; ++c) {
    kstring_t line = KS_INITIALIZE, text = KS_INITIALIZE;
    const int64_t first = c * kFormatChunk, last = std::min(n, first + kFormatChunk);
    int64_t bad = -1;
    for (int64_t i = first; i < last; ++i) {
      if (sam_format1(hdr_, recs[static_cast<size_t>(i)], &line) < 0 || kputsn(line.s, line.l, &text) < 0 ||
          kputc('\n', &text) < 0) {
        bad = i;
        break;
      }
    }
    ks_free(&line);
#pragma omp ordered
    if (failed_at < 0) {
      if (bad >= 0 || hwrite(fp_->fp.hfile, text.s, text.l) != static_cast<ssize_t>(text.l)) {
        failed_at = bad >= 0 ? bad : first;
        cannot_format = bad >= 0;
      } else {
        written_ += last - first;
      }
    }
    ks_free(&text);
  }
  if (failed_at >= 0) {
    throw IoError("write to '" + path_ + "' failed (" + (cannot_format ? "cannot format" : "disk full?") +
                  ") at record " + std::to_string(written_ + 1 + (cannot_format ? failed_at % kFormatChunk : 0)));
  }
  writeback_->wrote();
}

PreparedRecords::PreparedRecords() = default;
PreparedRecords::~PreparedRecords() {
  if (compressing.valid()) compressing.wait();
}

void SamWriter::prepare(const std::vector<bam1_t*>& recs, PreparedRecords& out, CompressPool* pool) const {
  if (!can_prepare()) throw Error("internal: prepare() on bgzipped SAM");
  if (out.compressing.valid()) out.compressing.get();  // the chunks' last use
  out.compressed = !compressor_ || pool;  // else write_prepared compresses
  const size_t n = recs.size(), chunks = (n + kFormatChunk - 1) / kFormatChunk;
  out.count = chunks;
  out.records = n;
  if (bam_) {
    if (out.chunks.size() < chunks) out.chunks.resize(chunks);
  } else if (out.text.size() < chunks) {
    out.text.resize(chunks);
  }
  std::vector<std::exception_ptr> failed(chunks);
  const bool defer = compressor_ || pool;  // compressed by the pool or by write_prepared
#pragma omp parallel
  {
    kstring_t line = KS_INITIALIZE;
#pragma omp for schedule(dynamic, 1)
    for (size_t c = 0; c < chunks; ++c) {
      const size_t first = c * kFormatChunk, size = std::min<size_t>(kFormatChunk, n - first);
      try {
        if (bam_) {
          encode(recs.data() + first, size, defer, out.chunks[c]);
          continue;
        }
        std::string& text = out.text[c];
        text.clear();
        for (size_t i = first; i < first + size; ++i) {
          if (sam_format1(hdr_, recs[i], &line) < 0) {
            throw IoError(std::string("cannot format read '") + bam_get_qname(recs[i]) + "' as SAM for '" + path_ + "'");
          }
          text.append(line.s, line.l);
          text += '\n';
        }
      } catch (...) {
        failed[c] = std::current_exception();
      }
    }
    ks_free(&line);
  }
  for (const std::exception_ptr& e : failed) {
    if (e) std::rethrow_exception(e);
  }
  if (bam_ && pool) out.compressing = pool->submit(out.chunks.data(), chunks);
}

void SamWriter::encode(const bam1_t* const* recs, size_t n, bool defer, EncodedChunk& out) const {
  if (defer) {
    encode_bam_blocks(recs, n, out);
  } else {
    encode_bam_chunk(recs, n, bam_->level, out);
  }
}

void SamWriter::write_prepared(PreparedRecords& p) {
  if (p.compressing.valid()) p.compressing.get();
  if (bam_ && !p.compressed) compress_chunks(p.chunks.data(), p.count, *compressor_);
  if (bam_) return write_chunks(p.chunks, p.count);
  for (size_t c = 0; c < p.count; ++c) {
    const std::string& text = p.text[c];
    if (hwrite(fp_->fp.hfile, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
      throw IoError("write to '" + path_ + "' failed (disk full?) at record " + std::to_string(written_ + 1));
    }
    written_ += std::min<int64_t>(kFormatChunk, static_cast<int64_t>(p.records) - static_cast<int64_t>(c) * kFormatChunk);
  }
  writeback_->wrote();
}

// Chunks of records encoded (and compressed by htslib) on the threads, a window of them
// at a time; a window's blocks compressed by the block compressor (when there is one) on
// a thread of its own, then written in order (and the index told each record's place) on
// the BAM's writing thread, while the next windows are encoded. (An ordered loop made
// threads that finished early wait for the chunks before theirs.) The compressor takes
// the windows one after another with start(): a GPU's last round of a window still runs
// while the next one is encoded and goes up, so a window is complete (and written) once
// the next one has started.
// Chunks [from, from + count) of write_bam's records (kFormatChunk each, of n) encoded
// into `encoded` on the run's threads; the first error rethrown here.
void SamWriter::encode_window(size_t from, size_t count, size_t n, const RecordAt& record_at,
                              std::vector<EncodedChunk>& encoded) {
  BamState& bam = *bam_;
  std::vector<std::exception_ptr> failed(count, nullptr);
  for (EncodeSpace& space : bam.spaces) {  // here: nothing may throw out of the threads below
    space.views.resize(kFormatChunk);
    space.recs.resize(kFormatChunk);
  }
  {
    const log::StageTimer encoding(laps_.encode_s);
#pragma omp parallel num_threads(threads_)
    {
      EncodeSpace& space = bam.spaces[static_cast<size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 1)
      for (size_t c = 0; c < count; ++c) {
        const size_t first = (from + c) * kFormatChunk, size = std::min<size_t>(kFormatChunk, n - first);
        try {
          for (size_t i = 0; i < size; ++i) space.recs[i] = record_at(first + i, &space.views[i]);
          encode(space.recs.data(), size, compressor_ != nullptr, encoded[c]);
        } catch (...) {
          failed[c] = std::current_exception();
        }
      }
    }
  }
  for (const std::exception_ptr& e : failed) {
    if (e) std::rethrow_exception(e);
  }
}

void SamWriter::write_bam(size_t n, const RecordAt& record_at) {
  if (!bam_) {  // CRAM (htslib encodes it on its threads): one record at a time
    bam1_t view{};
    for (size_t i = 0; i < n; ++i) write(record_at(i, &view));
    return;
  }
  BamState& bam = *bam_;
  const size_t chunks = (n + kFormatChunk - 1) / kFormatChunk;
  // A GPU compressor is given a larger window: its kernel wants thousands of blocks (at
  // 16 threads ~2,300, one round each; 32 chunks a thread were slower, and 12-20 alike;
  // H200, 2026-11-29).
  const size_t window = (compressor_ ? 24 : 16) * static_cast<size_t>(threads_);
  constexpr size_t kSlots = BamState::kWindows;
  size_t counts[kSlots] = {};                 // each window slot's chunks
  std::vector<BgzfJob> jobs[kSlots];          // and blocks, while the compressor has them
  std::future<void> written[kSlots];          // each window slot's last window, written and indexed
  std::vector<uint64_t> starts[kSlots];       // where its chunks begin in the file
  std::shared_future<void> compressed;        // the last compressing step submitted
  const auto wait_until_written = [&](std::future<void>& f) {
    const log::StageTimer timing(laps_.wait_s);
    if (f.valid()) f.get();
  };
  // Writes the window in `slot` once `complete` says its blocks are.
  const auto write_window = [&](size_t slot, std::shared_future<void> complete) {
    std::vector<EncodedChunk>& encoded = bam.windows[slot];
    std::vector<uint64_t>& window_starts = starts[slot];
    const size_t count = counts[slot];
    std::future<void> wrote = bam.writer.submit([this, &encoded, count, complete, &window_starts] {
      if (complete.valid()) complete.get();
      const log::StageTimer timing(laps_.write_s);
      write_chunk_bytes(encoded, count, window_starts);
    });
    if (bam.index) {  // beside the writer, bound by the disk (1 M pairs: 0.04 s of its 0.2-0.3 s)
      written[slot] = bam.indexing.submit([this, &encoded, count, &window_starts, wrote = wrote.share()] {
        wrote.get();
        const log::StageTimer timing(laps_.index_s);
        index_chunks(encoded, count, window_starts);
      });
    } else {
      written[slot] = std::move(wrote);
    }
  };
  // Starts the window in `next` on the compressor (none: finishes the last one), then
  // closes up the window in `before` (if any), which that completed.
  const auto compress_window = [&](std::optional<size_t> next, std::optional<size_t> before) {
    compressed = bam.compressing
                     .submit([this, &bam, &jobs, &counts, next, before] {
                       const log::StageTimer timing(laps_.compress_s);
                       if (next) {
                         jobs[*next] = block_jobs(bam.windows[*next].data(), counts[*next]);
                         compressor_->start(jobs[*next].data(), jobs[*next].size());
                       } else {
                         compressor_->finish();
                       }
                       if (before) close_up_blocks(bam.windows[*before].data(), counts[*before], jobs[*before]);
                     })
                     .share();
  };
  size_t windows = 0;
  try {
    for (size_t from = 0; from < chunks; from += window, ++windows) {
      const size_t slot = windows % kSlots, count = std::min(window, chunks - from);
      wait_until_written(written[slot]);
      std::vector<EncodedChunk>& encoded = bam.windows[slot];
      if (encoded.size() < count) encoded.resize(count);
      counts[slot] = count;
      encode_window(from, count, n, record_at, encoded);
      if (!compressor_) {
        write_window(slot, {});
        continue;
      }
      const size_t before = (slot + kSlots - 1) % kSlots;
      compress_window(slot, windows > 0 ? std::optional<size_t>(before) : std::nullopt);
      if (windows > 0) write_window(before, compressed);
    }
    if (compressor_ && windows > 0) {
      const size_t last = (windows - 1) % kSlots;
      compress_window(std::nullopt, last);
      write_window(last, compressed);
    }
    for (size_t k = 0; k < kSlots; ++k) wait_until_written(written[k]);  // (the writer keeps their order)
  } catch (...) {
    if (compressed.valid()) compressed.wait();  // (its steps keep their order)
    for (std::future<void>& f : written) {
      if (f.valid()) f.wait();
    }
    throw;
  }
}

void SamWriter::write_chunks(const std::vector<EncodedChunk>& chunks, size_t count) {
  std::vector<uint64_t> starts;
  write_chunk_bytes(chunks, count, starts);
  index_chunks(chunks, count, starts);
}

void SamWriter::write_chunk_bytes(const std::vector<EncodedChunk>& chunks, size_t count, std::vector<uint64_t>& starts) {
  BamState& bam = *bam_;
  starts.resize(count);
  for (size_t c = 0; c < count; ++c) {
    const EncodedChunk& chunk = chunks[c];
    if (bgzf_raw_write(fp_->fp.bgzf, chunk.bgzf.data(), chunk.bgzf.size()) != static_cast<ssize_t>(chunk.bgzf.size())) {
      throw IoError("write to '" + path_ + "' failed (disk full?) at record " + std::to_string(written_ + 1));
    }
    starts[c] = bam.address;
    bam.address += chunk.bgzf.size();
    written_ += static_cast<int64_t>(chunk.records.size());
  }
  writeback_->wrote();
}

void SamWriter::index_chunks(const std::vector<EncodedChunk>& chunks, size_t count, const std::vector<uint64_t>& starts) {
  BamState& bam = *bam_;
  if (!bam.index) return;
  for (size_t c = 0; c < count; ++c) {
    for (const IndexedRecord& r : chunks[c].records) {
      const uint64_t offset = (starts[c] + (r.end_offset >> 16)) << 16 | (r.end_offset & 0xffff);
      if (hts_idx_push(bam.index, r.tid, r.begin, r.end, offset, r.mapped) < 0) {
        throw IoError("cannot index '" + path_ + "' at record " + std::to_string(indexed_ + 1) +
                      " (records out of order?)");
      }
      ++indexed_;
    }
  }
}

void SamWriter::write_index(const std::string& index_path, int min_shift) {
  if (!bam_ && hts_get_format(fp_)->format == cram) {  // htslib builds .crai as it writes
    cram_index_ = std::make_unique<OutputFile>(index_path);
    if (sam_idx_init(fp_, hdr_, 0, cram_index_->write_path().c_str()) != 0) {
      throw IoError("cannot start the index '" + index_path + "'");
    }
    return;
  }
  if (!bam_) throw Error("internal: only BAM and CRAM output is indexed");
  // As sam_idx_init: BAI's 5 levels from 2^14, or CSI with as many levels as the longest
  // contig needs.
  int levels = 5;
  bam_->index_format = HTS_FMT_BAI;
  if (min_shift > 0) {
    int64_t longest = 0;
    for (int i = 0; i < sam_hdr_nref(hdr_); ++i) longest = std::max<int64_t>(longest, sam_hdr_tid2len(hdr_, i));
    longest += 256;
    levels = 0;
    for (int64_t span = int64_t{1} << min_shift; longest > span; span <<= 3) ++levels;
    bam_->index_format = HTS_FMT_CSI;
  } else {
    min_shift = 14;
  }
  bam_->index = hts_idx_init(sam_hdr_nref(hdr_), bam_->index_format, bam_->address << 16, min_shift, levels);
  if (!bam_->index) throw IoError("cannot start the index '" + index_path + "'");
  bam_->index_path = index_path;
}

void SamWriter::close() {
  if (!fp_) return;
  if (bam_ && !bam_->gathered.empty()) write_gathered();
  if (cram_index_ && sam_idx_save(fp_) != 0) throw IoError("cannot write the index '" + cram_index_->path() + "'");
  const int ret = hts_close(fp_);
  fp_ = nullptr;
  if (ret != 0) throw IoError("closing '" + path_ + "' failed (disk full?)");
  if (cram_index_) {  // as for BAM below: the CRAM in place first, no older index beside it
    std::remove(cram_index_->path().c_str());
    out_.commit();
    return cram_index_->commit();
  }
  if (!bam_ || !bam_->index) return out_.commit();
  // The index under a temporary name first; the BAM is put in place before it, with no
  // older index of its name beside it in between.
  OutputFile index_out(bam_->index_path);
  if (hts_idx_finish(bam_->index, bam_->address << 16) != 0 ||
      hts_idx_save_as(bam_->index, path_.c_str(), index_out.write_path().c_str(), bam_->index_format) != 0) {
    throw IoError("cannot write the index '" + bam_->index_path + "'");
  }
  std::remove(bam_->index_path.c_str());
  out_.commit();
  index_out.commit();
}

}  // namespace gatemap::io

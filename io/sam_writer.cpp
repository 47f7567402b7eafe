#include "io/sam_writer.hpp"

#include <htslib/hfile.h>
#include <htslib/kstring.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.hpp"
#include "io/hts_threads.hpp"

namespace gatemap::io {

namespace {
constexpr int64_t kFormatChunk = 1024;  // records a thread formats at a time
}  // namespace

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
  return line;
}

const char* sam_output_mode(const std::string& path) {
  const auto ends_with = [&](const std::string& s) {
    return path.size() > s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  if (ends_with(".bam")) return "wb";
  if (ends_with(".sam.gz")) return "wz";
  if (ends_with(".cram")) throw UsageError("-o '" + path + "': CRAM output is not supported; write .bam or .sam");
  // Anything else compressed would pass for what it is not.
  if (ends_with(".gz") || ends_with(".bgz") || ends_with(".bcf") || ends_with(".vcf")) {
    throw UsageError("-o '" + path + "': write .bam, .sam or .sam.gz");
  }
  return "w";
}

SamWriter::SamWriter(const std::string& path, const SamHeaderInfo& info, int threads, int level)
    : path_(path.empty() ? "-" : path), out_(path_) {
  std::string mode = sam_output_mode(path_);
  if (level >= 0 && level <= 9 && mode != "w") mode += static_cast<char>('0' + level);
  hdr_ = sam_hdr_init();
  if (!hdr_) throw Error("cannot allocate a SAM header");
  std::string text = info.coordinate_sorted ? "@HD\tVN:1.6\tSO:coordinate\n" : "@HD\tVN:1.6\tSO:unsorted\tGO:query\n";
  for (const auto& [name, len] : info.contigs) {
    text += "@SQ\tSN:" + name + "\tLN:" + std::to_string(len) + "\n";
  }
  if (!info.read_group.empty()) text += parse_read_group(info.read_group, rg_id_) + "\n";
  // @PG without empty tags (Picard rejects "VN:" with no value).
  text += "@PG\tID:gatemap\tPN:gatemap";
  if (!info.version.empty()) text += "\tVN:" + info.version;
  if (!info.command_line.empty()) {  // a tab (e.g. in a -R given as $'@RG\t...') would end the field
    std::string cl = info.command_line;
    std::replace(cl.begin(), cl.end(), '\t', ' ');
    text += "\tCL:" + cl;
  }
  text += "\n";
  if (sam_hdr_add_lines(hdr_, text.c_str(), text.size()) != 0) {
    sam_hdr_destroy(hdr_);
    throw Error("cannot build the SAM header (bad read group?)");
  }
  fp_ = hts_open(out_.write_path().c_str(), mode.c_str());
  if (!fp_) {
    sam_hdr_destroy(hdr_);
    throw IoError("cannot open '" + path_ + "' for writing: " + std::strerror(errno));
  }
  plain_sam_ = mode[1] == '\0';
  if (!plain_sam_) set_hts_threads(fp_, threads, path_);  // BGZF compression on threads
  if (sam_hdr_write(fp_, hdr_) != 0) {
    hts_close(fp_);
    fp_ = nullptr;
    sam_hdr_destroy(hdr_);
    hdr_ = nullptr;
    throw IoError("cannot write the SAM header to '" + path_ + "'");
  }
}

SamWriter::~SamWriter() {
  if (fp_) hts_close(fp_);
  if (hdr_) sam_hdr_destroy(hdr_);
}

void SamWriter::write(const bam1_t* rec) {
  if (sam_write1(fp_, hdr_, rec) < 0) {
    throw IoError("write to '" + path_ + "' failed (disk full?) at record " + std::to_string(written_ + 1));
  }
  ++written_;
}

void SamWriter::write_all(const std::vector<bam1_t*>& recs) {
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
#pragma omp parallel for schedule(dynamic, 1) ordered
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
}

void SamWriter::write_index(const std::string& index_path, int min_shift) {
  index_path_ = index_path;  // htslib keeps the pointer until sam_idx_save
  if (sam_idx_init(fp_, hdr_, min_shift, index_path_.c_str()) != 0) {
    index_path_.clear();
    throw IoError("cannot start the index '" + index_path + "'");
  }
}

void SamWriter::close() {
  if (!fp_) return;
  if (!index_path_.empty() && sam_idx_save(fp_) != 0) {
    hts_close(fp_);
    fp_ = nullptr;
    std::remove(index_path_.c_str());
    throw IoError("cannot write the index '" + index_path_ + "'");
  }
  const int ret = hts_close(fp_);
  fp_ = nullptr;
  if (ret != 0) throw IoError("closing '" + path_ + "' failed (disk full?)");
  out_.commit();
}

}  // namespace gatemap::io

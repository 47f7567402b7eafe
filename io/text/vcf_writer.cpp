#include "io/text/vcf_writer.hpp"

#include <htslib/bgzf.h>
#include <htslib/hfile.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.hpp"
#include "io/hts_threads.hpp"

namespace gatemap::io {
namespace {
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

void check_vcf_name(const std::string& path, const std::string& flag) {
  if (path.empty() || path == "-" || path.rfind("/dev/", 0) == 0) return;
  for (const char* suffix : {".vcf", ".vcf.gz", ".bcf"}) {
    if (ends_with(path, suffix)) return;
  }
  throw UsageError(flag + " '" + path + "': a VCF is written to a .vcf, .vcf.gz or .bcf name (or '-' for stdout)");
}

std::vector<std::string> vcf_index_names(const std::string& path) {
  if (ends_with(path, ".bcf")) return {path + ".csi"};
  if (ends_with(path, ".gz")) return {path + ".tbi"};
  return {};
}

VcfWriter::VcfWriter(const std::string& path, const VcfHeaderInfo& info, int threads)
    : path_(path.empty() ? "-" : path), out_(path_), threads_(threads) {
  bcf_ = ends_with(path_, ".bcf");
  const char* mode = bcf_ ? "wb" : ends_with(path_, ".gz") ? "wz" : "w";
  hdr_ = bcf_hdr_init("w");
  if (!hdr_) throw Error("cannot allocate a VCF header");
  std::vector<std::string> lines = {"##source=gatemap " + info.version,
                                    "##commandline=\"" + info.command_line + "\""};
  if (!info.reference.empty()) lines.push_back("##reference=" + info.reference);
  for (const auto& [name, len] : info.contigs) {
    lines.push_back("##contig=<ID=" + name + ",length=" + std::to_string(len) + ">");
  }
  lines.insert(lines.end(), info.extra_lines.begin(), info.extra_lines.end());
  for (const auto& line : lines) {
    if (bcf_hdr_append(hdr_, line.c_str()) != 0) {
      bcf_hdr_destroy(hdr_);
      throw Error("bad VCF header line: " + line);
    }
  }
  for (const auto& s : info.samples) bcf_hdr_add_sample(hdr_, s.c_str());
  if (bcf_hdr_sync(hdr_) != 0) {
    bcf_hdr_destroy(hdr_);
    throw Error("cannot build the VCF header");
  }
  fp_ = hts_open(out_.write_path().c_str(), mode);
  if (!fp_) {
    bcf_hdr_destroy(hdr_);
    hdr_ = nullptr;
    throw IoError("cannot open '" + path_ + "' for writing: " + std::strerror(errno));
  }
  if (mode[1] != '\0') set_hts_threads(fp_, threads, path_);  // bgzip or BCF
  if (bcf_hdr_write(fp_, hdr_) != 0) throw IoError("cannot write the VCF header to '" + path_ + "'");
  if (mode[1] != '\0' && out_.write_path() != path_) {  // a file, not stdout or a pipe
    index_min_shift_ = mode[1] == 'b' ? 14 : 0;
    index_ = std::make_unique<OutputFile>(path_ + (index_min_shift_ ? ".csi" : ".tbi"));
  }
}

VcfWriter::~VcfWriter() {
  if (fp_) hts_close(fp_);
  if (hdr_) bcf_hdr_destroy(hdr_);
}

void VcfWriter::write(bcf1_t* rec) {
  if (bcf_write(fp_, hdr_, rec) != 0) throw IoError("write to '" + path_ + "' failed (disk full?)");
}

void VcfWriter::write_text(std::string_view lines) {
  const ssize_t n = fp_->format.compression != no_compression ? bgzf_write(fp_->fp.bgzf, lines.data(), lines.size())
                                                               : hwrite(fp_->fp.hfile, lines.data(), lines.size());
  if (n != static_cast<ssize_t>(lines.size())) throw IoError("write to '" + path_ + "' failed (disk full?)");
}

void VcfWriter::close() {
  if (!fp_) return;
  const int ret = hts_close(fp_);
  fp_ = nullptr;
  if (ret != 0) throw IoError("closing '" + path_ + "' failed (disk full?)");
  // Indexed from the finished file, not as it is written: htslib before 1.19 gives every
  // record the first block's offset when it compresses on several threads and indexes at
  // once (bcf_idx_init). Reading back costs a decompression of the file on `threads_`.
  if (index_ && bcf_index_build3(out_.write_path().c_str(), index_->write_path().c_str(), index_min_shift_,
                                 threads_ > 1 ? threads_ : 0) != 0) {
    throw IoError("cannot write the index '" + index_->path() + "'");
  }
  // The VCF is put in place before its index, with no older index of its name beside it
  // in between.
  if (index_) std::remove(index_->path().c_str());
  out_.commit();
  if (index_) index_->commit();
}

}  // namespace gatemap::io

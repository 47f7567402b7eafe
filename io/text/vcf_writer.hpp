#pragma once
// VCF/BCF output through htslib: header with ##fileformat, ##source, ##commandline,
// ##reference, one ##contig per reference sequence, caller-supplied INFO/FORMAT lines
// and sample names. ".vcf.gz" gives bgzip, ".bcf" BCF, anything else plain VCF
// ("-" is stdout). Write and close failures throw IoError.
#include <htslib/vcf.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/output_file.hpp"

namespace gatemap::io {

struct VcfHeaderInfo {
  std::vector<std::pair<std::string, int64_t>> contigs;
  std::string reference;     // path of the reference FASTA
  std::string command_line;
  std::string version;
  std::vector<std::string> extra_lines;  // full "##INFO=<...>" / "##FORMAT=<...>" lines
  std::vector<std::string> samples;
};

// Refuses (UsageError, naming `flag`) an output name that is not a VCF's: .vcf,
// .vcf.gz, .bcf, standard output ("-", "") or a device (/dev/...), as samtools refuses a
// suffix it does not write.
void check_vcf_name(const std::string& path, const std::string& flag);

// The index VcfWriter writes beside `path` (PATH.tbi for .vcf.gz, PATH.csi for .bcf), if any.
std::vector<std::string> vcf_index_names(const std::string& path);

class VcfWriter {
 public:
  // Compressed output (.vcf.gz, .bcf) is compressed on `threads` threads and indexed by
  // close(), as `bcftools --write-index` does: PATH.tbi for .vcf.gz, PATH.csi for .bcf
  // (saved under a temporary name, put in place after the VCF).
  VcfWriter(const std::string& path, const VcfHeaderInfo& info, int threads = 1);
  ~VcfWriter();
  VcfWriter(const VcfWriter&) = delete;
  VcfWriter& operator=(const VcfWriter&) = delete;

  bcf_hdr_t* header() { return hdr_; }
  void write(bcf1_t* rec);
  // VCF text output (plain or bgzip), not BCF: write_text takes whole lines (each ending
  // in '\n'), in order with write()'s records. Formatting a simple record directly is
  // about 5x faster than htslib's pack-then-print, and a gVCF is millions of them.
  bool writes_text() const { return !bcf_; }
  void write_text(std::string_view lines);
  void close();

 private:
  std::string path_;
  OutputFile out_;  // a temporary name until close() succeeds
  std::unique_ptr<OutputFile> index_;  // compressed output's index, likewise
  int index_min_shift_ = 0;            // 0: .tbi; 14: .csi (BCF)
  int threads_ = 1;
  bool bcf_ = false;
  htsFile* fp_ = nullptr;
  bcf_hdr_t* hdr_ = nullptr;
};

}  // namespace gatemap::io

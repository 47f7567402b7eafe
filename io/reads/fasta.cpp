#include "io/reads/fasta.hpp"

#include <htslib/bgzf.h>

#include <array>
#include <cctype>
#include <cstring>

#include "common/error.hpp"
#include "io/output_file.hpp"
#include "io/reads/line_reader.hpp"

namespace gatemap::io {
namespace {

// What each byte of a sequence line is: one table lookup per base on the hot path.
enum CharClass : uint8_t { kInvalid, kUpperBase, kLowerBase, kUpperOther, kLowerOther, kSpace, kGapChar };

std::array<uint8_t, 256> make_classes() {
  std::array<uint8_t, 256> t{};
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kUpperOther;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kLowerOther;
  for (char c : std::string("ACGTN")) t[static_cast<unsigned char>(c)] = kUpperBase;
  for (char c : std::string("acgtn")) t[static_cast<unsigned char>(c)] = kLowerBase;
  for (char c : std::string(" \t\r\v\f")) t[static_cast<unsigned char>(c)] = kSpace;
  for (char c : std::string("*-.")) t[static_cast<unsigned char>(c)] = kGapChar;
  return t;
}
const std::array<uint8_t, 256> kClass = make_classes();

}  // namespace

FastaReader::FastaReader(const std::string& path) : in_(std::make_unique<LineReader>(path)) {}
FastaReader::~FastaReader() = default;

bool FastaReader::next(FastaRecord& rec) {
  std::string_view line;
  // Skip blank lines before the header; anything else before '>' is an error.
  while (true) {
    if (!in_->next(line)) return false;
    if (!line.empty()) break;
  }
  const auto where = [&] { return "FASTA '" + in_->path() + "' line " + std::to_string(in_->line_number()); };
  if (line[0] != '>') throw FormatError(where() + ": expected a '>' header line");
  size_t end = 1;
  while (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end]))) ++end;
  rec.name.assign(line.substr(1, end - 1));
  if (rec.name.empty()) throw FormatError(where() + ": header has no sequence name");
  if (!names_.insert(rec.name).second) {
    throw FormatError(where() + ": duplicate sequence name '" + rec.name + "'");
  }
  const int64_t header_line = in_->line_number();
  rec.seq.clear();
  while (in_->peek(line) && (line.empty() || line[0] != '>')) {
    in_->next(line);
    const size_t old = rec.seq.size();
    rec.seq.resize(old + line.size());
    char* out = &rec.seq[old];
    for (char c : line) {
      switch (kClass[static_cast<unsigned char>(c)]) {
        case kUpperBase:
          *out++ = c;
          stats_.n_bases += c == 'N';
          break;
        case kLowerBase:
          *out++ = static_cast<char>(c - 32);
          ++stats_.lowercase_bases;
          stats_.n_bases += c == 'n';
          break;
        case kLowerOther:
          ++stats_.lowercase_bases;
          [[fallthrough]];
        case kUpperOther:
        case kGapChar:
          *out++ = 'N';
          ++stats_.iupac_to_n;
          ++stats_.n_bases;
          break;
        case kSpace:
          break;
        default:
          throw FormatError(where() + ": invalid character '" + std::string(1, c) + "' in sequence '" + rec.name +
                            "'");
      }
    }
    rec.seq.resize(static_cast<size_t>(out - rec.seq.data()));
  }
  if (rec.seq.empty()) {
    throw FormatError("FASTA '" + in_->path() + "' line " + std::to_string(header_line) + ": sequence '" +
                      rec.name + "' is empty");
  }
  ++stats_.contigs;
  stats_.bases += static_cast<int64_t>(rec.seq.size());
  return true;
}

std::vector<FastaRecord> read_fasta(const std::string& path, FastaStats* stats) {
  FastaReader reader(path);
  std::vector<FastaRecord> out;
  FastaRecord rec;
  while (reader.next(rec)) out.push_back(std::move(rec));
  if (out.empty()) throw FormatError("FASTA '" + path + "': no sequences");
  if (stats) *stats = reader.stats();
  return out;
}

void write_fasta(const std::string& path, const std::vector<FastaRecord>& records, int width) {
  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  OutputFile out(path);
  BGZF* fp = bgzf_open(out.write_path().c_str(), gz ? "w" : "wu");
  if (!fp) throw IoError("cannot write '" + path + "'");
  std::string buf;
  bool ok = true;
  for (const auto& r : records) {
    buf.clear();
    buf += '>';
    buf += r.name;
    buf += '\n';
    for (size_t i = 0; i < r.seq.size(); i += width) {
      buf.append(r.seq, i, width);
      buf += '\n';
    }
    ok = ok && bgzf_write(fp, buf.data(), buf.size()) == static_cast<ssize_t>(buf.size());
  }
  ok = (bgzf_close(fp) == 0) && ok;
  if (!ok) throw IoError("write to '" + path + "' failed (disk full?)");
  out.commit();
}

}  // namespace gatemap::io

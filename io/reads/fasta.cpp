#include "io/reads/fasta.hpp"

#include <htslib/bgzf.h>
#include <omp.h>

#include <array>
#include <cctype>
#include <cstring>
#include <set>
#include <string_view>

#include "common/error.hpp"
#include "io/output_file.hpp"
#include "io/reads/input_stream.hpp"
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

namespace {

// What FastaReader::next makes of each byte of a sequence line, as lookup tables
// (branch-free: the parallel reader's loop runs at memory speed).
struct ByteRules {
  std::array<char, 256> out{};         // the base written
  std::array<uint8_t, 256> keep{}, lower{}, iupac{}, n_after{}, invalid{};
  ByteRules() {
    for (int c = 0; c < 256; ++c) {
      const uint8_t k = kClass[c];
      keep[c] = k != kSpace && k != kInvalid;
      out[c] = k == kUpperBase ? static_cast<char>(c) : k == kLowerBase ? static_cast<char>(c - 32) : 'N';
      lower[c] = k == kLowerBase || k == kLowerOther;
      iupac[c] = k == kUpperOther || k == kLowerOther || k == kGapChar;
      n_after[c] = keep[c] && out[c] == 'N';
      invalid[c] = k == kInvalid && c != '\n';
    }
  }
};
const ByteRules kRules;

// Bytes of sequence text converted as FastaReader::next converts its lines ('\n'
// skipped too): false at a byte it refuses. out == nullptr: only counted (into *bases).
bool convert_sequence(const char* in, size_t n, char* out, size_t* bases, FastaStats& st) {
  const ByteRules& r = kRules;
  size_t k = 0;
  uint8_t bad = 0;
  if (!out) {
    for (size_t i = 0; i < n; ++i) {
      const auto c = static_cast<unsigned char>(in[i]);
      k += r.keep[c], bad |= r.invalid[c];
    }
  } else {
    int64_t lower = 0, iupac = 0, n_after = 0;
    for (size_t i = 0; i < n; ++i) {
      const auto c = static_cast<unsigned char>(in[i]);
      if (r.keep[c]) out[k++] = r.out[c];
      bad |= r.invalid[c];
      lower += r.lower[c], iupac += r.iupac[c], n_after += r.n_after[c];
    }
    st.lowercase_bases += lower, st.iupac_to_n += iupac, st.n_bases += n_after;
  }
  if (bases) *bases = k;
  return bad == 0;
}

// The whole file on every thread the caller's team has: records found by their '>'
// lines, their text converted in pieces (counted, then written in place). Empty (the
// caller then reads it with FastaReader, which names what it refuses) for compressed
// input, or anything FastaReader would refuse or treat differently.
std::vector<FastaRecord> read_fasta_parallel(const std::string& path, FastaStats& stats) {
  std::vector<FastaRecord> out;
  if (omp_get_max_threads() < 2) return out;  // two passes over the text: the stream is faster alone
  const InputStream file(path);  // a plain regular file mapped (its gzip check, its bus-error message)
  const std::string_view text = file.mapped();
  if (text.empty()) return out;
  const char* d = text.data();
  const size_t n = text.size();
  struct Piece {
    size_t record, begin, end, bases = 0, at = 0;
    FastaStats stats;
  };
  std::vector<Piece> pieces;
  std::vector<std::string_view> names;
  std::set<std::string_view> seen;
  // Every '>' of the file, found on every thread (the first touch of its pages).
  constexpr size_t kPiece = size_t{8} << 20;
  const size_t chunks = (n + kPiece - 1) / kPiece;
  std::vector<std::vector<size_t>> found(chunks);
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t c = 0; c < chunks; ++c) {
    const size_t end = std::min(n, (c + 1) * kPiece);
    for (size_t at = c * kPiece; at < end;) {
      const char* gt = static_cast<const char*>(memchr(d + at, '>', end - at));
      if (!gt) break;
      at = static_cast<size_t>(gt - d);
      found[c].push_back(at++);
    }
  }
  std::vector<size_t> starts;
  for (const auto& in_chunk : found) starts.insert(starts.end(), in_chunk.begin(), in_chunk.end());
  starts.push_back(n);
  size_t pos = 0;
  while (pos < n && d[pos] == '\n') ++pos;  // blank lines before the first record
  for (size_t s = 0; pos < n;) {
    if (d[pos] != '>') return {};
    const char* eol = static_cast<const char*>(memchr(d + pos, '\n', n - pos));
    const size_t body = eol ? static_cast<size_t>(eol - d) + 1 : n;
    size_t name_end = pos + 1;
    while (name_end < body && !std::isspace(static_cast<unsigned char>(d[name_end]))) ++name_end;
    const std::string_view name(d + pos + 1, name_end - pos - 1);
    if (name.empty() || !seen.insert(name).second) return {};
    // The next record: the next '>' past the header line, which must start a line.
    while (starts[s] < body) ++s;
    const size_t next = starts[s];
    if (next < n && d[next - 1] != '\n') return {};
    size_t b = body;
    do {  // an empty sequence is one empty piece (refused below)
      pieces.push_back({names.size(), b, std::min(next, b + kPiece), 0, 0, FastaStats{}});
      b += kPiece;
    } while (b < next);
    names.push_back(name);
    pos = next;
  }
  if (names.empty()) return {};
  bool ok = true;
#pragma omp parallel for schedule(dynamic, 1) reduction(&& : ok)
  for (size_t i = 0; i < pieces.size(); ++i) {
    ok = convert_sequence(d + pieces[i].begin, pieces[i].end - pieces[i].begin, nullptr, &pieces[i].bases,
                          pieces[i].stats) && ok;
  }
  if (!ok) return {};
  out.resize(names.size());
  std::vector<size_t> length(names.size(), 0);
  for (Piece& p : pieces) p.at = length[p.record], length[p.record] += p.bases;
  for (size_t r = 0; r < names.size(); ++r) {
    if (length[r] == 0) return {};  // an empty sequence
    out[r].name.assign(names[r]);
  }
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t r = 0; r < names.size(); ++r) out[r].seq.resize(length[r]);
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t i = 0; i < pieces.size(); ++i) {
    Piece& p = pieces[i];
    convert_sequence(d + p.begin, p.end - p.begin, &out[p.record].seq[p.at], nullptr, p.stats);
  }
  for (const Piece& p : pieces) {
    stats.n_bases += p.stats.n_bases, stats.lowercase_bases += p.stats.lowercase_bases;
    stats.iupac_to_n += p.stats.iupac_to_n, stats.bases += static_cast<int64_t>(p.bases);
  }
  stats.contigs = static_cast<int64_t>(out.size());
  return out;
}

}  // namespace

std::vector<FastaRecord> read_fasta(const std::string& path, FastaStats* stats) {
  FastaStats parallel_stats;
  std::vector<FastaRecord> parallel = read_fasta_parallel(path, parallel_stats);
  if (!parallel.empty()) {
    if (stats) *stats = parallel_stats;
    return parallel;
  }
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

#include "io/reads/fastq.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <functional>
#include <future>
#include <iterator>

#include "common/dna.hpp"
#include "common/error.hpp"
#include "common/split_threads.hpp"
#include "io/reads/aligned_reads.hpp"
#include "io/reads/line_reader.hpp"
#include "io/reads/sam_reader.hpp"

namespace gatemap::io {
namespace {

// The header line's first word, a trailing "/1" or "/2" removed, and what follows it
// after the separating whitespace (the comment).
// The C locale's isspace, inline (it is called for every header character).
bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

void split_header(std::string_view header, std::string& name, std::string& comment, std::string& suffix) {
  size_t end = 1;
  while (end < header.size() && !is_space(header[end])) ++end;
  name.assign(header.substr(1, end - 1));
  suffix.clear();
  if (name.size() > 2 && name[name.size() - 2] == '/' && (name.back() == '1' || name.back() == '2')) {
    suffix.assign(name, name.size() - 2, 2);
    name.resize(name.size() - 2);
  }
  while (end < header.size() && is_space(header[end])) ++end;
  comment.assign(header.substr(end));
}

// What a read's base character becomes: A, C, G, T, or N for any other letter or '.';
// 0 for characters that are no base.
const auto kReadBase = [] {
  std::array<char, 256> t{};
  for (int c = 0; c < 256; ++c) {
    if (std::isalpha(c) || c == '.') t[c] = kCodeToAscii[base_code(static_cast<char>(c))];
  }
  return t;
}();

}  // namespace

namespace {
std::string where(const std::string& path, int64_t record, const std::string& name, int64_t line) {
  return "FASTQ '" + path + "' record " + std::to_string(record) +
         (name.empty() ? std::string() : " ('" + name + "')") + " line " + std::to_string(line);
}

void append_bases(std::string& seq, std::string_view bases, const std::function<std::string()>& at) {
  const size_t from = seq.size();
  seq.resize(from + bases.size());
  char* out = seq.data() + from;
  bool bad = false;  // looked for after the loop, which then has no branch
  for (size_t i = 0; i < bases.size(); ++i) {
    const char b = kReadBase[static_cast<unsigned char>(bases[i])];
    out[i] = b;
    bad |= b == 0;
  }
  if (!bad) return;
  for (size_t i = 0; i < bases.size(); ++i) {
    if (!kReadBase[static_cast<unsigned char>(bases[i])]) {
      throw FormatError(at() + ": invalid base '" + std::string(1, bases[i]) + "' at position " +
                        std::to_string(from + i + 1));
    }
  }
}

// A FASTQ record's content checked and converted into `read`.
void convert(const RawRecords& in, const RawRecords::Record& raw, Read& read) {
  const std::string_view text(in.text);
  const auto at = [&](const std::string& name, int64_t line) { return where(*in.path, raw.record, name, line); };
  split_header(text.substr(raw.header, raw.header_len), read.name, read.comment, read.mate_suffix);
  if (read.name.empty()) throw FormatError(at("", raw.header_line) + ": record has no name");
  if (read.name.size() > 254) {
    throw FormatError(at("", raw.header_line) + ": read name longer than 254 characters (SAM's limit)");
  }
  read.seq.clear();
  append_bases(read.seq, text.substr(raw.seq, raw.seq_len), [&] { return at(read.name, raw.seq_line); });
  const std::string_view qual = text.substr(raw.qual, raw.qual_len);
  if (qual.size() != read.seq.size()) {
    throw FormatError(at(read.name, raw.qual_line) + ": quality length " + std::to_string(qual.size()) +
                      " != sequence length " + std::to_string(read.seq.size()));
  }
  bool bad = false;
  for (const char q : qual) bad |= q < '!' || q > '~';
  for (size_t i = 0; bad && i < qual.size(); ++i) {
    if (qual[i] < '!' || qual[i] > '~') {
      throw FormatError(at(read.name, raw.qual_line) + ": quality character (code " +
                        std::to_string(static_cast<unsigned char>(qual[i])) + ") at position " + std::to_string(i + 1) +
                        " is outside Phred+33");
    }
  }
  read.qual.assign(qual);
}
}  // namespace

size_t RawRecords::bases(size_t i) const {
  const Record& r = records[i];
  return r.fasta >= 0 ? fasta_reads[static_cast<size_t>(r.fasta)].seq.size() : r.seq_len;
}

void RawRecords::clear() {
  text.clear();
  records.clear();
  fasta_reads.clear();
  error = nullptr;
}

void RawRecords::move_tail(size_t first, RawRecords& to) {
  if (first < records.size()) to.path = path;
  for (size_t i = first; i < records.size(); ++i) {
    Record r = records[i];
    const auto copy = [&](size_t& offset, size_t len) {
      const size_t from = offset;
      offset = to.text.size();
      to.text.append(text, from, len);
    };
    if (r.fasta >= 0) {
      to.fasta_reads.push_back(std::move(fasta_reads[static_cast<size_t>(r.fasta)]));
      r.fasta = static_cast<int32_t>(to.fasta_reads.size() - 1);
    } else {
      copy(r.header, r.header_len);
      copy(r.seq, r.seq_len);
      copy(r.qual, r.qual_len);
    }
    to.records.push_back(r);
  }
  if (first == 0) {
    clear();
  } else {
    records.resize(std::min(first, records.size()));
  }
}

FastqReader::FastqReader(const std::string& path, int threads) : in_(std::make_unique<LineReader>(path, threads)) {}
FastqReader::~FastqReader() = default;
const std::string& FastqReader::path() const { return in_->path(); }
double FastqReader::fraction_read() const { return in_->fraction_read(); }

double FastqSource::fraction_read() const {
  const double one = mate1_ ? mate1_->fraction_read() : -1, two = mate2_ ? mate2_->fraction_read() : one;
  return one < 0 || two < 0 ? -1 : std::min(one, two);
}

bool FastqReader::cut_one(RawRecords& out) {
  std::string_view line;
  // Blank lines between records (e.g. a trailing newline) are tolerated.
  do {
    if (!in_->next(line)) return false;
  } while (line.empty());
  RawRecords::Record raw;
  raw.record = ++records_;
  raw.header_line = in_->line_number();
  const auto at = [&](const std::string& name) { return where(in_->path(), raw.record, name, in_->line_number()); };
  if (raw.record == 1 && (line.rfind("BAM\1", 0) == 0 || line.rfind("CRAM", 0) == 0 || line.rfind("@HD\t", 0) == 0 ||
                          line.rfind("@SQ\t", 0) == 0)) {  // read as FASTQ only from a pipe
    throw FormatError(at("") + ": SAM/BAM/CRAM, which map reads from a file, not a pipe (or pipe FASTQ: samtools fastq)");
  }
  if (line[0] != '@' && line[0] != '>') throw FormatError(at("") + ": expected '@' or '>' at the start of a record");
  if (line[0] == '>') {  // sequence lines up to the next record ('>' or '@': never a base)
    Read fasta;
    split_header(line, fasta.name, fasta.comment, fasta.mate_suffix);
    if (fasta.name.empty()) throw FormatError(at("") + ": record has no name");
    if (fasta.name.size() > 254) throw FormatError(at("") + ": read name longer than 254 characters (SAM's limit)");
    while (in_->peek(line) && (line.empty() || (line[0] != '>' && line[0] != '@'))) {
      in_->next(line);
      append_bases(fasta.seq, line, [&] { return at(fasta.name); });
    }
    raw.fasta = static_cast<int32_t>(out.fasta_reads.size());
    out.fasta_reads.push_back(std::move(fasta));
    out.records.push_back(raw);
    return true;
  }
  const auto keep = [&](std::string_view l, size_t& offset, size_t& len) {
    offset = out.text.size(), len = l.size();
    out.text.append(l);
  };
  keep(line, raw.header, raw.header_len);
  // The name for messages about the record's structure (content is checked in convert).
  const auto named = [&] {
    std::string name, comment, suffix;
    split_header(std::string_view(out.text).substr(raw.header, raw.header_len), name, comment, suffix);
    return at(name);
  };
  if (!in_->next(line)) throw FormatError(named() + ": truncated record (no sequence line)");
  raw.seq_line = in_->line_number();
  keep(line, raw.seq, raw.seq_len);
  if (!in_->next(line)) throw FormatError(named() + ": truncated record (no '+' line)");
  if (line.empty() || line[0] != '+') throw FormatError(named() + ": missing '+' separator line");
  if (!in_->next(line)) throw FormatError(named() + ": truncated record (no quality line)");
  raw.qual_line = in_->line_number();
  keep(line, raw.qual, raw.qual_len);
  out.records.push_back(raw);
  return true;
}

bool FastqReader::cut_plain(RawRecords& out) {
  const std::string_view rest = in_->rest();
  // The first record goes through cut_one, which tells SAM/BAM/CRAM text from FASTQ.
  if (rest.empty() || rest[0] != '@' || records_ == 0) return false;
  size_t begin[4], end[4];  // each line's bytes, its '\r' left out (as LineReader does)
  size_t at = 0;
  for (int i = 0; i < 4; ++i) {
    const void* nl = std::memchr(rest.data() + at, '\n', rest.size() - at);
    if (!nl) return false;  // the file's last line without its newline
    begin[i] = at;
    end[i] = static_cast<size_t>(static_cast<const char*>(nl) - rest.data());
    at = end[i] + 1;
    if (end[i] > begin[i] && rest[end[i] - 1] == '\r') --end[i];
  }
  if (end[2] == begin[2] || rest[begin[2]] != '+') return false;  // cut_one says what is wrong
  RawRecords::Record raw;
  raw.record = ++records_;
  raw.header_line = in_->line_number() + 1;
  raw.seq_line = raw.header_line + 1;
  raw.qual_line = raw.header_line + 3;
  const auto keep = [&](int i, size_t& offset, size_t& len) {
    offset = out.text.size(), len = end[i] - begin[i];
    out.text.append(rest.data() + begin[i], len);
  };
  keep(0, raw.header, raw.header_len);
  keep(1, raw.seq, raw.seq_len);
  keep(3, raw.qual, raw.qual_len);
  out.records.push_back(raw);
  in_->consume(at, 4);
  return true;
}

size_t FastqReader::cut_many(RawRecords& out, size_t want) {
  out.path = &in_->path();
  size_t n = 0;
  try {
    while (n < want && (cut_plain(out) || cut_one(out))) ++n;
  } catch (...) {  // a malformed record ends the cut; those before it are checked first
    out.error = std::current_exception();
  }
  return n;
}

void FastqReader::convert_many(RawRecords& in, std::vector<Read>& out, size_t first, size_t stride, int threads) {
  const size_t n = in.size();
  if (n > 0 && out.size() < first + stride * (n - 1) + 1) out.resize(first + stride * (n - 1) + 1);
  // Records converted in parts, in file order: the first part's error is the first.
  split_threads(n, n > 1024 ? threads : 1, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const RawRecords::Record& r = in.records[i];
      Read& read = out[first + stride * i];
      if (r.fasta >= 0) {
        std::swap(read, in.fasta_reads[static_cast<size_t>(r.fasta)]);
      } else {
        convert(in, r, read);
      }
    }
  });
  if (in.error) std::rethrow_exception(in.error);
}

bool FastqReader::next(Read& read) {
  raw_.clear();
  if (!cut_one(raw_)) return false;
  raw_.path = &in_->path();
  const RawRecords::Record& r = raw_.records[0];
  if (r.fasta >= 0) {
    std::swap(read, raw_.fasta_reads[0]);
  } else {
    convert(raw_, r, read);
  }
  return true;
}

size_t FastqReader::next_many(std::vector<Read>& out, size_t want, int threads) {
  raw_.clear();
  const size_t n = cut_many(raw_, want);
  if (out.size() < want) out.resize(want);
  convert_many(raw_, out, 0, 1, threads);
  return n;
}

FastqSource::FastqSource(const std::string& path1, const std::string& path2, bool smart_pairing, int threads,
                         const std::string& reference, bool keep_tags)
    : smart_pairing_(smart_pairing), parse_threads_(std::max(1, omp_get_max_threads() / 2)) {
  if (SamReader::is_sam_bam_cram(path1)) {
    if (!path2.empty()) throw UsageError("reads from SAM/BAM/CRAM come in one file: '" + path2 + "' is one too many");
    auto aligned = std::make_unique<AlignedReads>(path1, threads, reference, keep_tags);
    read_groups_ = aligned->read_groups();
    comment_lines_ = aligned->comment_lines();
    mate1_ = std::move(aligned);
    smart_pairing_ = true;  // mates next to each other, as a collated or unmapped BAM has them
    return;
  }
  auto text = std::make_unique<FastqReader>(path1, threads);
  text1_ = text.get();
  mate1_ = std::move(text);
  if (smart_pairing && !path2.empty()) throw UsageError("interleaved pairs (-p) come in one file, not two");
  if (!path2.empty()) mate2_ = std::make_unique<FastqReader>(path2, threads);
}

// One file of pairs among single reads, as bwa mem -p pairs them: records parsed in
// bulk, then grouped; the last record parsed waits in ahead_ for the next call unless
// the file has ended, since its mate may come first in the next stretch.
bool FastqSource::next_batch_smart(ReadBatch& pairs, SinglesAmongPairs& singles, size_t max_records,
                                   size_t max_bases) {
  const size_t max_reads = std::max<size_t>(max_records, 2);
  if (!at_end_ && ahead_.size() < max_reads + 1) {
    const size_t want = max_reads + 1 - ahead_.size();
    const size_t n = mate1_->next_many(first_, want, 2 * parse_threads_);
    at_end_ = n < want;
    for (size_t i = 0; i < n; ++i) ahead_.push_back(std::move(first_[i]));
  }
  pairs.reads.clear();
  pairs.paired = true;
  pairs.first_id = fragments_;
  singles.reads.reads.clear();
  singles.reads.paired = false;
  singles.single.clear();
  size_t taken = 0, bases = 0;
  while (taken < ahead_.size() && taken < max_reads && bases < max_bases) {
    const bool has_next = taken + 1 < ahead_.size();
    if (!has_next && !at_end_) break;  // its mate may be the next record read
    if (has_next && ahead_[taken].name == ahead_[taken + 1].name) {
      if (taken + 2 > max_reads && taken > 0) break;  // a pair is never split between batches
      const bool second_first = (ahead_[taken].mate == 2 && ahead_[taken + 1].mate == 1) ||
                                (ahead_[taken].mate_suffix == "/2" && ahead_[taken + 1].mate_suffix == "/1");
      if (second_first) std::swap(ahead_[taken], ahead_[taken + 1]);
      bases += ahead_[taken].seq.size() + ahead_[taken + 1].seq.size();
      pairs.reads.push_back(std::move(ahead_[taken]));
      pairs.reads.push_back(std::move(ahead_[taken + 1]));
      singles.single.push_back(0);
      taken += 2;
    } else {
      if (ahead_[taken].mate != 0) {  // SAM/BAM flags it a mate: its mate is elsewhere in the file
        throw FormatError("'" + mate1_->path() + "': read '" + ahead_[taken].name +
                          "' is flagged as one of a pair but its mate is not next to it: group the mates first "
                          "(samtools collate -o grouped.bam '" + mate1_->path() + "')");
      }
      bases += ahead_[taken].seq.size();
      singles.reads.reads.push_back(std::move(ahead_[taken]));
      singles.single.push_back(1);
      taken += 1;
    }
  }
  ahead_.erase(ahead_.begin(), ahead_.begin() + static_cast<std::ptrdiff_t>(taken));
  singles.reads.first_id = fragments_ + static_cast<int64_t>(pairs.reads.size() / 2);
  fragments_ += static_cast<int64_t>(singles.single.size());
  return !singles.single.empty();
}

}  // namespace gatemap::io

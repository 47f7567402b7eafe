#include "io/fastq.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <future>
#include <iterator>

#include "common/dna.hpp"
#include "common/error.hpp"
#include "common/split_threads.hpp"
#include "io/aligned_reads.hpp"
#include "io/sam_reader.hpp"
#include "io/line_reader.hpp"

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

// A record's lines (offsets into FastqReader::text_) and where they were, for messages.
struct FastqReader::RawRecord {
  int64_t record = 0, header_line = 0, seq_line = 0, qual_line = 0;
  size_t header = 0, header_len = 0, seq = 0, seq_len = 0, qual = 0, qual_len = 0;
  bool fasta = false;  // already converted by read_raw
};

namespace {
std::string where(const std::string& path, int64_t record, const std::string& name, int64_t line) {
  return "FASTQ '" + path + "' record " + std::to_string(record) +
         (name.empty() ? std::string() : " ('" + name + "')") + " line " + std::to_string(line);
}

void append_bases(std::string& seq, std::string_view bases, const std::function<std::string()>& at) {
  const size_t from = seq.size();
  seq.resize(from + bases.size());
  for (size_t i = 0; i < bases.size(); ++i) {
    const char b = kReadBase[static_cast<unsigned char>(bases[i])];
    if (!b) {
      throw FormatError(at() + ": invalid base '" + std::string(1, bases[i]) + "' at position " +
                        std::to_string(from + i + 1));
    }
    seq[from + i] = b;
  }
}
}  // namespace

FastqReader::FastqReader(const std::string& path, int threads) : in_(std::make_unique<LineReader>(path, threads)) {}
FastqReader::~FastqReader() = default;
const std::string& FastqReader::path() const { return in_->path(); }

bool FastqReader::read_raw(RawRecord& raw, Read& fasta) {
  std::string_view line;
  // Blank lines between records (e.g. a trailing newline) are tolerated.
  do {
    if (!in_->next(line)) return false;
  } while (line.empty());
  raw.record = ++records_;
  raw.header_line = in_->line_number();
  const auto at = [&](const std::string& name) { return where(in_->path(), raw.record, name, in_->line_number()); };
  if (raw.record == 1 && (line.rfind("BAM\1", 0) == 0 || line.rfind("CRAM", 0) == 0 || line.rfind("@HD\t", 0) == 0 ||
                          line.rfind("@SQ\t", 0) == 0)) {  // read as FASTQ only from a pipe
    throw FormatError(at("") + ": SAM/BAM/CRAM, which map reads from a file, not a pipe (or pipe FASTQ: samtools fastq)");
  }
  if (line[0] != '@' && line[0] != '>') throw FormatError(at("") + ": expected '@' or '>' at the start of a record");
  const auto keep = [&](std::string_view l, size_t& offset, size_t& len) {
    offset = text_.size(), len = l.size();
    text_.append(l);
  };
  raw.fasta = line[0] == '>';
  if (raw.fasta) {  // sequence lines up to the next record ('>' or '@': never a base)
    split_header(line, fasta.name, fasta.comment, fasta.mate_suffix);
    if (fasta.name.empty()) throw FormatError(at("") + ": record has no name");
    if (fasta.name.size() > 254) throw FormatError(at("") + ": read name longer than 254 characters (SAM's limit)");
    fasta.seq.clear();
    fasta.qual.clear();
    while (in_->peek(line) && (line.empty() || (line[0] != '>' && line[0] != '@'))) {
      in_->next(line);
      append_bases(fasta.seq, line, [&] { return at(fasta.name); });
    }
    return true;
  }
  keep(line, raw.header, raw.header_len);
  // The name for messages about the record's structure (content is checked in convert).
  const auto named = [&] {
    std::string name, comment, suffix;
    split_header(std::string_view(text_).substr(raw.header, raw.header_len), name, comment, suffix);
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
  return true;
}

void FastqReader::convert(const RawRecord& raw, Read& read) const {
  const std::string_view text(text_);
  const auto at = [&](const std::string& name, int64_t line) { return where(in_->path(), raw.record, name, line); };
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
  for (size_t i = 0; i < qual.size(); ++i) {
    if (qual[i] < '!' || qual[i] > '~') {
      throw FormatError(at(read.name, raw.qual_line) + ": quality character (code " +
                        std::to_string(static_cast<unsigned char>(qual[i])) + ") at position " + std::to_string(i + 1) +
                        " is outside Phred+33");
    }
  }
  read.qual.assign(qual);
}

bool FastqReader::next(Read& read) {
  if (raw_.empty()) raw_.resize(1);
  text_.clear();
  if (!read_raw(raw_[0], read)) return false;
  if (!raw_[0].fasta) convert(raw_[0], read);
  return true;
}

size_t FastqReader::next_many(std::vector<Read>& out, size_t want, int threads) {
  if (out.size() < want) out.resize(want);
  if (raw_.size() < want) raw_.resize(want);
  text_.clear();
  // Lines split here; a malformed record ends the batch, but records before it are
  // checked first, so the error reported is the first in the file.
  size_t n = 0;
  std::exception_ptr structure_error;
  try {
    while (n < want && read_raw(raw_[n], out[n])) ++n;
  } catch (const FormatError&) {
    structure_error = std::current_exception();
  }
  // Records converted in parts, in file order: the first part's error is the first.
  split_threads(n, n > 1024 ? threads : 1, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      if (!raw_[i].fasta) convert(raw_[i], out[i]);
    }
  });
  if (structure_error) std::rethrow_exception(structure_error);
  return n;
}

FastqSource::FastqSource(const std::string& path1, const std::string& path2, bool smart_pairing, int threads,
                         const std::string& reference)
    : smart_pairing_(smart_pairing), parse_threads_(std::max(1, omp_get_max_threads() / 2)) {
  if (SamReader::is_sam_bam_cram(path1)) {
    if (!path2.empty()) throw UsageError("reads from SAM/BAM/CRAM come in one file: '" + path2 + "' is one too many");
    auto aligned = std::make_unique<AlignedReads>(path1, threads, reference);
    read_groups_ = aligned->read_groups();
    mate1_ = std::move(aligned);
    smart_pairing_ = true;  // mates next to each other, as a collated or unmapped BAM has them
    return;
  }
  mate1_ = std::make_unique<FastqReader>(path1, threads);
  if (smart_pairing && !path2.empty()) throw UsageError("interleaved pairs (-p) come in one file, not two");
  if (!path2.empty()) mate2_ = std::make_unique<FastqReader>(path2, threads);
}

bool FastqSource::next_batch(ReadBatch& batch, size_t max_records, size_t max_bases, SinglesAmongPairs* singles) {
  if (smart_pairing_) {
    if (!singles) throw Error("internal: smart pairing reads single reads too");
    return next_batch_smart(batch, *singles, max_records, max_bases);
  }
  if (!mate2_) return next_batch_single(batch, max_records, max_bases);
  // Mate 2's file is parsed on a thread of its own while this one parses mate 1's.
  const size_t want = std::max<size_t>(max_records, 2) / 2 - ahead_.size() / 2;
  // Records are parsed into reused Read objects (first_, second_) and swapped into the
  // batch, whose previous records come back for the next parse: no allocation per read.
  const int threads = parse_threads_;
  const auto read_up_to = [want, threads](ReadRecords& in, std::vector<Read>& out) {
    return in.next_many(out, want, threads);
  };
  auto other = std::async(std::launch::async, read_up_to, std::ref(*mate2_), std::ref(second_));
  size_t n1 = 0;
  try {
    n1 = read_up_to(*mate1_, first_);
  } catch (...) {
    other.wait();
    throw;
  }
  const size_t n2 = other.get();
  for (size_t i = 0; i < std::min(n1, n2); ++i) {
    if (first_[i].name != second_[i].name) {
      throw FormatError("FASTQ '" + mate2_->path() + "' record " +
                        std::to_string(mate2_->records_read() - static_cast<int64_t>(n2 - i) + 1) + ": mate name '" +
                        second_[i].name + "' does not match '" + first_[i].name + "' in '" + mate1_->path() + "'");
    }
  }
  if (n1 != n2) {
    const bool longer1 = n1 > n2;
    const auto& longer = longer1 ? *mate1_ : *mate2_;
    const auto& shorter = longer1 ? *mate2_ : *mate1_;
    throw FormatError("FASTQ '" + shorter.path() + "' ends after " + std::to_string(shorter.records_read()) +
                      " records but its mate file '" + longer.path() + "' has more");
  }
  // The batch: as the serial reader would cut it (records, then bases).
  batch.first_id = fragments_;
  batch.paired = true;
  const size_t max_reads = std::max<size_t>(max_records, 2);
  const auto keep_ahead = [&](size_t from) {  // parsed pairs [from, n1) wait for a later batch
    for (size_t i = from; i < n1; ++i) {
      ahead_.push_back(std::move(first_[i]));
      ahead_.push_back(std::move(second_[i]));
    }
  };
  size_t taken = 0, bases = 0;
  if (ahead_.empty()) {  // the usual case: this parse fills the batch
    while (taken / 2 < n1 && taken + 2 <= max_reads && bases < max_bases) {
      bases += first_[taken / 2].seq.size() + second_[taken / 2].seq.size();
      taken += 2;
    }
    batch.reads.resize(taken);
    for (size_t i = 0; i < taken / 2; ++i) {
      std::swap(batch.reads[2 * i], first_[i]);
      std::swap(batch.reads[2 * i + 1], second_[i]);
    }
    keep_ahead(taken / 2);  // past the batch's bases
  } else {
    keep_ahead(0);
    while (taken + 2 <= ahead_.size() && taken + 2 <= max_reads && bases < max_bases) {
      bases += ahead_[taken].seq.size() + ahead_[taken + 1].seq.size();
      taken += 2;
    }
    batch.reads.assign(std::make_move_iterator(ahead_.begin()), std::make_move_iterator(ahead_.begin() + taken));
    ahead_.erase(ahead_.begin(), ahead_.begin() + taken);
  }
  fragments_ += static_cast<int64_t>(taken / 2);
  return !batch.reads.empty();
}

// One file of single reads, parsed on both files' threads and cut as a serial reader
// cuts it (records parsed past max_bases wait in ahead_ for the next batch).
bool FastqSource::next_batch_single(ReadBatch& batch, size_t max_records, size_t max_bases) {
  const size_t max_reads = std::max<size_t>(max_records, 1);
  const size_t n = mate1_->next_many(first_, max_reads - std::min(max_reads, ahead_.size()), 2 * parse_threads_);
  batch.first_id = fragments_;
  batch.paired = false;
  size_t taken = 0, bases = 0;
  if (ahead_.empty()) {  // the usual case: swapped in, no allocation per read
    while (taken < n && taken < max_reads && bases < max_bases) bases += first_[taken++].seq.size();
    batch.reads.resize(taken);
    for (size_t i = 0; i < taken; ++i) std::swap(batch.reads[i], first_[i]);
    for (size_t i = taken; i < n; ++i) ahead_.push_back(std::move(first_[i]));
  } else {
    for (size_t i = 0; i < n; ++i) ahead_.push_back(std::move(first_[i]));
    while (taken < ahead_.size() && taken < max_reads && bases < max_bases) bases += ahead_[taken++].seq.size();
    batch.reads.assign(std::make_move_iterator(ahead_.begin()), std::make_move_iterator(ahead_.begin() + taken));
    ahead_.erase(ahead_.begin(), ahead_.begin() + taken);
  }
  fragments_ += static_cast<int64_t>(taken);
  return !batch.reads.empty();
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
      if (ahead_[taken].mate == 2 && ahead_[taken + 1].mate == 1) std::swap(ahead_[taken], ahead_[taken + 1]);
      bases += ahead_[taken].seq.size() + ahead_[taken + 1].seq.size();
      pairs.reads.push_back(std::move(ahead_[taken]));
      pairs.reads.push_back(std::move(ahead_[taken + 1]));
      singles.single.push_back(0);
      taken += 2;
    } else {
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

#include "io/fastq.hpp"

#include <algorithm>
#include <cctype>

#include "common/dna.hpp"
#include "common/error.hpp"
#include "io/line_reader.hpp"

namespace gatemap::io {
namespace {

// The header line's first word, a trailing "/1" or "/2" removed, and what follows it
// after the separating whitespace (the comment).
void split_header(std::string_view header, std::string& name, std::string& comment) {
  size_t end = 1;
  while (end < header.size() && !std::isspace(static_cast<unsigned char>(header[end]))) ++end;
  name.assign(header.substr(1, end - 1));
  if (name.size() > 2 && name[name.size() - 2] == '/' && (name.back() == '1' || name.back() == '2')) {
    name.resize(name.size() - 2);
  }
  while (end < header.size() && std::isspace(static_cast<unsigned char>(header[end]))) ++end;
  comment.assign(header.substr(end));
}

}  // namespace

FastqReader::FastqReader(const std::string& path, int threads)
    : in_(std::make_unique<LineReader>(path, threads)) {}
FastqReader::~FastqReader() = default;
const std::string& FastqReader::path() const { return in_->path(); }

bool FastqReader::next(Read& read) {
  std::string_view line;
  // Blank lines between records (e.g. a trailing newline) are tolerated.
  do {
    if (!in_->next(line)) return false;
  } while (line.empty());
  const int64_t record = ++records_;
  const auto where = [&](const std::string& name) {
    return "FASTQ '" + in_->path() + "' record " + std::to_string(record) +
           (name.empty() ? std::string() : " ('" + name + "')") + " line " +
           std::to_string(in_->line_number());
  };
  if (line[0] != '@' && line[0] != '>') throw FormatError(where("") + ": expected '@' or '>' at the start of a record");
  const bool fasta = line[0] == '>';
  split_header(line, read.name, read.comment);
  if (read.name.empty()) throw FormatError(where("") + ": record has no name");
  if (read.name.size() > 254) throw FormatError(where("") + ": read name longer than 254 characters (SAM's limit)");
  read.seq.clear();
  const auto append_bases = [&](std::string_view bases) {
    for (size_t i = 0; i < bases.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(bases[i]);
      if (!std::isalpha(c) && c != '.') {
        throw FormatError(where(read.name) + ": invalid base '" + std::string(1, bases[i]) + "' at position " +
                          std::to_string(read.seq.size() + 1));
      }
      read.seq += kCodeToAscii[base_code(bases[i])];
    }
  };
  if (fasta) {  // sequence lines up to the next record ('>' or '@': never a base)
    read.qual.clear();
    while (in_->peek(line) && (line.empty() || (line[0] != '>' && line[0] != '@'))) {
      in_->next(line);
      append_bases(line);
    }
    return true;
  }
  if (!in_->next(line)) throw FormatError(where(read.name) + ": truncated record (no sequence line)");
  append_bases(line);
  if (!in_->next(line)) throw FormatError(where(read.name) + ": truncated record (no '+' line)");
  if (line.empty() || line[0] != '+') throw FormatError(where(read.name) + ": missing '+' separator line");
  if (!in_->next(line)) throw FormatError(where(read.name) + ": truncated record (no quality line)");
  if (line.size() != read.seq.size()) {
    throw FormatError(where(read.name) + ": quality length " + std::to_string(line.size()) +
                      " != sequence length " + std::to_string(read.seq.size()));
  }
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] < '!' || line[i] > '~') {
      throw FormatError(where(read.name) + ": quality character (code " +
                        std::to_string(static_cast<unsigned char>(line[i])) + ") at position " +
                        std::to_string(i + 1) + " is outside Phred+33");
    }
  }
  read.qual.assign(line);
  return true;
}

FastqSource::FastqSource(const std::string& path1, const std::string& path2, int threads, bool interleaved)
    : mate1_(std::make_unique<FastqReader>(path1, threads)), interleaved_(interleaved) {
  if (interleaved && !path2.empty()) throw UsageError("interleaved pairs come in one file, not two");
  if (!path2.empty()) mate2_ = std::make_unique<FastqReader>(path2, threads);
}

bool FastqSource::next_batch(ReadBatch& batch, size_t max_records, size_t max_bases) {
  batch.reads.clear();
  batch.first_id = fragments_;
  batch.paired = paired();
  size_t bases = 0;
  const size_t step = paired() ? 2 : 1;
  while (batch.reads.size() + step <= std::max(max_records, step) && bases < max_bases) {
    Read r1;
    const bool got1 = mate1_->next(r1);
    if (!paired()) {
      if (!got1) break;
      bases += r1.seq.size();
      batch.reads.push_back(std::move(r1));
      ++fragments_;
      continue;
    }
    if (interleaved_ && !got1) break;
    Read r2;
    FastqReader& second = interleaved_ ? *mate1_ : *mate2_;
    const bool got2 = second.next(r2);
    if (interleaved_ && !got2) {
      throw FormatError("interleaved FASTQ '" + second.path() + "' ends with an unpaired record " +
                        std::to_string(second.records_read()) + " ('" + r1.name + "')");
    }
    if (!got1 && !got2) break;
    if (got1 != got2) {
      const auto& longer = got1 ? *mate1_ : *mate2_;
      const auto& shorter = got1 ? *mate2_ : *mate1_;
      throw FormatError("FASTQ '" + shorter.path() + "' ends after " + std::to_string(shorter.records_read()) +
                        " records but its mate file '" + longer.path() + "' has more");
    }
    if (r1.name != r2.name) {
      throw FormatError("FASTQ '" + second.path() + "' record " + std::to_string(second.records_read()) +
                        ": mate name '" + r2.name + "' does not match '" + r1.name + "' in '" +
                        mate1_->path() + "'" + (interleaved_ ? " (interleaved pairs)" : ""));
    }
    bases += r1.seq.size() + r2.seq.size();
    batch.reads.push_back(std::move(r1));
    batch.reads.push_back(std::move(r2));
    ++fragments_;
  }
  return !batch.reads.empty();
}

}  // namespace gatemap::io

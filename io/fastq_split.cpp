// FastqReader::split_many: a batch's records found and converted on many threads at once.
// The unread bytes are cut into one part per thread at record starts; each thread splits
// its part's lines and converts its records while they are in its cache. Only plain
// 4-line records are taken here: a part stops at anything else, and the records from
// there on go through the record-by-record path, whose messages name the first problem
// in file order.
#include <algorithm>
#include <cstring>
#include <string_view>

#include "common/error.hpp"
#include "common/split_threads.hpp"
#include "io/fastq_raw.hpp"
#include "io/line_reader.hpp"

namespace gatemap::io {

namespace {
constexpr size_t kNone = std::string_view::npos;

struct Line {
  size_t begin = 0, len = 0, next = 0;  // [begin, begin + len) without '\n' or '\r'; the next line's start
};

// The line at `pos`; false past the end, or when it has no '\n' and more input follows.
bool line_at(std::string_view text, size_t pos, bool input_ends, Line& line) {
  if (pos >= text.size()) return false;
  const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
  if (!nl && !input_ends) return false;
  const size_t stop = nl ? static_cast<size_t>(static_cast<const char*>(nl) - text.data()) : text.size();
  line.begin = pos;
  line.len = stop - pos;
  line.next = nl ? stop + 1 : stop;
  if (line.len > 0 && text[stop - 1] == '\r') --line.len;
  return true;
}

// The first record start at or after `from`: a line beginning with '@' whose line two
// below begins with '+'. A quality line may begin with '@', but the line two below it is
// a sequence, which never begins with '+'. kNone if none within a few lines.
size_t record_start(std::string_view text, size_t from, bool input_ends) {
  size_t pos = from;
  if (pos > 0 && text[pos - 1] != '\n') {
    const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
    if (!nl) return kNone;
    pos = static_cast<size_t>(static_cast<const char*>(nl) - text.data()) + 1;
  }
  for (int tries = 0; tries < 8; ++tries) {
    Line a, b, c;
    if (!line_at(text, pos, input_ends, a) || !line_at(text, a.next, input_ends, b) ||
        !line_at(text, b.next, input_ends, c)) {
      return kNone;
    }
    if (a.len > 0 && text[a.begin] == '@' && c.len > 0 && text[c.begin] == '+') return pos;
    pos = a.next;
  }
  return kNone;
}
}  // namespace

size_t FastqReader::split_many(std::vector<Read>& out, size_t from, size_t want, int threads) {
  if (threads < 2 || want < from + 1024 || record_bytes_ <= 0) return from;
  // The bytes of about `want` records, a little over: a shortfall is read record by record.
  const std::string_view text = in_->unread(static_cast<size_t>(record_bytes_ * static_cast<double>(want - from) * 1.02) + 4096);
  const bool input_ends = in_->exhausted();
  const size_t base = in_->offset(text);  // the records' offsets count from the held lines
  const size_t n_parts = static_cast<size_t>(std::min(threads, 64));
  if (parts_.size() < n_parts) parts_.resize(n_parts);
  parts_[0].begin = 0;
  for (size_t p = 1; p < n_parts; ++p) {
    const size_t cut = record_start(text, text.size() * p / n_parts, input_ends);
    parts_[p].begin = std::max(cut == kNone ? text.size() : cut, parts_[p - 1].begin);
  }
  for (size_t p = 0; p < n_parts; ++p) parts_[p].end = p + 1 < n_parts ? parts_[p + 1].begin : text.size();

  split_threads(n_parts, static_cast<int>(n_parts), [&](size_t first, size_t last) {
    for (size_t p = first; p < last; ++p) {
      SplitPart& part = parts_[p];
      part.n = 0;
      size_t pos = part.begin;
      while (pos < part.end && part.n < want - from) {
        Line h, s, plus, q;
        if (!line_at(text, pos, input_ends, h) || !line_at(text, h.next, input_ends, s) ||
            !line_at(text, s.next, input_ends, plus) || !line_at(text, plus.next, input_ends, q) ||
            q.next > part.end || h.len == 0 || text[h.begin] != '@' || plus.len == 0 || text[plus.begin] != '+') {
          break;
        }
        if (part.raw.size() <= part.n) {
          part.raw.resize(part.n + 1);
          part.record_end.resize(part.n + 1);
          part.reads.resize(part.n + 1);
        }
        RawRecord& raw = part.raw[part.n];
        raw.header = base + h.begin, raw.header_len = h.len;
        raw.seq = base + s.begin, raw.seq_len = s.len;
        raw.qual = base + q.begin, raw.qual_len = q.len;
        raw.fasta = false;
        try {
          convert(raw, part.reads[part.n]);
        } catch (const FormatError&) {
          break;  // said, with its record number, by the record-by-record path
        }
        part.record_end[part.n++] = q.next;
        pos = q.next;
      }
      part.complete = pos == part.end;
    }
  });

  // The parts' records in file order, up to the first part that stopped short.
  size_t n = from, consumed = 0;
  for (size_t p = 0; p < n_parts && n < want; ++p) {
    SplitPart& part = parts_[p];
    for (size_t i = 0; i < part.n && n < want; ++i) {
      std::swap(out[n++], part.reads[i]);
      consumed = part.record_end[i];
    }
    if (!part.complete) break;
  }
  in_->skip(consumed, 4 * static_cast<int64_t>(n - from));
  records_ += static_cast<int64_t>(n - from);
  bytes_ += static_cast<int64_t>(consumed);
  return n;
}

}  // namespace gatemap::io

#include "io/reads/aligned_reads.hpp"

#include <algorithm>
#include <cstring>

#include "common/dna.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "common/split_threads.hpp"

namespace gatemap::io {

namespace {

// Tags an aligner writes anew (bwa's, and the mate's): an earlier alignment's are dropped.
// RG travels apart (checked against the header's @RG lines).
bool replaced_by_alignment(const uint8_t* tag) {
  static const char* const kAlignmentTags[] = {"NM", "MD", "AS", "XS", "XA", "SA", "MC", "MQ", "ms", "RG", "PG"};
  for (const char* t : kAlignmentTags) {
    if (tag[0] == t[0] && tag[1] == t[1]) return true;
  }
  return false;
}

// Bytes of one BAM tag's value (after its name and type) at `v`, or 0 when it runs past `end`.
size_t tag_value_bytes(char type, const uint8_t* v, const uint8_t* end) {
  switch (type) {
    case 'A': case 'c': case 'C': return 1;
    case 's': case 'S': return 2;
    case 'i': case 'I': case 'f': return 4;
    case 'd': return 8;
    case 'Z': case 'H': {
      const void* nul = std::memchr(v, 0, static_cast<size_t>(end - v));
      return nul ? static_cast<size_t>(static_cast<const uint8_t*>(nul) - v) + 1 : 0;
    }
    case 'B': {
      if (end - v < 5) return 0;
      const size_t each = tag_value_bytes(static_cast<char>(v[0]), v, end);
      uint32_t n = 0;
      std::memcpy(&n, v + 1, 4);
      return each == 0 || (v[0] == 'Z' || v[0] == 'H' || v[0] == 'B') ? 0 : 5 + each * n;
    }
    default: return 0;
  }
}

}  // namespace

void append_kept_tags(bam1_t* b, const std::string& tags) {
  const auto* p = reinterpret_cast<const uint8_t*>(tags.data());
  const uint8_t* end = p + tags.size();
  while (end - p >= 3) {
    const size_t bytes = tag_value_bytes(static_cast<char>(p[2]), p + 3, end);
    if (bytes == 0) break;
    const char name[3] = {static_cast<char>(p[0]), static_cast<char>(p[1]), 0};
    if (bam_aux_append(b, name, static_cast<char>(p[2]), static_cast<int>(bytes), p + 3) != 0) throw std::bad_alloc();
    p += 3 + bytes;
  }
}

void AlignedReads::kept_tags(const bam1_t* b, std::string& out) {
  const uint8_t* p = bam_get_aux(b);
  const uint8_t* end = b->data + b->l_data;
  while (end - p >= 3) {
    const size_t bytes = tag_value_bytes(static_cast<char>(p[2]), p + 3, end);
    if (bytes == 0 || static_cast<size_t>(end - p - 3) < bytes) break;  // htslib checked the record: not reached
    if (!replaced_by_alignment(p)) out.append(reinterpret_cast<const char*>(p), 3 + bytes);
    p += 3 + bytes;
  }
}

AlignedReads::AlignedReads(const std::string& path, int threads, const std::string& reference, bool keep_tags)
    : in_(path, threads, reference), keep_tags_(keep_tags) {
  kstring_t value = KS_INITIALIZE;
  by_coordinate_ =
      sam_hdr_find_tag_hd(in_.header(), "SO", &value) == 0 && std::strcmp(value.s, "coordinate") == 0;
  ks_free(&value);
  const int groups = sam_hdr_count_lines(in_.header(), "RG");
  for (int i = 0; i < groups; ++i) {
    kstring_t line = KS_INITIALIZE;
    if (sam_hdr_find_line_pos(in_.header(), "RG", i, &line) == 0) read_groups_.emplace_back(line.s, line.l);
    if (sam_hdr_find_tag_pos(in_.header(), "RG", i, "ID", &line) == 0) group_ids_.emplace(line.s, line.l);
    ks_free(&line);
  }
  const int comments = sam_hdr_count_lines(in_.header(), "CO");
  for (int i = 0; i < comments; ++i) {
    kstring_t line = KS_INITIALIZE;
    if (sam_hdr_find_line_pos(in_.header(), "CO", i, &line) == 0) comment_lines_.emplace_back(line.s, line.l);
    ks_free(&line);
  }
}

AlignedReads::~AlignedReads() {
  for (bam1_t* b : raw_) bam_destroy1(b);
}

size_t AlignedReads::next_many(std::vector<Read>& out, size_t want, int threads) {
  if (out.size() < want) out.resize(want);
  // Records read (BGZF inflated on htslib's threads) into reused bam1_t's here, converted
  // on `threads` threads after.
  while (raw_.size() < want) {
    raw_.push_back(bam_init1());
    if (!raw_.back()) {
      raw_.pop_back();
      throw std::bad_alloc();
    }
  }
  size_t n = 0;
  numbers_.resize(want);
  while (n < want && in_.next(raw_[n])) {
    const uint16_t flag = raw_[n]->core.flag;
    if (flag & (BAM_FSECONDARY | BAM_FSUPPLEMENTARY)) continue;
    if (by_coordinate_ && (flag & BAM_FPAIRED)) {
      throw FormatError("'" + in_.path() + "' is sorted by coordinate, so its mates are not next to each other: "
                        "group them first (samtools collate -o grouped.bam '" + in_.path() + "', or samtools sort -n)");
    }
    numbers_[n++] = in_.records_read();
  }
  split_threads(n, n > 1024 ? threads : 1, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) convert(raw_[i], numbers_[i], out[i]);
  });
  return n;
}

void AlignedReads::convert(const bam1_t* b, int64_t number, Read& read) const {
  read.name = bam_get_qname(b);
  if (read.name.empty() || read.name == "*") {
    throw FormatError("'" + in_.path() + "' record " + std::to_string(number) + ": record has no name");
  }
  // SAM's QNAME is printable ASCII without spaces: a tab or newline would break the output.
  for (const char c : read.name) {
    if (c < '!' || c > '~') {
      throw FormatError("'" + in_.path() + "' record " + std::to_string(number) +
                        ": the read name has a character SAM does not allow in QNAME (a tab, newline, space or "
                        "control character)");
    }
  }
  // As from FASTQ (and as bwa mem pairs them): "/1" and "/2" end a mate's name.
  read.mate_suffix.clear();
  if (read.name.size() > 2 && read.name[read.name.size() - 2] == '/' && (read.name.back() == '1' || read.name.back() == '2')) {
    read.mate_suffix.assign(read.name, read.name.size() - 2, 2);
    read.name.resize(read.name.size() - 2);
  }
  const uint16_t flag = b->core.flag;
  read.mate = (flag & BAM_FPAIRED) ? ((flag & BAM_FREAD1) ? 1 : (flag & BAM_FREAD2) ? 2 : 0) : 0;
  const int n = b->core.l_qseq;
  const uint8_t* seq = bam_get_seq(b);
  const uint8_t* qual = bam_get_qual(b);
  const bool reverse = flag & BAM_FREVERSE;
  read.seq.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const char c = seq_nt16_str[bam_seqi(seq, i)];
    read.seq[static_cast<size_t>(i)] = (c == 'A' || c == 'C' || c == 'G' || c == 'T') ? c : 'N';
  }
  read.qual.clear();
  if (n > 0 && qual[0] != 0xff) {
    read.qual.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) read.qual[static_cast<size_t>(i)] = static_cast<char>(std::min(qual[i], uint8_t{93}) + 33);
  }
  if (reverse) {
    read.seq = reverse_complement(read.seq);
    std::reverse(read.qual.begin(), read.qual.end());
  }
  read.tags.clear();
  if (keep_tags_) kept_tags(b, read.tags);
  read.comment.clear();
  if (const uint8_t* rg = bam_aux_get(b, "RG")) {
    const char* id = bam_aux2Z(rg);
    if (id && group_ids_.count(id)) {
      read.comment = std::string("RG:Z:") + id;
    } else if (id && !warned_undeclared_group_.exchange(true)) {  // an output with it would fail validation
      log::warn("map", "'" + in_.path() + "' record " + std::to_string(number) + " has RG:Z:" + id +
                           ", which no @RG line of its header declares: such read groups are not written (name the "
                           "run's read group with -R, or add the @RG line: samtools addreplacerg)");
    }
  }
}

}  // namespace gatemap::io

#include "mapper/sam_record.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <new>
#include <sstream>

#include "common/dna.hpp"
#include "common/error.hpp"
#include "io/reads/aligned_reads.hpp"

namespace gatemap::mapper::detail {

namespace {

// One "TAG:TYPE:VALUE" of a FASTQ comment added to the record; false if it is no SAM tag
// (types A i f Z H).
bool append_comment_tag(bam1_t* b, const std::string& tag) {
  const bool shaped = tag.size() >= 5 && std::isalpha(static_cast<unsigned char>(tag[0])) &&
                      std::isalnum(static_cast<unsigned char>(tag[1])) && tag[2] == ':' && tag[4] == ':';
  if (!shaped) return false;
  const std::string name = tag.substr(0, 2), value = tag.substr(5);
  switch (tag[3]) {
    case 'Z':
    case 'H':
      return bam_aux_append(b, name.c_str(), tag[3], static_cast<int>(value.size() + 1),
                            reinterpret_cast<const uint8_t*>(value.c_str())) == 0;
    case 'A':
      return value.size() == 1 &&
             bam_aux_append(b, name.c_str(), 'A', 1, reinterpret_cast<const uint8_t*>(value.c_str())) == 0;
    case 'i':
    case 'f': {
      char* end = nullptr;
      const double v = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0') return false;
      return (tag[3] == 'i' ? bam_aux_update_int(b, name.c_str(), static_cast<int64_t>(v))
                            : bam_aux_update_float(b, name.c_str(), static_cast<float>(v))) == 0;
    }
    default:
      return false;
  }
}

// Adds the comment's tags; returns the first field that is no SAM tag ("" when all are).
std::string append_comment_tags(bam1_t* b, const std::string& comment) {
  std::istringstream words(comment);
  for (std::string tag; words >> tag;) {
    if (!append_comment_tag(b, tag)) return tag;
  }
  return "";
}

}  // namespace

void check_comment_tags(const io::Read& read) {
  bam1_t* scratch = bam_init1();
  if (!scratch) throw std::bad_alloc();
  // A record with a name and no sequence: htslib's tag updates need a well-formed one.
  if (bam_set1(scratch, 1, "x", BAM_FUNMAP, -1, -1, 0, 0, nullptr, -1, -1, 0, 0, nullptr, nullptr, 0) < 0) {
    bam_destroy1(scratch);
    throw std::bad_alloc();
  }
  const std::string bad = append_comment_tags(scratch, read.comment);
  bam_destroy1(scratch);
  if (!bad.empty()) {
    throw FormatError("read '" + read.name + "': FASTQ comment field '" + bad +
                      "' is not a SAM tag (TAG:TYPE:VALUE); -C copies only comments made of SAM tags");
  }
}

std::string sa_entry(const std::string& contig, int64_t pos, bool reverse, const std::vector<uint32_t>& cigar,
                     int mapq, int nm) {
  std::string s = contig + "," + std::to_string(pos + 1) + "," + (reverse ? "-" : "+") + ",";
  for (uint32_t c : cigar) s += std::to_string(bam_cigar_oplen(c)) + BAM_CIGAR_STR[bam_cigar_op(c)];
  return s + "," + std::to_string(mapq) + "," + std::to_string(nm) + ";";
}

std::string xa_entry(const std::string& contig, int64_t pos, bool reverse, const std::vector<uint32_t>& cigar,
                     int nm) {
  std::string s = contig + "," + (reverse ? "-" : "+") + std::to_string(pos + 1) + ",";
  for (uint32_t c : cigar) s += std::to_string(bam_cigar_oplen(c)) + BAM_CIGAR_STR[bam_cigar_op(c)];
  return s + "," + std::to_string(nm) + ";";
}

std::vector<uint32_t> with_clips(const std::vector<uint32_t>& cigar, int left, int right, int op) {
  const auto clip = [op](int n) { return bam_cigar_gen(n, op); };
  std::vector<uint32_t> out, body = cigar;
  if (op == BAM_CSOFT_CLIP) {  // merge with soft clips already at the ends
    if (!body.empty() && bam_cigar_op(body.front()) == BAM_CSOFT_CLIP) {
      left += static_cast<int>(bam_cigar_oplen(body.front()));
      body.erase(body.begin());
    }
    if (!body.empty() && bam_cigar_op(body.back()) == BAM_CSOFT_CLIP) {
      right += static_cast<int>(bam_cigar_oplen(body.back()));
      body.pop_back();
    }
  }
  if (left > 0) out.push_back(clip(left));
  out.insert(out.end(), body.begin(), body.end());
  if (right > 0) out.push_back(clip(right));
  return out;
}

bam1_t* make_record(const io::Read& read, const RecordFields& f, const std::string& read_group, bool copy_comment,
                    io::RecordCache& cache) {
  std::string &seq = cache.seq, &qual = cache.qual;
  if (f.reverse) {
    reverse_complement_into(read.seq, seq);
    qual.assign(read.qual.rbegin(), read.qual.rend());
  } else {
    seq.assign(read.seq);
    qual.assign(read.qual);
  }
  for (auto& q : qual) q = static_cast<char>(q - 33);
  // Out of memory anywhere here is an error, never a record with a tag missing.
  std::unique_ptr<bam1_t, void (*)(bam1_t*)> owner(cache.take(), bam_destroy1);
  if (!owner) throw std::bad_alloc();
  bam1_t* b = owner.get();
  const auto aux = [b](const char* tag, char type, size_t len, const void* data) {
    if (bam_aux_append(b, tag, type, static_cast<int>(len), static_cast<const uint8_t*>(data)) != 0) {
      throw std::bad_alloc();
    }
  };
  const uint32_t* cigar = f.aln ? f.aln->cigar.data() : nullptr;
  const size_t n_cigar = f.aln ? f.aln->cigar.size() : 0;
  const int ret = bam_set1(b, read.name.size(), read.name.c_str(), f.flag, f.tid, f.pos, static_cast<uint8_t>(f.mapq),
                           n_cigar, cigar, f.mate.tid, f.mate.pos, f.mate.tlen, seq.size(), seq.c_str(),
                           qual.empty() ? nullptr : qual.c_str(), 64);  // FASTA reads: QUAL '*'
  if (ret < 0) {
    if (errno == ENOMEM) throw std::bad_alloc();
    throw Error("cannot build the SAM record of read '" + read.name + "'");
  }
  if (f.aln) {
    const int32_t nm = f.aln->edits;
    aux("NM", 'i', 4, &nm);
    aux("MD", 'Z', f.aln->md.size() + 1, f.aln->md.c_str());
    const int32_t as = f.score;
    aux("AS", 'i', 4, &as);
    const int32_t xs = f.second_score;  // written for every mapped record, 0 without another placement, as bwa mem
    aux("XS", 'i', 4, &xs);
  }
  if (f.mate.aln && !f.mate.unmapped && !f.mate.aln->cigar.empty()) {
    std::string mc;
    for (uint32_t c : f.mate.aln->cigar) mc += std::to_string(bam_cigar_oplen(c)) + BAM_CIGAR_STR[bam_cigar_op(c)];
    aux("MC", 'Z', mc.size() + 1, mc.c_str());
  }
  if (!f.sa.empty()) {
    aux("SA", 'Z', f.sa.size() + 1, f.sa.c_str());
  }
  if (!f.xa.empty()) {
    aux("XA", 'Z', f.xa.size() + 1, f.xa.c_str());
  }
  if (copy_comment) {
    append_comment_tags(b, read.comment);  // checked by check_comment_tags
    io::append_kept_tags(b, read.tags);    // an unmapped BAM's own (-C)
  }
  if (!read_group.empty()) {  // the run's read group (-R) replaces one a comment carried
    if (uint8_t* copied = bam_aux_get(b, "RG")) bam_aux_del(b, copied);
    aux("RG", 'Z', read_group.size() + 1, read_group.c_str());
  }
  return owner.release();
}

}  // namespace gatemap::mapper::detail

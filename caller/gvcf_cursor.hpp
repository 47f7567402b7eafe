#pragma once
// One gatemap gVCF read by `joint`: opened and checked (one sample, a gVCF's header), then
// read over a region through its tabix/CSI index, or whole, by a cursor of its own per
// thread (htslib's parsing may change a header: not shared between threads).
// Most records are reference blocks or allele hints and most hold no site: a text gVCF's
// block or hint line is only scanned for its contig, position and END, and parsed (as
// htsjdk decodes genotypes lazily) only if a site falls on it.
#include <htslib/kstring.h>
#include <htslib/tbx.h>
#include <htslib/vcf.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace gatemap::caller {

// One gVCF's header and its index (null: none).
struct GvcfFile {
  std::string path;
  htsFile* fp = nullptr;
  bcf_hdr_t* hdr = nullptr;
  tbx_t* tbx = nullptr;
  hts_idx_t* csi = nullptr;  // a BCF's
  ~GvcfFile() {
    if (tbx) tbx_destroy(tbx);
    if (csi) hts_idx_destroy(csi);
    if (hdr) bcf_hdr_destroy(hdr);
    if (fp) hts_close(fp);
  }
};

// Opens and checks one gVCF (its index is found by the caller). Throws IoError/FormatError naming it.
std::unique_ptr<GvcfFile> open_gvcf(const std::string& path);

// A reference block: ALT <NON_REF> alone (its alleles unpacked).
bool is_block(const bcf1_t* rec);

// Where a record lies; a block (ALT <NON_REF> alone) with its END (exclusive, 0-based).
// `hint`: a text line of one REF base, alleles ending in <NON_REF>, no INFO and genotype
// 0/0 (caller::AlleleHint), not parsed yet (a BCF's hints are parsed: hint stays false).
struct GvcfPlace {
  int rid = -1;
  int64_t pos = -1;
  bool block = false;
  int64_t end = -1;
  bool hint = false;
};

// A block or a hint kept past its cursor's next record: its text (parsed when first
// asked for) or, from a BCF, a copy of its record.
class KeptRecord {
 public:
  KeptRecord();
  ~KeptRecord();
  KeptRecord(const KeptRecord&) = delete;
  KeptRecord& operator=(const KeptRecord&) = delete;

 private:
  friend class GvcfCursor;
  std::string text_;
  int64_t number_ = 0;  // its record number in the file (for errors)
  bcf1_t* rec_;
  bool parsed_ = false;
};

// A reader of one gVCF over a region (or the whole file), one record at a time.
class GvcfCursor {
 public:
  GvcfCursor(const GvcfFile& file, const char* region);  // region null: the whole file
  ~GvcfCursor();
  GvcfCursor(const GvcfCursor&) = delete;
  GvcfCursor& operator=(const GvcfCursor&) = delete;

  // The next record's place, or null at the end. Throws FormatError naming the file on a
  // malformed or out-of-order record.
  const GvcfPlace* next();
  // The current record parsed, its alleles unpacked.
  bcf1_t* record();
  // The current record (a block or a hint) kept, and a kept record parsed, alleles unpacked.
  void keep(KeptRecord& into);
  bcf1_t* record(KeptRecord& kept);
  bcf_hdr_t* header() const { return hdr_; }

 private:
  int read_line();
  bool scan_lazily();
  FormatError bad_end() const;
  void parse(kstring_t* line, bcf1_t* into, int64_t number);
  void parse_copy(std::string_view text, bcf1_t* into, int64_t number);
  const GvcfFile& f_;
  htsFile* fp_ = nullptr;
  bcf_hdr_t* hdr_ = nullptr;
  hts_itr_t* itr_ = nullptr;
  bcf1_t* rec_;
  kstring_t line_ = KS_INITIALIZE, copy_ = KS_INITIALIZE;
  bool text_ = false;    // a text VCF: records read as lines
  bool whole_ = false;
  // An indexed text gVCF's region is read from its first block on as lines, not through
  // tabix's iterator (which parsed every line for its place once more): these lines until
  // the contig ends or one starts at region_end_, those ending by region_begin_ left out.
  bool direct_ = false;
  std::string region_contig_;
  int64_t region_begin_ = 0, region_end_ = 0;
  bool parsed_ = false;  // rec_ holds the current record
  GvcfPlace place_;
  std::string contig_;  // the last block's contig and its id
  int contig_rid_ = -1;
  int64_t records_ = 0;
};

}  // namespace gatemap::caller

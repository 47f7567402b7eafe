#include "io/sort/sam_sort.hpp"

#include <htslib/sam.h>

#include <algorithm>
#include <cstdint>
#include <new>
#include <vector>

#include "common/error.hpp"
#include "io/bgzf_eof.hpp"
#include "io/output_file.hpp"
#include "io/sort/bam_sorter.hpp"

namespace gatemap::io {

void sort_sam_in_memory(const std::string& in_path, const std::string& out_bam) {
  samFile* in = sam_open(in_path.c_str(), "r");
  if (!in) throw IoError("cannot open '" + in_path + "'");
  try {
    require_bgzf_eof(in, in_path);
  } catch (...) {
    sam_close(in);
    throw;
  }
  sam_hdr_t* hdr = sam_hdr_read(in);
  if (!hdr) {
    sam_close(in);
    throw FormatError("'" + in_path + "': cannot read the header");
  }
  std::vector<bam1_t*> recs;
  for (;;) {
    bam1_t* b = bam_init1();
    if (!b) {
      for (bam1_t* x : recs) bam_destroy1(x);
      sam_hdr_destroy(hdr);
      sam_close(in);
      throw std::bad_alloc();
    }
    const int r = sam_read1(in, hdr, b);
    if (r < 0) {
      bam_destroy1(b);
      if (r < -1) {
        for (bam1_t* x : recs) bam_destroy1(x);
        sam_hdr_destroy(hdr);
        sam_close(in);
        throw FormatError("'" + in_path + "': bad record after record " + std::to_string(recs.size()));
      }
      break;
    }
    recs.push_back(b);
  }
  sam_close(in);
  std::stable_sort(recs.begin(), recs.end(), coordinate_less);
  sam_hdr_remove_tag_hd(hdr, "GO");
  sam_hdr_update_hd(hdr, "SO", "coordinate");
  OutputFile out_file(out_bam);
  samFile* out = sam_open(out_file.write_path().c_str(), "wb");
  bool ok = out && sam_hdr_write(out, hdr) == 0;
  for (bam1_t* b : recs) {
    ok = ok && sam_write1(out, hdr, b) >= 0;
    bam_destroy1(b);
  }
  if (out && sam_close(out) != 0) ok = false;
  sam_hdr_destroy(hdr);
  if (!ok) throw IoError("failed writing '" + out_bam + "'");
  out_file.commit();
}

}  // namespace gatemap::io

// Real reads (NA12878 HiSeq X, GRCh37 chr22 slice, tests/DATA.md): gatemap places
// them where bwa-mem 0.7.8 did. Skips without it.
#include <gtest/gtest.h>
#include <htslib/sam.h>

#include <filesystem>
#include <map>

#include "mapper/run.hpp"
#include "../test_util.hpp"

using namespace gatemap;

TEST(RealData, Chr22ReadsAgreeWithBwaMem) {
  const std::string dir = test::real_data("grch37-chr22-minigiab-vg");
  if (!std::filesystem::exists(dir + "/q.fa")) GTEST_SKIP() << test::real_data_absent("grch37-chr22-minigiab-vg");
  test::TempDir tmp;
  mapper::RunOptions o;
  o.index_path = tmp.file("q.gmi");
  ASSERT_EQ(test::run_command(std::string(GATEMAP_BINARY) + " index -o " + o.index_path + " " + dir + "/q.fa"), 0);
  o.reads1 = dir + "/NA12878.chr22.tiny.fq.gz";
  o.command_line = "test";
  o.output = tmp.file("q.bam");
  o.filter = "cpu";
  o.hw.threads = 2;
  const auto st = mapper::run_mapping(o);
  EXPECT_EQ(st.reads, 3333);
  // The FASTQ holds both mates under one name each with /1 and /2: key by name + strand-free
  // first aligned position of each primary record, in file order.
  const auto starts = [](const std::string& path, bool mate_suffix) {
    std::multimap<std::string, std::pair<int64_t, bool>> out;
    samFile* fp = sam_open(path.c_str(), "r");
    sam_hdr_t* h = sam_hdr_read(fp);
    bam1_t* b = bam_init1();
    while (sam_read1(fp, h, b) >= 0) {
      if (b->core.flag & (BAM_FSECONDARY | BAM_FSUPPLEMENTARY | BAM_FUNMAP)) continue;
      std::string name = bam_get_qname(b);
      if (mate_suffix) name += (b->core.flag & BAM_FREAD1) ? "/1" : "/2";
      int64_t clip = 0;
      const uint32_t* c = bam_get_cigar(b);
      if (b->core.n_cigar && bam_cigar_op(c[0]) == BAM_CSOFT_CLIP) clip = bam_cigar_oplen(c[0]);
      out.emplace(name, std::make_pair(b->core.pos - clip, (b->core.flag & BAM_FREVERSE) != 0));
    }
    bam_destroy1(b);
    sam_hdr_destroy(h);
    sam_close(fp);
    return out;
  };
  const auto ours = starts(o.output, false);
  const auto bwa = starts(dir + "/NA12878.chr22.tiny.bam", true);
  int agree = 0, both = 0;
  for (const auto& [name, pos] : ours) {
    // Our records keep the FASTQ name without /1 /2; match either mate of bwa's.
    bool any = false, found = false;
    for (const char* suffix : {"/1", "/2"}) {
      auto range = bwa.equal_range(name + suffix);
      for (auto it = range.first; it != range.second; ++it) {
        found = true;
        any = any || (std::llabs(it->second.first - pos.first) <= 10 && it->second.second == pos.second);
      }
    }
    both += found;
    agree += any;
  }
  EXPECT_GE(ours.size(), 3250u);  // of 3333, some hang off the ends of the 12 kbp slice
  EXPECT_GE(agree, both * 99 / 100);
}

#include <gtest/gtest.h>
#include <htslib/sam.h>
#include <htslib/vcf.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "../test_util.hpp"
#include "common/error.hpp"
#include "io/bam/sam_writer.hpp"
#include "io/reads/fastq.hpp"
#include "io/text/fastq_writer.hpp"
#include "io/text/vcf_writer.hpp"

using namespace gatemap;

namespace {
io::SamHeaderInfo header_info() {
  io::SamHeaderInfo info;
  info.contigs = {{"1", 1000}, {"2", 500}};
  info.read_group = "@RG\\tID:grp1\\tSM:sample";
  info.command_line = "gatemap map -t 2 ref.gmi r.fq";
  info.version = "0.1.0";
  return info;
}

bam1_t* make_record(const char* name, int tid, int64_t pos) {
  bam1_t* b = bam_init1();
  const uint32_t cigar[] = {bam_cigar_gen(4, BAM_CMATCH)};
  bam_set1(b, std::strlen(name), name, 0, tid, pos, 60, 1, cigar, -1, -1, 0, 4, "ACGT", "IIII", 0);
  return b;
}
}  // namespace

class SamRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(SamRoundTrip, HeaderAndRecordsSurvive) {
  test::TempDir dir;
  const std::string path = dir.file("out." + GetParam());
  {
    io::SamWriter w(path, header_info(), 2);
    EXPECT_EQ(w.read_group_id(), "grp1");
    bam1_t* b = make_record("read1", 1, 42);
    w.write(b);
    bam_destroy1(b);
    w.close();
  }
  htsFile* fp = hts_open(path.c_str(), "r");
  ASSERT_NE(fp, nullptr);
  EXPECT_EQ(hts_get_format(fp)->format, GetParam() == "bam" ? bam : sam);
  sam_hdr_t* h = sam_hdr_read(fp);
  ASSERT_NE(h, nullptr);
  const std::string text = sam_hdr_str(h);
  EXPECT_NE(text.find("@HD\tVN:1.6\tSO:unsorted\tGO:query"), std::string::npos);
  EXPECT_NE(text.find("@SQ\tSN:2\tLN:500"), std::string::npos);
  EXPECT_NE(text.find("@RG\tID:grp1\tSM:sample"), std::string::npos);
  EXPECT_NE(text.find("@PG\tID:gatemap\tPN:gatemap\tVN:0.1.0\tCL:gatemap map -t 2 ref.gmi r.fq"), std::string::npos);
  bam1_t* b = bam_init1();
  ASSERT_GE(sam_read1(fp, h, b), 0);
  EXPECT_STREQ(bam_get_qname(b), "read1");
  EXPECT_EQ(b->core.tid, 1);
  EXPECT_EQ(b->core.pos, 42);
  EXPECT_LT(sam_read1(fp, h, b), 0);
  bam_destroy1(b);
  sam_hdr_destroy(h);
  hts_close(fp);
}
INSTANTIATE_TEST_SUITE_P(Formats, SamRoundTrip, ::testing::Values("sam", "bam"));

TEST(SamWriter, RejectsBadReadGroup) {
  std::string id;
  EXPECT_THROW(io::parse_read_group("ID:x", id), UsageError);
  EXPECT_THROW(io::parse_read_group("@RG\\tSM:x", id), UsageError);
  EXPECT_EQ(io::parse_read_group("@RG\\tID:x\\tSM:y", id), "@RG\tID:x\tSM:y");
  EXPECT_EQ(id, "x");
}

TEST(SamWriter, FullDiskIsAnError) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "/dev/full not available";
  EXPECT_THROW(
      {
        io::SamWriter w("/dev/full", header_info());
        bam1_t* b = make_record("r", 0, 1);
        for (int i = 0; i < 100000; ++i) w.write(b);
        bam_destroy1(b);
        w.close();
      },
      IoError);
}

// Many records at once (formatted on threads in chunks, written in order): every one
// comes back, in order; to a full disk, an error.
TEST(SamWriter, WriteAllKeepsTheOrderAndReportsAFullDisk) {
  test::TempDir dir;
  const std::string path = dir.file("many.sam");
  std::vector<bam1_t*> recs;
  for (int i = 0; i < 10007; ++i) recs.push_back(make_record(("r" + std::to_string(i)).c_str(), i % 2, i % 400));
  {
    io::SamWriter w(path, header_info(), 4);
    w.write_all(recs);
    w.close();
  }
  htsFile* fp = hts_open(path.c_str(), "r");
  ASSERT_NE(fp, nullptr);
  sam_hdr_t* h = sam_hdr_read(fp);
  bam1_t* b = bam_init1();
  int n = 0;
  while (sam_read1(fp, h, b) >= 0) {
    ASSERT_EQ(std::string(bam_get_qname(b)), "r" + std::to_string(n));
    ++n;
  }
  EXPECT_EQ(n, 10007);
  bam_destroy1(b);
  sam_hdr_destroy(h);
  hts_close(fp);
  if (access("/dev/full", W_OK) == 0) {
    EXPECT_THROW(
        {
          io::SamWriter w("/dev/full", header_info(), 4);
          for (int i = 0; i < 20; ++i) w.write_all(recs);
          w.close();
        },
        IoError);
  }
  for (bam1_t* r : recs) bam_destroy1(r);
}

TEST(VcfWriter, RoundTripsHeaderAndRecord) {
  test::TempDir dir;
  const std::string path = dir.file("calls.vcf.gz");
  {
    io::VcfHeaderInfo info;
    info.contigs = {{"20", 64444167}};
    info.reference = "ref.fa";
    info.command_line = "gatemap call -r ref.fa in.bam";
    info.version = "0.1.0";
    info.extra_lines = {"##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">"};
    info.samples = {"NA12878"};
    io::VcfWriter w(path, info);
    bcf1_t* rec = bcf_init();
    rec->rid = bcf_hdr_name2id(w.header(), "20");
    rec->pos = 99;
    bcf_update_alleles_str(w.header(), rec, "A,G");
    rec->qual = 50;
    int32_t gt[2] = {bcf_gt_unphased(0), bcf_gt_unphased(1)};
    bcf_update_genotypes(w.header(), rec, gt, 2);
    w.write(rec);
    bcf_destroy(rec);
    w.close();
  }
  htsFile* fp = hts_open(path.c_str(), "r");
  ASSERT_NE(fp, nullptr);
  bcf_hdr_t* h = bcf_hdr_read(fp);
  kstring_t ks{0, 0, nullptr};
  bcf_hdr_format(h, 0, &ks);
  const std::string text(ks.s, ks.l);
  free(ks.s);
  EXPECT_NE(text.find("##source=gatemap 0.1.0"), std::string::npos);
  EXPECT_NE(text.find("##commandline=\"gatemap call -r ref.fa in.bam\""), std::string::npos);
  EXPECT_NE(text.find("##contig=<ID=20,length=64444167>"), std::string::npos);
  EXPECT_NE(text.find("##reference=ref.fa"), std::string::npos);
  bcf1_t* rec = bcf_init();
  ASSERT_EQ(bcf_read(fp, h, rec), 0);
  EXPECT_EQ(rec->pos, 99);
  bcf_unpack(rec, BCF_UN_STR);
  EXPECT_STREQ(rec->d.allele[1], "G");
  bcf_destroy(rec);
  bcf_hdr_destroy(h);
  hts_close(fp);
}

// Plain (write(2)) and bgzip (htslib) FASTQ: read back, the same records, and a
// formatted batch written as text reads back as the records it was made from.
TEST(FastqWriter, PlainAndBgzipReadBack) {
  test::TempDir dir;
  std::vector<io::Read> reads(3000);
  std::string text;
  for (size_t i = 0; i < reads.size(); ++i) {
    reads[i].name = "r" + std::to_string(i);
    reads[i].seq = std::string(100 + i % 50, "ACGT"[i % 4]);
    reads[i].qual = std::string(reads[i].seq.size(), 'I');
    std::string record(io::fastq_record_size(reads[i]), '\0');
    io::format_fastq_record(reads[i], record.data());
    text += record;
  }
  for (const char* name : {"out.fq", "out.fq.gz"}) {
    SCOPED_TRACE(name);
    const std::string path = dir.file(name);
    {
      io::FastqWriter w(path, 2);
      for (size_t i = 0; i < reads.size() / 2; ++i) w.write(reads[i]);  // buffered, 1 MB at a time
      w.write_text(std::string_view(text).substr(text.find("@r" + std::to_string(reads.size() / 2) + "\n")));
      w.close();
    }
    io::FastqSource src(path);
    io::ReadBatch batch;
    size_t n = 0;
    while (src.next_batch(batch, 1000, 1 << 30)) {
      for (const io::Read& r : batch.reads) {
        ASSERT_LT(n, reads.size());
        EXPECT_EQ(r.name, reads[n].name);
        EXPECT_EQ(r.seq, reads[n].seq);
        EXPECT_EQ(r.qual, reads[n].qual);
        ++n;
      }
    }
    EXPECT_EQ(n, reads.size());
  }
}

// Written over an old file (removed first, not renamed over: see OutputFile::commit): the
// name holds the new records; another name of the old file still holds the old ones; no
// temporary file is left.
TEST(FastqWriter, WrittenOverAnOldFile) {
  test::TempDir dir;
  const std::string path = dir.file("c.fq"), other = dir.file("old.fq");
  test::write_file(path, "@old\nACGT\n+\nIIII\n");
  ASSERT_EQ(link(path.c_str(), other.c_str()), 0);
  for (const std::string& name : {std::string("new1"), std::string("new2")}) {
    io::Read r;
    r.name = name;
    r.seq = "GGCC";
    r.qual = "IIII";
    io::FastqWriter w(path);
    w.write(r);
    w.close();
    EXPECT_EQ(test::read_file(path), "@" + name + "\nGGCC\n+\nIIII\n");
  }
  EXPECT_EQ(test::read_file(other), "@old\nACGT\n+\nIIII\n");
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) files += entry.is_regular_file();
  EXPECT_EQ(files, 2u);
}

TEST(FastqWriter, FullDiskIsAnError) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "/dev/full not available";
  io::Read r;
  r.name = "r";
  r.seq = std::string(150, 'A');
  r.qual = std::string(150, 'I');
  EXPECT_THROW(
      {
        io::FastqWriter w("/dev/full");
        for (int i = 0; i < 100000; ++i) w.write(r);
        w.close();
      },
      IoError);
}

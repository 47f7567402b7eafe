// Every form of input (plain, gzip of one member or many at any level, BGZF) reads back
// as the same bytes; damaged and truncated compressed files are errors naming the file.
// The oracles: the gzip command and htslib's BGZF writer.
#include <gtest/gtest.h>
#include <htslib/bgzf.h>

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <random>
#include <string>

#include "../test_util.hpp"
#include "common/error.hpp"
#include "io/reads/input_stream.hpp"

using namespace gatemap;

namespace {

// FASTQ-like text of about `bytes` bytes.
std::string fastq_text(size_t bytes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string text;
  for (int i = 0; text.size() < bytes; ++i) {
    const std::string seq = test::random_dna(rng, 100 + rng() % 51);
    text += "@read" + std::to_string(i) + " x\n" + seq + "\n+\n" + std::string(seq.size(), 'I') + "\n";
  }
  return text;
}

std::string read_all(const std::string& path, size_t piece = 100003, int threads = 1) {
  io::InputStream in(path, threads);
  std::string all, buf(piece, '\0');
  while (const size_t n = in.read(buf.data(), buf.size())) all.append(buf.data(), n);
  return all;
}

void write_bgzf(const std::string& path, const std::string& text) {
  BGZF* fp = bgzf_open(path.c_str(), "w");
  ASSERT_NE(fp, nullptr);
  ASSERT_EQ(bgzf_write(fp, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ASSERT_EQ(bgzf_close(fp), 0);
}

std::string error_of(const std::string& path, int threads = 1) {
  try {
    read_all(path, 100003, threads);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(InputStream, EveryFormReadsBackTheSameBytes) {
  test::TempDir dir;
  const std::string text = fastq_text(12 << 20, 1);  // several chunks and raw blocks
  const std::string plain = test::write_file(dir.file("r.fq"), text);
  ASSERT_EQ(test::run_command("gzip -1 -c " + plain + " > " + dir.file("r1.fq.gz")), 0);
  ASSERT_EQ(test::run_command("gzip -9 -c " + plain + " > " + dir.file("r9.fq.gz")), 0);
  // Many members: the file cut in three, each part gzipped, the parts concatenated.
  ASSERT_EQ(test::run_command("cd " + dir.path() + " && split -n 3 r.fq part. && for p in part.*; do gzip -c $p; done" +
                              " > many.fq.gz"),
            0);
  write_bgzf(dir.file("r.fq.bgz"), text);
  for (const char* name : {"r.fq", "r1.fq.gz", "r9.fq.gz", "many.fq.gz", "r.fq.bgz"}) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(read_all(dir.file(name)) == text);
    EXPECT_TRUE(read_all(dir.file(name), 4099) == text);  // small reads across chunk ends
    EXPECT_TRUE(read_all(dir.file(name), 100003, 3) == text);  // BGZF blocks inflated on threads
  }
}

// A plain file is mapped, not read (gzip never is, nor a pipe); pages dropped behind the
// reader read back the same bytes if touched again.
TEST(InputStream, PlainFilesAreMappedAndTheirPagesDroppedBehindTheReader) {
  test::TempDir dir;
  const std::string text = fastq_text(3 << 20, 2);
  const std::string plain = test::write_file(dir.file("r.fq"), text);
  ASSERT_EQ(test::run_command("gzip -1 -c " + plain + " > " + dir.file("r.fq.gz")), 0);
  EXPECT_TRUE(io::InputStream(dir.file("r.fq.gz")).mapped().empty());
  io::InputStream in(plain);
  ASSERT_EQ(in.mapped().size(), text.size());
  std::string all, buf(1 << 20, '\0');
  while (const size_t n = in.read(buf.data(), buf.size())) {
    all.append(buf.data(), n);
    in.release_mapped(all.size());
  }
  EXPECT_TRUE(all == text);
  EXPECT_TRUE(in.mapped() == text);  // every page dropped, mapped back from the file
}

// How much of a file has been read, for a progress line's ETA: 0 to 1, all of it at the
// end (gzip: its compressed bytes; mapped: the pages released behind the reader); -1 for
// a pipe, whose size is unknown.
TEST(InputStream, FractionReadGoesToOneAndIsUnknownForAPipe) {
  test::TempDir dir;
  const std::string text = fastq_text(3 << 20, 3);
  const std::string plain = test::write_file(dir.file("r.fq"), text);
  ASSERT_EQ(test::run_command("gzip -1 -c " + plain + " > " + dir.file("r.fq.gz")), 0);
  for (const std::string& path : {plain, dir.file("r.fq.gz")}) {
    io::InputStream in(path);
    EXPECT_GE(in.fraction_read(), 0.0) << path;
    std::string buf(1 << 20, '\0');
    size_t got = 0;
    while (const size_t n = in.read(buf.data(), buf.size())) in.release_mapped(got += n);
    EXPECT_DOUBLE_EQ(in.fraction_read(), 1.0) << path;
  }
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_EQ(write(fds[1], "@r\nA\n+\nI\n", 10), 10);
  close(fds[1]);
  io::InputStream piped("/dev/fd/" + std::to_string(fds[0]));
  EXPECT_EQ(piped.fraction_read(), -1);
  close(fds[0]);
}

// A mapped file made shorter while it is read (another program truncating it) ends the
// run with a message naming it, not a bare bus error.
// A data error, not a crash: status 1 and no core dump (the signal is not raised again).
TEST(InputStreamDeathTest, AFileTruncatedWhileMappedIsNamed) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  test::TempDir dir;
  const std::string path = test::write_file(dir.file("shrinks.fq"), fastq_text(3 << 20, 3));
  EXPECT_EXIT(
      {
        io::InputStream in(path);
        if (truncate(path.c_str(), 0) != 0) std::exit(2);
        std::string buf(1 << 20, '\0');
        while (in.read(buf.data(), buf.size()) > 0) {
        }
        std::exit(0);
      },
      testing::ExitedWithCode(1), "'.*shrinks.fq' became shorter while it was read");
}

TEST(InputStream, EmptyAndTinyFiles) {
  test::TempDir dir;
  EXPECT_EQ(read_all(test::write_file(dir.file("empty.fq"), "")), "");
  EXPECT_EQ(read_all(test::write_file(dir.file("one.fq"), "@")), "@");
  write_bgzf(dir.file("empty.bgz"), "");
  EXPECT_EQ(read_all(dir.file("empty.bgz")), "");
}

TEST(InputStream, TruncatedOrDamagedCompressedFilesAreErrorsNamingTheFile) {
  test::TempDir dir;
  const std::string text = fastq_text(3 << 20, 2);
  const std::string plain = test::write_file(dir.file("r.fq"), text);
  ASSERT_EQ(test::run_command("gzip -c " + plain + " > " + dir.file("r.fq.gz")), 0);
  const std::string gz = test::read_file(dir.file("r.fq.gz"));
  // Cut in the middle, and cut only by its 8-byte trailer (CRC and length).
  test::write_file(dir.file("cut.fq.gz"), gz.substr(0, gz.size() / 2));
  test::write_file(dir.file("notrailer.fq.gz"), gz.substr(0, gz.size() - 8));
  std::string flipped = gz;
  flipped[gz.size() / 2] = static_cast<char>(flipped[gz.size() / 2] ^ 0x55);
  test::write_file(dir.file("flipped.fq.gz"), flipped);
  test::write_file(dir.file("garbage.fq.gz"), gz + "not gzip at all");
  // BGZF cut at a block boundary decompresses cleanly: only the missing EOF block tells.
  write_bgzf(dir.file("r.fq.bgz"), text);
  const std::string bgz = test::read_file(dir.file("r.fq.bgz"));
  test::write_file(dir.file("noeof.fq.bgz"), bgz.substr(0, bgz.size() - 28));
  test::write_file(dir.file("cut.fq.bgz"), bgz.substr(0, bgz.size() / 2));
  std::string bgz_flipped = bgz;
  bgz_flipped[bgz.size() / 2] = static_cast<char>(bgz_flipped[bgz.size() / 2] ^ 0x55);
  test::write_file(dir.file("flipped.fq.bgz"), bgz_flipped);
  // BGZF followed by a gzip member: a BGZF file that lost its end (as htslib sees it).
  ASSERT_EQ(test::run_command("cd " + dir.path() + " && head -c " + std::to_string(bgz.size() - 28) +
                              " r.fq.bgz > mixed.fq.bgz && gzip -c r.fq >> mixed.fq.bgz"),
            0);
  for (const int threads : {1, 3}) {
    for (const char* name : {"cut.fq.gz", "notrailer.fq.gz", "flipped.fq.gz", "garbage.fq.gz", "noeof.fq.bgz",
                             "cut.fq.bgz", "flipped.fq.bgz", "mixed.fq.bgz"}) {
      SCOPED_TRACE(std::string(name) + " on " + std::to_string(threads) + " threads");
      const std::string msg = error_of(dir.file(name), threads);
      EXPECT_NE(msg.find(dir.file(name)), std::string::npos) << msg;
    }
    EXPECT_NE(error_of(dir.file("noeof.fq.bgz"), threads).find("end-of-file marker"), std::string::npos);
    EXPECT_NE(error_of(dir.file("mixed.fq.bgz"), threads).find("end-of-file marker"), std::string::npos);
    EXPECT_NE(error_of(dir.file("cut.fq.gz"), threads).find("truncated"), std::string::npos);
    EXPECT_NE(error_of(dir.file("cut.fq.bgz"), threads).find("truncated"), std::string::npos);
  }
}

TEST(InputStream, MissingFileAndDirectoryAreIoErrors) {
  test::TempDir dir;
  EXPECT_THROW(io::InputStream(dir.file("absent.fq")), IoError);
  EXPECT_THROW(read_all(dir.path()), IoError);
}

// The consumer may stop early (a bad record): the read-ahead thread stops with it.
TEST(InputStream, StoppingEarlyEndsTheReadAhead) {
  test::TempDir dir;
  const std::string plain = test::write_file(dir.file("r.fq"), fastq_text(20 << 20, 3));
  ASSERT_EQ(test::run_command("gzip -1 -c " + plain + " > " + dir.file("r.fq.gz")), 0);
  for (int i = 0; i < 5; ++i) {
    io::InputStream in(dir.file("r.fq.gz"));
    char buf[1000];
    EXPECT_EQ(in.read(buf, sizeof buf), sizeof buf);
  }
}

// Read far ahead (as map on the GPU sets it), gzip streams give the same bytes to small
// and large reads, and a consumer that stops early still ends the thread.
TEST(InputStream, FarReadAheadReadsTheSameBytes) {
  test::TempDir dir;
  const std::string text = fastq_text(24 << 20, 4);
  const std::string plain = test::write_file(dir.file("r.fq"), text);
  ASSERT_EQ(test::run_command("gzip -1 -c " + plain + " > " + dir.file("r.fq.gz")), 0);
  ASSERT_EQ(test::run_command("cd " + dir.path() + " && split -n 4 r.fq part. && for p in part.*; do gzip -c $p; done" +
                              " > many.fq.gz"),
            0);
  io::InputStream::set_gzip_read_ahead(size_t{16} << 20);  // less than the file: the queue fills
  for (const char* name : {"r.fq.gz", "many.fq.gz"}) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(read_all(dir.file(name)) == text);
    EXPECT_TRUE(read_all(dir.file(name), 4099) == text);
    io::InputStream in(dir.file(name));
    char buf[1000];
    EXPECT_EQ(in.read(buf, sizeof buf), sizeof buf);
  }
  io::InputStream::set_gzip_read_ahead(0);  // back to the default for the other tests
}

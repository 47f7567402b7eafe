#include <gtest/gtest.h>

#include <cctype>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "../test_util.hpp"
#include "common/error.hpp"
#include "io/reads/fastq.hpp"

using namespace gatemap;

TEST(Fastq, ReadsRecordsInChunks) {
  test::TempDir dir;
  std::string text;
  for (int i = 0; i < 25; ++i) text += "@r" + std::to_string(i) + "/1 comment\nACGTn\n+\nIIII#\n";
  const auto path = test::write_file(dir.file("a.fq"), text);
  io::FastqSource src(path);
  io::ReadBatch batch;
  int total = 0, batches = 0;
  while (src.next_batch(batch, 10, 1 << 20)) {
    EXPECT_EQ(batch.first_id, total);
    total += static_cast<int>(batch.size());
    ++batches;
  }
  EXPECT_EQ(total, 25);
  EXPECT_EQ(batches, 3);
}

TEST(Fastq, NormalizesNamesAndBases) {
  test::TempDir dir;
  const auto path = test::write_file(dir.file("a.fq"), "@read1/2 x y\nacgRN\n+read1\n!!~~I\n");
  io::FastqReader r(path);
  io::Read read;
  ASSERT_TRUE(r.next(read));
  EXPECT_EQ(read.name, "read1");
  EXPECT_EQ(read.seq, "ACGNN");
  EXPECT_EQ(read.qual, "!!~~I");
  EXPECT_FALSE(r.next(read));
}

TEST(Fastq, PairedFilesInLockstep) {
  test::TempDir dir;
  const auto p1 = test::write_file(dir.file("r1.fq.gz.txt"), "@a/1\nAC\n+\nII\n@b/1\nGG\n+\nII\n");
  const auto p2 = test::write_file(dir.file("r2.fq"), "@a/2\nTT\n+\nII\n@b/2\nCC\n+\nII\n");
  ASSERT_EQ(test::run_command("gzip -c " + p1 + " > " + dir.file("r1.fq.gz")), 0);
  io::FastqSource src(dir.file("r1.fq.gz"), p2);
  io::ReadBatch batch;
  ASSERT_TRUE(src.next_batch(batch, 100, 1 << 20));
  ASSERT_EQ(batch.size(), 4u);
  EXPECT_TRUE(batch.paired);
  EXPECT_EQ(batch.reads[1].seq, "TT");
  EXPECT_EQ(batch.reads[2].name, "b");
  EXPECT_FALSE(src.next_batch(batch, 100, 1 << 20));
}

// Two files are parsed on two threads; batches are cut as one reader would cut them:
// by records, and by bases (pairs read past the cut open the next batch).
TEST(Fastq, PairedBatchesCutByRecordsAndBases) {
  test::TempDir dir;
  std::string t1, t2;
  for (int i = 0; i < 10; ++i) {
    const std::string bases(100 + i, "ACGT"[i % 4]), qual(100 + i, 'I');
    t1 += "@p" + std::to_string(i) + "/1\n" + bases + "\n+\n" + qual + "\n";
    t2 += "@p" + std::to_string(i) + "/2\n" + bases + "\n+\n" + qual + "\n";
  }
  const auto p1 = test::write_file(dir.file("r1.fq"), t1);
  const auto p2 = test::write_file(dir.file("r2.fq"), t2);
  for (const auto& [records, bases, sizes] : std::vector<std::tuple<size_t, size_t, std::vector<size_t>>>{
           {8, 1 << 20, {8, 8, 4}}, {100, 450, {6, 6, 6, 2}}, {4, 450, {4, 4, 4, 4, 4}}}) {
    io::FastqSource src(p1, p2);
    io::ReadBatch batch;
    std::vector<size_t> got;
    int next = 0;
    while (src.next_batch(batch, records, bases)) {
      EXPECT_EQ(batch.first_id, next);
      for (size_t r = 0; r < batch.size(); ++r) {
        EXPECT_EQ(batch.reads[r].name, "p" + std::to_string(next + static_cast<int>(r / 2)));
      }
      next += static_cast<int>(batch.size() / 2);
      got.push_back(batch.size());
    }
    EXPECT_EQ(got, sizes) << records << " records, " << bases << " bases";
  }
  // A mate name that does not match, in a later batch, is named by its record number.
  const auto p3 = test::write_file(dir.file("r3.fq"), t2.substr(0, t2.find("@p2/2")) + "@x/2\nAC\n+\nII\n");
  io::FastqSource src(p1, p3);
  io::ReadBatch batch;
  ASSERT_TRUE(src.next_batch(batch, 4, 1 << 20));
  try {
    src.next_batch(batch, 4, 1 << 20);
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("r3.fq' record 3: mate name 'x' does not match 'p2'"), std::string::npos)
        << e.what();
  }
}

// One file of single reads is parsed on several threads and cut as a serial reader
// cuts it: a read is taken while the batch has room for it and is under max_bases.
TEST(Fastq, SingleBatchesCutByRecordsAndBases) {
  test::TempDir dir;
  std::string text;
  std::vector<size_t> lengths;
  for (int i = 0; i < 3000; ++i) {
    lengths.push_back(50 + (i * 37) % 101);
    text += "@s" + std::to_string(i) + "\n" + std::string(lengths.back(), "ACGT"[i % 4]) + "\n+\n" +
            std::string(lengths.back(), 'I') + "\n";
  }
  const auto path = test::write_file(dir.file("s.fq"), text);
  for (const auto& [records, bases] :
       std::vector<std::pair<size_t, size_t>>{{2000, 1 << 30}, {5000, 40000}, {1500, 90000}}) {
    std::vector<size_t> expected;  // the serial rule over the known lengths
    for (size_t i = 0; i < lengths.size();) {
      size_t n = 0, b = 0;
      while (i < lengths.size() && n < records && b < bases) b += lengths[i++], ++n;
      expected.push_back(n);
    }
    io::FastqSource src(path);
    io::ReadBatch batch;
    std::vector<size_t> got;
    int next = 0;
    while (src.next_batch(batch, records, bases)) {
      EXPECT_EQ(batch.first_id, next);
      EXPECT_FALSE(batch.paired);
      for (size_t r = 0; r < batch.size(); ++r) EXPECT_EQ(batch.reads[r].name, "s" + std::to_string(next + r));
      next += static_cast<int>(batch.size());
      got.push_back(batch.size());
    }
    EXPECT_EQ(got, expected) << records << " records, " << bases << " bases";
  }
}

// Records converted on several threads: of two bad records, the first is reported.
TEST(Fastq, TheFirstBadRecordIsReportedWhenParsedInParallel) {
  test::TempDir dir;
  std::string text;
  for (int i = 0; i < 4000; ++i) {
    const bool bad = i == 1700 || i == 3500;  // quality shorter than the bases
    text += "@r" + std::to_string(i) + "\nACGTACGT\n+\n" + (bad ? "III" : "IIIIIIII") + "\n";
  }
  const auto path = test::write_file(dir.file("bad.fq"), text);
  io::FastqReader r(path);
  std::vector<io::Read> out;
  try {
    r.next_many(out, 4000, 8);
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("r1700"), std::string::npos) << e.what();
  }
}

void expect_fastq_error(const std::string& text, const std::string& needle) {
  test::TempDir dir;
  const auto path = test::write_file(dir.file("bad.fq"), text);
  io::FastqReader r(path);
  io::Read read;
  try {
    while (r.next(read)) {
    }
    FAIL() << "no error for: " << text;
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.fq"), std::string::npos) << e.what();
  }
}

TEST(Fastq, RejectsEachMalformedCase) {
  const std::string good = "@ok\nACGT\n+\nIIII\n";
  expect_fastq_error(good + "@r2\nACGT\n+\n", "record 2 ('r2') line 7: truncated record (no quality line)");
  expect_fastq_error(good + "@r2\nACGT\n", "record 2 ('r2') line 6: truncated record (no '+' line)");
  expect_fastq_error(good + "@r2\n", "truncated record (no sequence line)");
  expect_fastq_error(good + "@r2\nACGT\nIIII\nIIII\n", "record 2 ('r2') line 7: missing '+' separator line");
  expect_fastq_error(good + "@r2\nACGT\n+\nIII\n", "record 2 ('r2') line 8: quality length 3 != sequence length 4");
  expect_fastq_error(good + "@r2\nACGT\n+\nII I\n", "quality character (code 32) at position 3 is outside Phred+33");
  expect_fastq_error(good + "r2\nACGT\n+\nIIII\n", "record 2 line 5: expected '@' or '>'");
  expect_fastq_error("@r1\nAC-T\n+\nIIII\n", "invalid base '-' at position 3");
  expect_fastq_error("@" + std::string(255, 'n') + "\nACGT\n+\nIIII\n", "record 1 line 1: read name longer than 254");
}

TEST(Fastq, RejectsMatesThatDoNotPair) {
  test::TempDir dir;
  const auto p1 = test::write_file(dir.file("r1.fq"), "@a/1\nAC\n+\nII\n@b/1\nGG\n+\nII\n");
  const auto p2 = test::write_file(dir.file("r2.fq"), "@a/2\nTT\n+\nII\n@c/2\nCC\n+\nII\n");
  const auto p3 = test::write_file(dir.file("r3.fq"), "@a/2\nTT\n+\nII\n");
  io::ReadBatch batch;
  {
    io::FastqSource src(p1, p2);
    try {
      src.next_batch(batch, 100, 1 << 20);
      FAIL();
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find("record 2: mate name 'c' does not match 'b'"), std::string::npos)
          << e.what();
    }
  }
  {
    io::FastqSource src(p1, p3);
    try {
      src.next_batch(batch, 100, 1 << 20);
      FAIL();
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find("r3.fq' ends after 1 records"), std::string::npos) << e.what();
    }
  }
}

TEST(Fastq, TruncatedGzipIsAnError) {
  test::TempDir dir;
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "@r" + std::to_string(i) + "\nACGTACGTACGTACGTACGT\n+\nIIIIIIIIIIIIIIIIIIII\n";
  test::write_file(dir.file("a.fq"), text);
  ASSERT_EQ(test::run_command("gzip -c " + dir.file("a.fq") + " | head -c 20000 > " + dir.file("t.fq.gz")), 0);
  io::FastqReader r(dir.file("t.fq.gz"));
  io::Read read;
  EXPECT_THROW({ while (r.next(read)) {} }, Error);
}

TEST(Fastq, FastaRecordsHaveNoQualities) {
  test::TempDir dir;
  // One-line and wrapped sequences, an empty one, and a FASTQ record after them.
  const auto path = test::write_file(dir.file("a.fa"), ">a/1 x\nACGTn\n>b\nAC\nGT\n\nTT\n>c\n>d\nGG\n@e\nCC\n+\nII\n");
  io::FastqReader r(path);
  io::Read read;
  const std::vector<std::pair<std::string, std::string>> want = {{"a", "ACGTN"}, {"b", "ACGTTT"}, {"c", ""}, {"d", "GG"}};
  for (const auto& [name, seq] : want) {
    ASSERT_TRUE(r.next(read));
    EXPECT_EQ(read.name, name);
    EXPECT_EQ(read.seq, seq);
    EXPECT_TRUE(read.qual.empty());
  }
  ASSERT_TRUE(r.next(read));
  EXPECT_EQ(read.qual, "II");
  EXPECT_FALSE(r.next(read));
  expect_fastq_error(">r1\nAC-T\n", "record 1 ('r1') line 2: invalid base '-' at position 3");
}

// -p as bwa mem -p: two consecutive records of one name are a pair, any other record
// a single read; a pair is never split between batches; the fragments keep their order.
TEST(Fastq, SmartPairingFromOneFile) {
  test::TempDir dir;
  const auto path = test::write_file(dir.file("i.fq"), "@a/1\nAC\n+\nII\n@a/2\nTT\n+\nII\n@b/1\nGG\n+\nII\n@b/2\nCC\n+\nII\n");
  io::FastqSource src(path, "", true);
  io::ReadBatch batch;
  io::SinglesAmongPairs singles;
  ASSERT_TRUE(src.next_batch(batch, 3, 1 << 20, &singles));  // whole pairs only
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_TRUE(batch.paired);
  EXPECT_EQ(batch.reads[1].seq, "TT");
  EXPECT_TRUE(singles.reads.reads.empty());
  EXPECT_EQ(singles.single, std::vector<uint8_t>{0});
  ASSERT_TRUE(src.next_batch(batch, 100, 1 << 20, &singles));
  EXPECT_EQ(batch.reads[0].name, "b");
  EXPECT_EQ(batch.first_id, 1);
  EXPECT_EQ(src.fragments_read(), 2);
  EXPECT_FALSE(src.next_batch(batch, 100, 1 << 20, &singles));

  // Singles before, between and after pairs; mates of different names are two singles;
  // a batch cut between a record and its mate waits for the mate.
  const auto mixed = test::write_file(
      dir.file("m.fq"), "@s1\nA\n+\nI\n@p/1\nC\n+\nI\n@p/2\nG\n+\nI\n@x/1\nT\n+\nI\n@y/2\nA\n+\nI\n"
                         "@q\nC\n+\nI\n@q\nG\n+\nI\n@s2\nT\n+\nI\n");
  for (const size_t batch_reads : {2, 3, 100}) {
    io::FastqSource m(mixed, "", true);
    std::string order;  // P: a pair, its name; S: a single read, its name
    int64_t fragments = 0;
    while (m.next_batch(batch, batch_reads, 1 << 20, &singles)) {
      EXPECT_LE(batch.size() + singles.reads.size(), std::max<size_t>(batch_reads, 2));
      EXPECT_EQ(batch.first_id, fragments);
      EXPECT_EQ(singles.reads.first_id, fragments + static_cast<int64_t>(batch.size() / 2));
      size_t p = 0, q = 0;
      for (const uint8_t single : singles.single) {
        if (single) {
          order += "S" + singles.reads.reads[q++].name + " ";
        } else {
          EXPECT_EQ(batch.reads[p].name, batch.reads[p + 1].name);
          order += "P" + batch.reads[p].name + " ";
          p += 2;
        }
      }
      EXPECT_EQ(p, batch.size());
      EXPECT_EQ(q, singles.reads.size());
      fragments += static_cast<int64_t>(singles.single.size());
    }
    EXPECT_EQ(order, "Ss1 Pp Sx Sy Pq Ss2 ") << "batches of " << batch_reads;
  }
  EXPECT_THROW(io::FastqSource(path, path, true), UsageError);
}

TEST(Fastq, KeepsTheHeaderCommentAfterTheName) {
  test::TempDir dir;
  const auto path = test::write_file(dir.file("c.fq"), "@r1/1  BX:Z:A-1\tRX:Z:C\nAC\n+\nII\n@r2\nAC\n+\nII\n>r3 x y\nAC\n");
  io::FastqReader r(path);
  io::Read read;
  for (const char* want : {"BX:Z:A-1\tRX:Z:C", "", "x y"}) {
    ASSERT_TRUE(r.next(read));
    EXPECT_EQ(read.comment, want);
  }
}

// next_many splits plain four-line records on many threads and hands anything else to
// the record-by-record reader; the oracle is next(), which reads every record that way.
// Random files with blank lines, CRLF ends, FASTA records, a last line without '\n',
// quality lines beginning with '@' or '+' and every malformed case give the same reads
// (or the same error) either way.
namespace {
std::string read_all_one_by_one(const std::string& path, std::vector<io::Read>& reads) {
  io::FastqReader r(path);
  io::Read read;
  try {
    while (r.next(read)) reads.push_back(read);
  } catch (const FormatError& e) {
    return e.what();
  }
  return "";
}
std::string read_all_many(const std::string& path, size_t want, int threads, std::vector<io::Read>& reads) {
  io::FastqReader r(path);
  std::vector<io::Read> out;
  try {
    for (;;) {
      const size_t n = r.next_many(out, want, threads);
      reads.insert(reads.end(), out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n));
      if (n < want) return "";
    }
  } catch (const FormatError& e) {
    return e.what();
  }
}
}  // namespace

TEST(Fastq, ManyAtOnceEqualsOneByOne) {
  test::TempDir dir;
  const std::vector<std::string> odd = {"\n",  // a blank line between records
                                        ">fa desc\nACGT\nAC\n", "@\nACGT\n+\nIIII\n", "@x\nACGT\nIIII\nIIII\n",
                                        "@x\nACGT\n+\nIII\n", "x\nACGT\n+\nIIII\n", "@x\nAC-T\n+\nIIII\n"};
  std::mt19937 rng(3);
  for (int trial = 0; trial < 60; ++trial) {
    std::string text;
    const int records = 500 + static_cast<int>(rng() % 3000);
    const bool crlf = trial % 4 == 1;
    const int odd_kind = trial % 9 < 7 ? trial % 9 : -1;  // -1: none
    const int odd_at = static_cast<int>(rng() % static_cast<unsigned>(records));
    for (int i = 0; i < records; ++i) {
      if (i == odd_at && odd_kind >= 0) text += odd[static_cast<size_t>(odd_kind)];
      const int len = static_cast<int>(rng() % 160);
      std::string seq(static_cast<size_t>(len), 'A'), qual(static_cast<size_t>(len), 'I');
      for (char& c : seq) c = "ACGTNacgt"[rng() % 9];
      for (char& c : qual) c = "I@+#F"[rng() % 5];  // quality lines that begin like headers or '+' lines
      const std::string end = crlf ? "\r\n" : "\n";
      text += "@r" + std::to_string(i) + " c" + end + seq + end + "+" + end + qual + end;
    }
    if (trial % 3 == 2) text.pop_back();  // the last line without its '\n' (or with a bare '\r')
    const std::string path = test::write_file(dir.file("t.fq"), text);
    std::vector<io::Read> one, many;
    const std::string want_error = read_all_one_by_one(path, one);
    const size_t want = (trial % 2 ? 1024 : 1) + rng() % 1500;  // from 1024 reads, split on the threads
    const std::string error = read_all_many(path, want, 1 + trial % 5, many);
    EXPECT_EQ(error, want_error) << "trial " << trial;
    if (!want_error.empty()) continue;  // next_many stops at a batch's first error
    ASSERT_EQ(many.size(), one.size()) << "trial " << trial;
    for (size_t i = 0; i < one.size(); ++i) {
      ASSERT_EQ(std::tie(many[i].name, many[i].comment, many[i].seq, many[i].qual, many[i].mate_suffix),
                std::tie(one[i].name, one[i].comment, one[i].seq, one[i].qual, one[i].mate_suffix))
          << "trial " << trial << " read " << i;
    }
  }
}

// Batches cut in order and parsed later, on other threads and out of order (as map's
// parsers do), are next_batch's: the same reads, cut by records and bases, the same
// first error in file order.
TEST(Fastq, BatchesCutThenParsedOnOtherThreadsAreNextBatchs) {
  test::TempDir dir;
  std::string t1, t2;
  std::vector<std::string> truth;  // mate 1's bases, uppercase; mate 2 lacks the first
  for (int i = 0; i < 700; ++i) {
    const int len = 40 + (i * 53) % 170;
    std::string bases;
    for (int j = 0; j < len; ++j) bases += "ACGTacgtN"[(i * 7 + j * 3) % 9];
    truth.push_back(bases);
    for (char& c : truth.back()) c = static_cast<char>(std::toupper(c));
    const std::string name = "@q" + std::to_string(i);
    t1 += name + "/1 c" + std::to_string(i) + "\n" + bases + "\n+\n" + std::string(bases.size(), 'A') + "\n";
    t2 += name + "/2\n" + bases.substr(1) + "\n+" + name.substr(1) + "\n" + std::string(bases.size() - 1, '#') + "\n";
  }
  const auto p1 = test::write_file(dir.file("r1.fq"), t1);
  const auto p2 = test::write_file(dir.file("r2.fq"), t2 + "\n");
  const auto bad2 = test::write_file(dir.file("bad2.fq"), [&] {  // two bad records, in batches 3 and 5
    std::string t = t2;
    t.replace(t.find("@q250/2"), 7, "@q25x/2");
    t.replace(t.find("@q410/2\n") + 8, 1, "!");
    return t;
  }());
  const auto short2 = test::write_file(dir.file("short2.fq"), t2.substr(0, t2.find("@q690/2")));
  const auto one_pass = [](const std::string& a, const std::string& b, size_t records, size_t bases) {
    std::vector<io::ReadBatch> out;
    std::string error;
    io::FastqSource src(a, b);
    try {
      for (io::ReadBatch batch; src.next_batch(batch, records, bases);) out.push_back(batch);
    } catch (const FormatError& e) {
      error = e.what();
    }
    return std::make_pair(out, error);
  };
  const auto cut_then_parse = [](const std::string& a, const std::string& b, size_t records, size_t bases) {
    io::FastqSource src(a, b);
    EXPECT_TRUE(src.cuts());
    std::vector<io::RawBatch> raw(1);
    while (src.cut_batch(raw.back(), records, bases)) raw.emplace_back();
    raw.pop_back();
    std::vector<io::ReadBatch> out(raw.size());
    std::vector<std::string> errors(raw.size());
    std::vector<std::thread> parsers;
    for (size_t i = raw.size(); i-- > 0;) {
      parsers.emplace_back([&, i] {
        try {
          io::FastqSource::parse_batch(raw[i], out[i], 2);
        } catch (const FormatError& e) {
          errors[i] = e.what();
        }
      });
    }
    for (std::thread& t : parsers) t.join();
    std::string error;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (!errors[i].empty()) {  // the first batch in order that failed: the batches from it on are dropped
        out.resize(i);
        error = errors[i];
        break;
      }
    }
    return std::make_pair(out, error);
  };
  for (const auto& [second, records, bases] : std::vector<std::tuple<std::string, size_t, size_t>>{
           {p2, 100, 1 << 20}, {p2, 1000, 9000}, {p2, 3, 1}, {"", 77, 5000}, {bad2, 100, 1 << 20},
           {short2, 64, 1 << 20}, {short2, 10000, 1 << 30}}) {
    const auto [want, want_error] = one_pass(p1, second, records, bases);
    const auto [got, got_error] = cut_then_parse(p1, second, records, bases);
    const std::string what = second + " " + std::to_string(records) + " " + std::to_string(bases);
    EXPECT_EQ(got_error, want_error) << what;
    ASSERT_EQ(got.size(), want.size()) << what;
    size_t reads = 0;
    for (size_t b = 0; b < got.size(); ++b) {
      EXPECT_EQ(got[b].first_id, want[b].first_id) << what;
      EXPECT_EQ(got[b].paired, want[b].paired) << what;
      ASSERT_EQ(got[b].size(), want[b].size()) << what;
      for (size_t r = 0; r < got[b].size(); ++r, ++reads) {
        const io::Read &g = got[b].reads[r], &w = want[b].reads[r];
        EXPECT_EQ(std::tie(g.name, g.seq, g.qual, g.comment, g.mate_suffix),
                  std::tie(w.name, w.seq, w.qual, w.comment, w.mate_suffix))
            << what;
        const size_t i = second.empty() ? reads : reads / 2;
        const bool mate2 = !second.empty() && reads % 2 == 1;
        EXPECT_EQ(g.name, "q" + std::to_string(i));
        EXPECT_EQ(g.seq, mate2 ? truth[i].substr(1) : truth[i]);
      }
    }
    if (second == p2) {
      EXPECT_EQ(reads, 1400u) << what;
    }
    if (second.empty()) {
      EXPECT_EQ(reads, 700u);
    }
  }
  // The errors themselves, as a serial reader reports them.
  EXPECT_NE(one_pass(p1, bad2, 100, 1 << 20).second.find("bad2.fq' record 251: mate name 'q25x'"), std::string::npos);
  EXPECT_NE(one_pass(p1, short2, 64, 1 << 20).second.find("short2.fq' ends after 690 records"), std::string::npos);
}

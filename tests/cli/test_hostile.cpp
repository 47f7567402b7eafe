// The binary against hostile input and faults, one case per way it used to fail: no
// crash, no hang, no silent loss of data, no partial output that looks complete, honest
// exit codes (1 for bad input, 2 for usage) with messages naming the file or option.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <htslib/bgzf.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <tuple>

#include "../test_util.hpp"
#include "index/format.hpp"

using gatemap::test::read_file;
using gatemap::test::run_command;
using gatemap::test::write_file;

namespace {

const std::string kBin = GATEMAP_BINARY;

bool exists(const std::string& path) { return std::filesystem::exists(path); }

// A SAM file's lines but @PG (the command line differs between runs).
std::string sam_records(const std::string& sam) {
  std::string body, line;
  std::istringstream in(read_file(sam));
  while (std::getline(in, line)) {
    if (line.rfind("@PG", 0) != 0) body += line + "\n";
  }
  return body;
}

// A small simulated data set, made once: reference, index, donor, pairs, sorted BAM.
class Hostile : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new gatemap::test::TempDir();
    const std::string g = kBin + " ";
    std::string out;
    const std::string setup =
        g + "sim genome --length 120000 --contigs 3 -o " + f("ref.fa") + " && " + g + "index -o " + f("ref.gmi") + " " +
        f("ref.fa") + " && " + g + "sim variants --snp-rate 0.003 " + f("ref.fa") + " -o " + f("donor") + " && " + g +
        "sim reads " + f("ref.fa") + " --vcf " + f("donor.truth.vcf.gz") + " -n 6000 -o " + f("r") + " && " + g +
        "sim reads " + f("ref.fa") + " -n 3000 --gz -o " + f("rz") + " && " + g + "map -t 2 --sort -o " + f("aln.bam") +
        " " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq");
    ASSERT_EQ(run_command(setup, &out), 0) << out;
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string f(const std::string& name) { return dir_->file(name); }
  // Runs a gatemap command line (arguments after the binary); returns the exit status.
  static int gm(const std::string& args, std::string* out = nullptr) {
    return run_command("timeout 120 " + kBin + " " + args, out);
  }
  static gatemap::test::TempDir* dir_;
};
gatemap::test::TempDir* Hostile::dir_ = nullptr;

// Every option out of its range, NaN included, is a usage error naming the option.
TEST_F(Hostile, OptionsOutOfRangeAreUsageErrors) {
  const std::string ref = f("ref.fa"), idx = f("ref.gmi"), r1 = f("r_1.fq"), bam = f("aln.bam");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"map -t 100000 " + idx + " " + r1, "--threads"},
      {"index -t 100000 -o " + f("t.gmi") + " " + ref, "--threads"},
      {"call -t 100000 -r " + ref + " " + bam, "--threads"},
      {"correct -t 40000 -o " + f("t.fq") + " " + r1, "--threads"},
      {"map --max-cand -1 " + idx + " " + r1, "--max-cand"},
      {"map --max-cand 0 " + idx + " " + r1, "--max-cand"},
      {"map -e 65 " + idx + " " + r1, "--max-edits"},
      {"map --batch -1 " + idx + " " + r1, "--batch"},
      {"map --batch 99999999999 " + idx + " " + r1, "--batch"},
      {"sim variants " + ref + " --snp-rate nan -o " + f("t"), "--snp-rate"},
      {"sim variants " + ref + " --hom 2 -o " + f("t"), "--hom"},
      {"sim variants " + ref + " --hom -1 -o " + f("t"), "--hom"},
      {"sim variants " + ref + " --max-indel 1000 -o " + f("t"), "--max-indel"},
      {"sim variants " + ref + " --max-indel -1 -o " + f("t"), "--max-indel"},
      {"sim reads " + ref + " --sub-rate nan -n 10 -o " + f("t"), "--sub-rate"},
      {"sim reads " + ref + " --sub-rate 2 -n 10 -o " + f("t"), "--sub-rate"},
      {"sim reads " + ref + " --sub-rate -1 -n 10 -o " + f("t"), "--sub-rate"},
      {"sim reads " + ref + " -n -1 -o " + f("t"), "-n"},
      {"sim genome --length 1000000000000 -o " + f("t.fa"), "--length"},
      {"sim genome --gc nan -o " + f("t.fa"), "--gc"},
      {"eval map --tolerance -5 " + bam, "--tolerance"},
      {"correct --max-corrections -1 -o " + f("t.fq") + " " + r1, "--max-corrections"},
      {"correct --max-corrections 100000 -o " + f("t.fq") + " " + r1, "--max-corrections"},
      {"correct --gpu --cpu -o " + f("t.fq") + " " + r1, "--gpu"},
      {"call --min-qual nan -r " + ref + " " + bam, "--min-qual"},
      {"call --max-haplotypes 0 -r " + ref + " " + bam, "--max-haplotypes"},
      {"call --max-haplotypes -1 -r " + ref + " " + bam, "--max-haplotypes"},
      {"map -o " + f("t.cram") + " " + idx + " " + r1, "CRAM"},
      {"map -K -1 " + idx + " " + r1, "-K"},
      {"index -c 0 -o " + f("t.gmi") + " " + ref, "--max-occ"},
      {"bench filter --edits -1", "--edits"},
      {"bench filter --pairs -1", "--pairs"},
      {"bench filter --lengths 100,600", "--lengths"},
      {"bench pairhmm --sizes -5", "--sizes"},
      {"demo --scale nan", "--scale"},
      {"demo -n -5", "--pairs"},
      {"call -o " + f("t.sam") + " -r " + ref + " " + bam, "a VCF is written to"},
  };
  for (const auto& [args, flag] : cases) {
    std::string out;
    EXPECT_EQ(gm(args, &out), 2) << args << "\n" << out;
    EXPECT_NE(out.find(flag), std::string::npos) << args << "\n" << out;
    EXPECT_EQ(out.find("terminate called"), std::string::npos) << args;
  }
  EXPECT_FALSE(exists(f("t.cram")));
  // A genome larger than memory is refused before it is made (on machines under 100 GB).
  if (static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE)) < 1e11) {
    std::string out;
    EXPECT_EQ(gm("sim genome --length 100000000000 -o " + f("t.fa"), &out), 2) << out;
    EXPECT_NE(out.find("more than this machine has"), std::string::npos) << out;
  }
}

// An output that cannot be written is said before the input is read: the input here
// goes bad only at its last record, and the error names the output (correct opened its
// outputs after the count pass, 19 s of work on 1 M pairs before saying so; index after
// the build).
TEST_F(Hostile, UnwritableOutputIsSaidBeforeTheInputIsRead) {
  gatemap::test::TempDir d;
  write_file(d.file("bad_1.fq"), read_file(f("r_1.fq")) + "@last\nACGT\n+\nII\n");
  write_file(d.file("bad_2.fq"), read_file(f("r_2.fq")) + "@last\nACGT\n+\nII\n");
  write_file(d.file("bad.fa"), read_file(f("ref.fa")) + ">last\nAC@GT\n");
  const std::string nowhere = d.file("no-such-folder") + "/out";
  const std::vector<std::string> cases = {
      "correct -o " + nowhere + ".fq " + d.file("bad_1.fq"),
      "correct -o " + d.file("c1.fq") + " -p " + nowhere + ".fq " + d.file("bad_1.fq") + " " + d.file("bad_2.fq"),
      "map -o " + nowhere + ".bam " + f("ref.gmi") + " " + d.file("bad_1.fq") + " " + d.file("bad_2.fq"),
      "map --sort -o " + nowhere + ".bam " + f("ref.gmi") + " " + d.file("bad_1.fq") + " " + d.file("bad_2.fq"),
      "index -o " + nowhere + ".gmi " + d.file("bad.fa"),
  };
  for (const auto& args : cases) {
    std::string out;
    EXPECT_EQ(gm(args, &out), 1) << args << "\n" << out;
    EXPECT_NE(out.find(nowhere), std::string::npos) << args << "\n" << out;
    EXPECT_EQ(out.find("last"), std::string::npos) << args << "\n" << out;
  }
  EXPECT_FALSE(exists(d.file("c1.fq")));
}

TEST_F(Hostile, OutputThatIsAnInputIsRefused) {
  const std::string before = read_file(f("aln.bam"));
  const std::vector<std::string> cases = {
      "call -r " + f("ref.fa") + " -o " + f("aln.bam") + " " + f("aln.bam"),
      "index -o " + f("ref.fa") + " " + f("ref.fa"),
      "map -o " + f("r_1.fq") + " " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq"),
      "correct -o " + f("r_1.fq") + " " + f("r_1.fq"),
      "correct -o " + f("same.fq") + " -p " + f("same.fq") + " " + f("r_1.fq") + " " + f("r_2.fq"),
  };
  for (const auto& args : cases) {
    std::string out;
    EXPECT_EQ(gm(args, &out), 2) << args << "\n" << out;
  }
  // sim's outputs are named from a prefix: one of them may be the reference itself.
  gatemap::test::TempDir d;
  // The same file named two ways before it exists ("c.fq", "./c.fq"): refused, nothing made.
  std::string relative;
  EXPECT_EQ(run_command("cd " + d.path() + " && " + kBin + " correct -v 1 -o c.fq -p ./c.fq " + f("r_1.fq") + " " +
                            f("r_2.fq") + " 2>&1",
                        &relative),
            2)
      << relative;
  EXPECT_TRUE(std::filesystem::is_empty(d.path())) << relative;
  const std::string fa = read_file(f("ref.fa"));
  write_file(d.file("p.hap1.fa"), fa);
  write_file(d.file("x_1.fq"), fa);
  std::string out;
  EXPECT_EQ(gm("sim variants " + d.file("p.hap1.fa") + " -o " + d.file("p"), &out), 2) << out;
  EXPECT_EQ(gm("sim reads " + d.file("x_1.fq") + " -n 10 -o " + d.file("x"), &out), 2) << out;
  EXPECT_EQ(read_file(d.file("p.hap1.fa")), fa);
  EXPECT_EQ(read_file(d.file("x_1.fq")), fa);
  EXPECT_EQ(read_file(f("aln.bam")), before);
  EXPECT_GT(read_file(f("r_1.fq")).size(), 1000u);
  EXPECT_GT(read_file(f("ref.fa")).size(), 100000u);
}

// A run that fails at record 4001 leaves no output file (nor a temporary one), with or
// without --sort; a run that succeeds leaves exactly its output.
TEST_F(Hostile, FailedMapLeavesNoOutput) {
  gatemap::test::TempDir d;
  std::string fq = read_file(f("r_1.fq"));
  size_t at = 0;
  for (int line = 0; line < 4000 * 4; ++line) at = fq.find('\n', at) + 1;
  fq.insert(at, "@bad\nACGT\n+\nII\n");
  write_file(f("bad.fq"), fq);
  for (const char* sort : {"", "--sort "}) {
    std::string out;
    EXPECT_EQ(gm(std::string("map ") + sort + "-o " + d.file("out.bam") + " " + f("ref.gmi") + " " + f("bad.fq"), &out),
              1)
        << out;
    EXPECT_NE(out.find("record 4001"), std::string::npos) << out;
    EXPECT_TRUE(std::filesystem::is_empty(d.path())) << "left behind after: map " << sort;
  }
  ASSERT_EQ(gm("map -o " + d.file("ok.bam") + " " + f("ref.gmi") + " " + f("r_1.fq")), 0);
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(d.path())) n += !e.path().empty();
  EXPECT_EQ(n, 1);
}

// map restarts itself with malloc on huge pages (apps/main.cpp), keeping a user's other
// glibc tunables; a user's own choice of it stands. The records are the same either way.
TEST_F(Hostile, MapAsksMallocForHugePagesUnlessTheUserChose) {
  const std::string args = "map -t 2 -v 4 " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq");
  std::string ours, theirs, other;
  ASSERT_EQ(gm(args + " -o " + f("huge.sam"), &ours), 0) << ours;
  EXPECT_NE(ours.find("[D::main] GLIBC_TUNABLES glibc.malloc.hugetlb=1\n"), std::string::npos) << ours;
  ASSERT_EQ(run_command("GLIBC_TUNABLES=glibc.malloc.hugetlb=0 " + kBin + " " + args + " -o " + f("small.sam"), &theirs), 0)
      << theirs;
  EXPECT_NE(theirs.find("[D::main] GLIBC_TUNABLES glibc.malloc.hugetlb=0\n"), std::string::npos) << theirs;
  ASSERT_EQ(run_command("GLIBC_TUNABLES=glibc.malloc.arena_max=4 " + kBin + " " + args + " -o " + f("other.sam"), &other), 0)
      << other;
  EXPECT_NE(other.find("[D::main] GLIBC_TUNABLES glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1\n"), std::string::npos)
      << other;
  std::string index_log;
  ASSERT_EQ(gm("index -v 4 -o " + f("again.gmi") + " " + f("ref.fa"), &index_log), 0) << index_log;
  EXPECT_EQ(index_log.find("GLIBC_TUNABLES"), std::string::npos) << index_log;  // map's alone
  EXPECT_EQ(sam_records(f("small.sam")), sam_records(f("huge.sam")));
  EXPECT_EQ(sam_records(f("other.sam")), sam_records(f("huge.sam")));
}

// call restarts itself with malloc on huge pages and buffers up to 256 MiB from the heap
// (apps/main.cpp), each where the user has not set it; the calls are the same either way.
TEST_F(Hostile, CallAsksMallocForHugePagesAndItsHeapUnlessTheUserChose) {
  ASSERT_EQ(gm("map -t 2 --sort -o " + f("tunables.bam") + " " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq")), 0);
  const std::string args = "call -t 2 -v 4 -r " + f("ref.fa") + " " + f("tunables.bam");
  std::string ours, theirs;
  ASSERT_EQ(gm(args + " -o " + f("ours.vcf"), &ours), 0) << ours;
  EXPECT_NE(ours.find("[D::main] GLIBC_TUNABLES glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=268435456\n"),
            std::string::npos)
      << ours;
  ASSERT_EQ(run_command("GLIBC_TUNABLES=glibc.malloc.hugetlb=0 " + kBin + " " + args + " -o " + f("theirs.vcf"), &theirs), 0)
      << theirs;
  EXPECT_NE(theirs.find("[D::main] GLIBC_TUNABLES glibc.malloc.hugetlb=0:glibc.malloc.mmap_threshold=268435456\n"),
            std::string::npos)
      << theirs;
  const auto records = [](const std::string& vcf) {
    std::string out;
    std::istringstream in(read_file(vcf));
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("##", 0) != 0) out += line + "\n";
    }
    return out;
  };
  EXPECT_GT(records(f("ours.vcf")).size(), 100u);
  EXPECT_EQ(records(f("ours.vcf")), records(f("theirs.vcf")));
}

// OpenMP's thread binding (OMP_PROC_BIND, OMP_PLACES: often set on clusters) bound the
// first thread to one core and with it every thread gatemap starts: a run on one core.
// It is undone with a warning: as many CPUs as without it, the same records.
TEST_F(Hostile, OpenMpThreadBindingIsUndone) {
  const std::string args = "map -t 2 -v 4 " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq");
  std::string plain, bound;
  ASSERT_EQ(gm(args + " -o " + f("unbound.sam"), &plain), 0) << plain;
  ASSERT_EQ(run_command("OMP_PROC_BIND=close OMP_PLACES=cores timeout 120 " + kBin + " " + args + " -o " +
                            f("bound.sam"),
                        &bound),
            0)
      << bound;
  EXPECT_NE(bound.find("[W::main] OMP_PROC_BIND"), std::string::npos) << bound;
  EXPECT_EQ(plain.find("[W::main]"), std::string::npos) << plain;
  const auto cpus = [](const std::string& log) {
    const size_t at = log.find(" CPUs allowed");
    const size_t line = log.rfind(' ', at - 1);
    return at == std::string::npos ? std::string("none") : log.substr(line + 1, at - line - 1);
  };
  EXPECT_NE(cpus(plain), "none") << plain;
  EXPECT_EQ(cpus(bound), cpus(plain)) << bound;
  EXPECT_EQ(sam_records(f("bound.sam")), sam_records(f("unbound.sam")));
}

// Under a memory limit the mapper either finishes or says it ran out: never a crash,
// never an output file from a failed run.
// The same for call, whose read-ahead threads allocate too (an allocation that failed
// there used to end the process from its thread: "terminate called").
TEST_F(Hostile, LowMemoryCallIsAnErrorNotACrash) {
  gatemap::test::TempDir d;
  int failed = 0, ok = 0;
  for (int kb = 100000; kb <= 900000; kb += 100000) {
    std::string out;
    const int rc = run_command("ulimit -v " + std::to_string(kb) + "; " + kBin + " call -t 4 -r " + f("ref.fa") +
                                   " -o " + d.file("lm.vcf") + " " + f("aln.bam"),
                               &out);
    ASSERT_TRUE(rc == 0 || rc == 1) << "ulimit -v " << kb << ": status " << rc << "\n" << out;
    EXPECT_EQ(out.find("terminate called"), std::string::npos) << out;
    if (rc == 0) {
      ++ok;
      std::filesystem::remove(d.file("lm.vcf"));
      continue;
    }
    ++failed;
    for (const auto& e : std::filesystem::directory_iterator(d.path())) {
      ADD_FAILURE() << "ulimit -v " << kb << " left " << e.path().filename() << "\n" << out;
    }
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(failed, 0);
}

// A file-size limit (ulimit -f) makes the write fail: a clear error, exit 1, nothing left
// (it used to kill the run with SIGXFSZ, exit 153, no message).
TEST_F(Hostile, FileSizeLimitIsAWriteError) {
  gatemap::test::TempDir d;
  std::string out;
  const int status = run_command("ulimit -f 64 && " + kBin + " map -o " + d.file("big.sam") + " " + f("ref.gmi") + " " +
                                     f("r_1.fq") + " " + f("r_2.fq") + " 2>&1",
                                 &out);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("big.sam"), std::string::npos) << out;
  EXPECT_TRUE(std::filesystem::is_empty(d.path())) << "files left behind";
}

TEST_F(Hostile, LowMemoryIsAnErrorNotACrash) {
  gatemap::test::TempDir d;
  int failed = 0, ok = 0;
  for (int kb = 100000; kb <= 600000; kb += 25000) {
    std::string out;
    const int rc = run_command("ulimit -v " + std::to_string(kb) + "; " + kBin + " map -t 2 -o " + d.file("lm.bam") +
                                   " " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq"),
                               &out);
    ASSERT_TRUE(rc == 0 || rc == 1) << "ulimit -v " << kb << ": status " << rc << "\n" << out;
    EXPECT_EQ(out.find("terminate called"), std::string::npos) << out;
    if (rc == 1) {
      ++failed;
      for (const auto& e : std::filesystem::directory_iterator(d.path())) {
        ADD_FAILURE() << "ulimit -v " << kb << " left " << e.path().filename() << "\n" << out;
        std::filesystem::remove(e.path());
      }
    } else {
      ++ok;
      std::filesystem::remove(d.file("lm.bam"));
    }
  }
  EXPECT_GT(ok, 0);      // the largest limit is enough
  EXPECT_GT(failed, 0);  // and the smallest is not: the failure path ran
}

// Many threads under a memory limit: each failure is an error of ours saying what to do,
// also where libgomp itself ends the process because a thread could not start (it used
// to say only "libgomp: Thread creation failed").
TEST_F(Hostile, ThreadsThatCannotStartAreExplained) {
  gatemap::test::TempDir d;
  int failed = 0;
  for (int kb = 300000; kb <= 1500000; kb += 100000) {
    std::string out;
    const int rc = run_command("ulimit -v " + std::to_string(kb) + "; " + kBin + " map -t 32 -v 1 -o " +
                                   d.file("t.bam") + " " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq") + " 2>&1",
                               &out);
    ASSERT_TRUE(rc == 0 || rc == 1) << "ulimit -v " << kb << ": status " << rc << "\n" << out;
    if (rc == 0) {
      std::filesystem::remove(d.file("t.bam"));
      continue;
    }
    ++failed;
    EXPECT_NE(out.find("[E::map]"), std::string::npos) << "ulimit -v " << kb << ":\n" << out;
    EXPECT_TRUE(out.find("libgomp") == std::string::npos || out.find("try fewer threads (-t)") != std::string::npos)
        << out;
    EXPECT_TRUE(std::filesystem::is_empty(d.path())) << "ulimit -v " << kb << " left files\n" << out;
  }
  EXPECT_GT(failed, 0);
}

TEST_F(Hostile, TruncatedBgzfInputIsAnError) {
  gatemap::test::TempDir d;
  // Cut each BGZF file at a block boundary before its last data block: it still reads
  // as a complete file; only the missing end-of-file marker tells.
  const auto cut = [&](const std::string& src, const std::string& dst) {
    const std::string data = read_file(src);
    std::vector<size_t> blocks;
    for (size_t i = 0; i + 18 <= data.size();) {
      blocks.push_back(i);
      i += (static_cast<unsigned char>(data[i + 16]) | static_cast<unsigned char>(data[i + 17]) << 8) + 1;
    }
    ASSERT_GE(blocks.size(), 3u) << src;
    write_file(dst, data.substr(0, blocks[blocks.size() - 2]));
  };
  cut(f("rz_1.fq.gz"), d.file("cut.fq.gz"));
  cut(f("aln.bam"), d.file("cut.bam"));
  cut(f("donor.truth.vcf.gz"), d.file("cut.vcf.gz"));
  const std::vector<std::string> cases = {
      "map " + f("ref.gmi") + " " + d.file("cut.fq.gz"),
      "correct -o " + d.file("c.fq") + " " + d.file("cut.fq.gz"),
      "call -r " + f("ref.fa") + " " + d.file("cut.bam"),
      "eval map " + d.file("cut.bam"),
      "eval vcf " + d.file("cut.vcf.gz") + " " + f("donor.truth.vcf.gz") + " -r " + f("ref.fa"),
  };
  for (const auto& args : cases) {
    std::string out;
    EXPECT_EQ(gm(args, &out), 1) << args << "\n" << out;
    EXPECT_NE(out.find("end-of-file marker"), std::string::npos) << args << "\n" << out;
  }
  EXPECT_FALSE(exists(d.file("c.fq")));
}

// Unplaced records anywhere, contigs the reference lacks: the other calls still come.
// Another assembly (same name, other length), records outside their contig, no
// common contig and FASTQ given as reads: errors, no hang.
TEST_F(Hostile, CallerInputChecks) {
  gatemap::test::TempDir d;
  std::string all, out;
  // The calls are read from their file alone: a progress line on stderr may land anywhere
  // in output that mixes the two streams.
  const auto vcf = [&](const std::string& args) {
    std::filesystem::remove(d.file("calls.vcf"));
    EXPECT_EQ(gm("call -o " + d.file("calls.vcf") + " " + args, &out), 0) << args << "\n" << out;
    return read_file(d.file("calls.vcf"));
  };
  all = vcf("-r " + f("ref.fa") + " " + f("aln.bam"));
  const auto calls_on = [](const std::string& vcf, const std::string& contig) {
    int n = 0;
    for (size_t at = vcf.find("\n" + contig + "\t"); at != std::string::npos;
         at = vcf.find("\n" + contig + "\t", at + 1)) {
      ++n;
    }
    return n;
  };
  ASSERT_GT(calls_on(all, "3"), 10);
  // An unplaced record in the middle of the file.
  ASSERT_EQ(
      run_command("samtools view -h " + f("aln.bam") +
                  " | awk 'BEGIN{d=0} /^@/ {print; next} "
                  "{if (!d && $3==\"2\") {print \"u1\\t4\\t*\\t0\\t0\\t*\\t*\\t0\\t0\\tACGT\\tIIII\"; d=1} print}' > " +
                  d.file("mid.sam")),
      0);
  EXPECT_EQ(calls_on(vcf("-r " + f("ref.fa") + " " + d.file("mid.sam")), "3"), calls_on(all, "3"));
  // A reference without contig 2, and one whose contig 3 is shorter.
  std::string fa = read_file(f("ref.fa"));
  const size_t c2 = fa.find(">2\n"), c3 = fa.find(">3\n");
  write_file(d.file("no2.fa"), fa.substr(0, c2) + fa.substr(c3));
  const std::string no2 = vcf("-r " + d.file("no2.fa") + " " + f("aln.bam"));
  EXPECT_EQ(calls_on(no2, "3"), calls_on(all, "3"));
  EXPECT_EQ(calls_on(no2, "2"), 0);
  write_file(d.file("short3.fa"), fa.substr(0, c3) + fa.substr(c3, (fa.size() - c3) / 2) + "\n");
  EXPECT_EQ(gm("call -r " + d.file("short3.fa") + " " + f("aln.bam"), &out), 1) << out;
  EXPECT_NE(out.find("bp in"), std::string::npos) << out;
  // A record far past its contig's end (it used to run for minutes).
  ASSERT_EQ(run_command("samtools view -h " + f("aln.bam") +
                        " | awk 'BEGIN{OFS=\"\\t\"} /^@/ {print; next} "
                        "{n++} n==50 {$4=2147000000} {print}' > " +
                        d.file("far.sam")),
            0);
  EXPECT_EQ(gm("call -r " + f("ref.fa") + " " + d.file("far.sam"), &out), 1) << out;
  EXPECT_NE(out.find("outside its contig"), std::string::npos) << out;
  // Nothing in common with the reference; FASTQ instead of BAM.
  write_file(d.file("other.fa"), ">chrX\n" + std::string(1000, 'A') + "\n");
  EXPECT_EQ(gm("call -r " + d.file("other.fa") + " -o " + d.file("x.vcf") + " " + f("aln.bam"), &out), 1) << out;
  EXPECT_FALSE(exists(d.file("x.vcf")));
  EXPECT_EQ(gm("call -r " + f("ref.fa") + " " + f("r_1.fq"), &out), 1) << out;
  // BCF output is BCF.
  ASSERT_EQ(gm("call -r " + f("ref.fa") + " -o " + d.file("c.bcf") + " " + f("aln.bam"), &out), 0) << out;
  EXPECT_EQ(read_file(d.file("c.bcf")).substr(0, 2), "\x1f\x8b");
  if (run_command("command -v bcftools") == 0) {
    ASSERT_EQ(run_command("bcftools view -H " + d.file("c.bcf") + " | wc -l", &out), 0);
    EXPECT_EQ(std::stoi(out), calls_on(all, "1") + calls_on(all, "2") + calls_on(all, "3"));
  }
}

// A CRAM is decoded against call's -r, not the reference its header names: a moved
// reference still gives the BAM's calls (it was "bad record after record 0", after a try
// to download the reference); a wrong one is an error that says what to check.
TEST_F(Hostile, CallReadsCramWithItsReference) {
  gatemap::test::TempDir d;
  std::string out;
  write_file(d.file("moving.fa"), read_file(f("ref.fa")));
  ASSERT_EQ(run_command("samtools view -C -T " + d.file("moving.fa") + " -o " + d.file("a.cram") + " " + f("aln.bam") +
                        " && samtools index " + d.file("a.cram")),
            0);
  std::filesystem::create_directory(d.file("elsewhere"));
  std::filesystem::rename(d.file("moving.fa"), d.file("elsewhere/ref.fa"));
  std::filesystem::remove(d.file("moving.fa.fai"));
  ASSERT_EQ(gm("call -r " + d.file("elsewhere/ref.fa") + " -o " + d.file("cram.vcf") + " " + d.file("a.cram"), &out), 0)
      << out;
  ASSERT_EQ(gm("call -r " + f("ref.fa") + " -o " + d.file("bam.vcf") + " " + f("aln.bam"), &out), 0) << out;
  const auto body = [](const std::string& vcf) {
    std::string b;
    for (size_t at = 0; at < vcf.size();) {
      const size_t nl = vcf.find('\n', at);
      if (vcf[at] != '#') b += vcf.substr(at, nl - at + 1);
      at = nl + 1;
    }
    return b;
  };
  EXPECT_EQ(body(read_file(d.file("cram.vcf"))), body(read_file(d.file("bam.vcf"))));
  // Another sequence of the same contig names and lengths: the checksums disagree.
  std::string other = read_file(f("ref.fa"));
  for (size_t i = other.find('\n') + 1; i < other.size(); i += 97) {
    if (other[i] == 'A') other[i] = 'C';
  }
  write_file(d.file("elsewhere/other.fa"), other);
  EXPECT_EQ(gm("call -r " + d.file("elsewhere/other.fa") + " -o " + d.file("x.vcf") + " " + d.file("a.cram"), &out), 1)
      << out;
  EXPECT_NE(out.find("the reference the CRAM was written against"), std::string::npos) << out;
  EXPECT_FALSE(exists(d.file("x.vcf")));
}

// Reads of two samples (by @RG SM) would be genotyped as one: a clear error naming both
// and what to do, before any output; two read groups of one sample are one sample.
TEST_F(Hostile, CallGivesEachSampleAColumnAndAGvcfOne) {
  gatemap::test::TempDir d;
  std::string out;
  const auto with_groups = [&](const std::string& name, const std::string& groups) {
    ASSERT_EQ(run_command("samtools view -h " + f("aln.bam") + " | awk -v g='" + groups +
                          "' '/^@PG/ && !done {n = split(g, a, \";\"); for (i = 1; i <= n; i++) print a[i]; done = 1} "
                          "{print}' > " + d.file(name)),
              0);
  };
  with_groups("a.sam", "@RG\tID:a\tSM:NA12878");
  with_groups("b.sam", "@RG\tID:b\tSM:HG002");
  with_groups("ab.sam", "@RG\tID:a\tSM:NA12878;@RG\tID:b\tSM:NA12878");
  with_groups("two.sam", "@RG\tID:a\tSM:NA12878;@RG\tID:b\tSM:HG002");  // reads without RG: whose?
  ASSERT_EQ(gm("call -r " + f("ref.fa") + " -o " + d.file("x.vcf") + " " + d.file("a.sam") + " " + d.file("b.sam"),
               &out),
            0)
      << out;
  EXPECT_NE(read_file(d.file("x.vcf")).find("\tNA12878\tHG002\n"), std::string::npos);
  EXPECT_EQ(gm("call --gvcf -r " + f("ref.fa") + " -o " + d.file("x.g.vcf") + " " + d.file("a.sam") + " " +
                   d.file("b.sam"),
               &out),
            2);
  EXPECT_NE(out.find("gatemap joint"), std::string::npos) << out;
  EXPECT_FALSE(exists(d.file("x.g.vcf")));
  EXPECT_EQ(gm("call -r " + f("ref.fa") + " -o " + d.file("z.vcf") + " " + d.file("two.sam"), &out), 1);
  EXPECT_NE(out.find("no RG tag, and the file holds several samples"), std::string::npos) << out;
  EXPECT_FALSE(exists(d.file("z.vcf")));
  ASSERT_EQ(gm("call -r " + f("ref.fa") + " -o " + d.file("y.vcf") + " " + d.file("ab.sam"), &out), 0) << out;
  EXPECT_NE(read_file(d.file("y.vcf")).find("\tNA12878\n"), std::string::npos);
}

TEST_F(Hostile, EvalVcfRejectsTheWrongReference) {
  std::string out;
  ASSERT_EQ(run_command(kBin + " sim genome --length 60000 --contigs 3 --seed 99 -o " + f("other3.fa")), 0);
  EXPECT_EQ(gm("eval vcf " + f("donor.truth.vcf.gz") + " " + f("donor.truth.vcf.gz") + " -r " + f("other3.fa"), &out),
            1)
      << out;
  EXPECT_NE(out.find("REF allele"), std::string::npos) << out;
}

// A TMPDIR that is no folder is named in the error (it was "temp_directory_path: No such
// file or directory"); correct's spill folder goes there too.
TEST_F(Hostile, MissingTmpdirIsNamed) {
  std::string out;
  EXPECT_EQ(run_command("TMPDIR=/nonexistent/tmp " + kBin + " demo -n 100 2>&1", &out), 1) << out;
  EXPECT_NE(out.find("'/nonexistent/tmp' (TMPDIR) does not exist"), std::string::npos) << out;
  EXPECT_EQ(run_command("cat " + f("r_1.fq") + " | TMPDIR=/nonexistent/tmp " + kBin +
                            " correct --keep-reads-gb 0 -o /dev/null - 2>&1",
                        &out),
            1)
      << out;
  EXPECT_NE(out.find("(TMPDIR) does not exist"), std::string::npos) << out;
}

// Contig names SAM and VCF cannot hold, or given twice, are refused by index (they used
// to fail later, as "bad VCF header line" or a SAM that samtools rejects).
TEST_F(Hostile, IndexRefusesContigNamesSamCannotHold) {
  gatemap::test::TempDir d;
  const std::string seq = "\n" + std::string(200, 'A') + "\n";
  std::string out;
  for (const auto& [fasta, message] : std::vector<std::pair<std::string, std::string>>{
           {">a,b" + seq, "contig 'a,b': the character ','"},
           {">*x" + seq, "contig '*x': the character '*'"},
           {">x" + seq + ">y" + seq + ">x" + seq, "line 5: duplicate sequence name 'x'"}}) {
    write_file(d.file("bad.fa"), fasta);
    EXPECT_EQ(gm("index -o " + d.file("bad.gmi") + " " + d.file("bad.fa"), &out), 1) << fasta;
    EXPECT_NE(out.find(message), std::string::npos) << out;
    EXPECT_FALSE(exists(d.file("bad.gmi")));
  }
  write_file(d.file("ok.fa"), ">HLA-A*01:01:01:01" + seq + ">chrUn_gl000220|x" + seq);
  EXPECT_EQ(gm("index -o " + d.file("ok.gmi") + " " + d.file("ok.fa"), &out), 0) << out;
}

// A VCF line cut short, or a POS that is no number, is an error naming the file and
// record (htslib reads both as records: one was dropped, the other reported as a REF
// mismatch).
TEST_F(Hostile, EvalVcfRejectsCutLinesAndBadPositions) {
  gatemap::test::TempDir d;
  const std::string header = "##fileformat=VCFv4.2\n##contig=<ID=1>\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n";
  const std::string good = "1\t100\t.\tN\tC\t50\tPASS\t.\n";
  write_file(d.file("truth.vcf"), header + good);
  write_file(d.file("cut.vcf"), header + good + "1\t200\t.\n");
  write_file(d.file("pos.vcf"), header + good + "1\tx00\t.\tN\tC\t50\tPASS\t.\n");
  std::string out;
  EXPECT_EQ(gm("eval vcf " + d.file("truth.vcf") + " " + d.file("cut.vcf") + " -r " + f("ref.fa"), &out), 1) << out;
  EXPECT_NE(out.find("cut.vcf' record 2: no REF allele"), std::string::npos) << out;
  EXPECT_EQ(gm("eval vcf " + d.file("truth.vcf") + " " + d.file("pos.vcf") + " -r " + f("ref.fa"), &out), 1) << out;
  EXPECT_NE(out.find("pos.vcf' record 2: POS is not a position"), std::string::npos) << out;
  EXPECT_EQ(gm("eval vcf " + d.file("truth.vcf") + " " + d.file("truth.vcf") + " -r " + f("ref.fa"), &out), 0) << out;
}

// Reads from a pipe outgrowing the in-memory allowance are spilled, not lost; headers
// (names, /1 /2, comments) come out as they went in.
TEST_F(Hostile, CorrectFromPipesKeepsEveryReadAndItsHeader) {
  gatemap::test::TempDir d;
  std::string fq = read_file(f("r_1.fq"));
  // A comment on every read.
  std::string commented;
  size_t line_start = 0;
  for (int line = 0; line_start < fq.size(); ++line) {
    const size_t end = fq.find('\n', line_start);
    commented += fq.substr(line_start, end - line_start) + (line % 4 == 0 ? " BX:Z:A1 extra" : "") + "\n";
    line_start = end + 1;
  }
  write_file(d.file("in.fq"), commented);
  std::string out;
  ASSERT_EQ(run_command("cat " + d.file("in.fq") + " | timeout 120 " + kBin + " correct --keep-reads-gb 0 -o " +
                            d.file("c.fq") + " -",
                        &out),
            0)
      << out;
  const std::string corrected = read_file(d.file("c.fq"));
  const auto headers = [](const std::string& s) {
    std::vector<std::string> h;
    size_t at = 0;
    for (int line = 0; at < s.size(); ++line) {
      const size_t end = s.find('\n', at);
      if (line % 4 == 0) h.push_back(s.substr(at, end - at));
      at = end + 1;
    }
    return h;
  };
  const auto in_headers = headers(commented), out_headers = headers(corrected);
  ASSERT_EQ(out_headers.size(), 6000u);
  EXPECT_EQ(out_headers, in_headers);
  EXPECT_NE(in_headers[0].find("/1 BX:Z:A1 extra"), std::string::npos) << in_headers[0];
  // A named pipe (opened twice before: it blocked).
  const std::string fifo = d.file("pipe.fq");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(run_command("(cat " + d.file("in.fq") + " > " + fifo + " &) ; timeout 120 " + kBin +
                            " correct --keep-reads-gb 0 -o " + d.file("p.fq") + " " + fifo,
                        &out),
            0)
      << out;
  EXPECT_EQ(headers(read_file(d.file("p.fq"))), in_headers);
  EXPECT_EQ(read_file(d.file("p.fq")), corrected);
}

// An index whose header fields disagree with its sections (checksums recomputed, as a
// crafted or mixed-up file would have them) is refused, not read out of bounds.
TEST_F(Hostile, IndexHeaderMustDescribeItsSections) {
  using namespace gatemap::index::detail;
  const std::string good = read_file(f("ref.gmi"));
  for (int field = 0; field < 3; ++field) {
    std::string bad = good;
    FileHeader h;
    std::memcpy(&h, bad.data(), sizeof(h));
    if (field == 0) h.k = 12;
    if (field == 1) h.bucket_bits += 3;
    if (field == 2) h.length += 640;
    h.header_checksum = checksum(&h, offsetof(FileHeader, header_checksum));
    std::memcpy(bad.data(), &h, sizeof(h));
    const std::string path = f("bad" + std::to_string(field) + ".gmi");
    write_file(path, bad);
    std::string out;
    EXPECT_EQ(gm("map " + path + " " + f("r_1.fq"), &out), 1) << field << "\n" << out;
    EXPECT_NE(out.find("index '" + path + "'"), std::string::npos) << out;
  }
}

// A flipped bit in a contig's name keeps the layout sound: only the checksums, which map
// checks while CUDA starts, find it. The run fails naming the file and the section,
// before any record is written.
TEST_F(Hostile, IndexWithAFlippedBitFailsTheMapBeforeItsOutput) {
  using namespace gatemap::index::detail;
  std::string bad = read_file(f("ref.gmi"));
  FileHeader h;
  std::memcpy(&h, bad.data(), sizeof(h));
  bad[h.sections[kNames].offset] ^= 0x01;  // a character of the first name: still a name
  const std::string path = f("flipped.gmi"), sam = f("flipped.sam");
  write_file(path, bad);
  std::string out;
  EXPECT_EQ(gm("map -o " + sam + " " + path + " " + f("r_1.fq"), &out), 1) << out;
  EXPECT_NE(out.find("index '" + path + "': section 0 checksum mismatch"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(sam));
}

TEST_F(Hostile, SamGzOutputIsBgzippedSam) {
  gatemap::test::TempDir d;
  std::string out;
  ASSERT_EQ(gm("map -o " + d.file("o.sam.gz") + " " + f("ref.gmi") + " " + f("r_1.fq"), &out), 0) << out;
  EXPECT_EQ(read_file(d.file("o.sam.gz")).substr(0, 2), "\x1f\x8b");
  ASSERT_EQ(run_command("samtools view -c -F 0x900 " + d.file("o.sam.gz"), &out), 0);
  EXPECT_EQ(std::stoi(out), 6000);
}

}  // namespace

// Every form of the reads (plain, gzip of one member or many, BGZF, each from a file or
// a pipe) gives the same records; a cut gzip file, read either way, the same clear error
// and no output.
TEST_F(Hostile, EveryInputFormGivesTheSameRecordsOrTheSameError) {
  gatemap::test::TempDir d;
  const std::string r1 = f("r_1.fq"), r2 = f("r_2.fq");
  ASSERT_EQ(run_command("gzip -1 -c " + r1 + " > " + d.file("one.fq.gz")), 0);
  ASSERT_EQ(run_command("cd " + d.path() + " && split -n 4 " + r1 + " part. && for p in part.*; do gzip -9 -c $p; done" +
                        " > many.fq.gz"),
            0);
  {
    const std::string text = read_file(r1);
    BGZF* fp = bgzf_open(d.file("r.fq.bgz").c_str(), "w");
    ASSERT_NE(fp, nullptr);
    ASSERT_EQ(bgzf_write(fp, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ASSERT_EQ(bgzf_close(fp), 0);
  }
  const std::string gz = read_file(d.file("one.fq.gz"));
  write_file(d.file("cut.fq.gz"), gz.substr(0, gz.size() * 2 / 3));
  const auto records = [&](const std::string& reads1, bool piped, std::string* out) {
    const std::string sam = d.file("out.sam");
    std::filesystem::remove(sam);
    const std::string map = "map -t 2 -o " + sam + " " + f("ref.gmi") + " " + (piped ? "-" : reads1) + " " + r2;
    const int rc = piped ? run_command("cat " + reads1 + " | timeout 120 " + kBin + " " + map, out) : gm(map, out);
    if (rc != 0) return "exit " + std::to_string(rc) + (exists(sam) ? " with output" : "");
    std::string kept;
    std::istringstream in(read_file(sam));
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("@PG", 0) != 0) kept += line + "\n";
    }
    return kept;
  };
  std::string out;
  const std::string expected = records(r1, false, &out);
  ASSERT_GT(expected.size(), 1000u) << out;
  for (const char* name : {"one.fq.gz", "many.fq.gz", "r.fq.bgz"}) {
    for (const bool piped : {false, true}) {
      SCOPED_TRACE(std::string(name) + (piped ? " piped" : ""));
      EXPECT_TRUE(records(d.file(name), piped, &out) == expected) << out;
    }
  }
  for (const bool piped : {false, true}) {
    EXPECT_EQ(records(d.file("cut.fq.gz"), piped, &out), "exit 1") << out;
    EXPECT_NE(out.find("truncated"), std::string::npos) << out;
  }
  EXPECT_EQ(gm("map " + f("ref.gmi") + " - - < " + r1, &out), 2) << out;
}

// SIGTERM, SIGINT or SIGHUP while a command waits for the rest of its input (a FIFO held
// open): the process ends as by the signal and leaves no temporary file, no sort runs and
// no output.
TEST_F(Hostile, SignalsLeaveNoTemporaryAndNoOutput) {
  struct Case {
    std::string name;
    std::vector<std::string> args;  // "FIFO" and "OUT" stand for the input and the output
    std::string input;              // whose first bytes go into the FIFO
    std::string output;
  };
  const std::vector<Case> cases = {
      {"map --sort --markdup", {"map", "-t", "2", "--sort", "--markdup", "-o", "OUT", f("ref.gmi"), "FIFO", f("r_2.fq")},
       f("r_1.fq"), "out.bam"},
      {"correct", {"correct", "-t", "2", "-o", "OUT", "FIFO"}, f("r_1.fq"), "c.fq"},
      {"call --gvcf", {"call", "--gvcf", "-t", "2", "-r", f("ref.fa"), "-o", "OUT", "FIFO"}, f("aln.bam"), "c.g.vcf.gz"},
      {"index", {"index", "-o", "OUT", "FIFO"}, f("ref.fa"), "x.gmi"},
  };
  for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(c.name + ", signal " + std::to_string(sig));
      gatemap::test::TempDir d;
      const std::string fifo = d.file("in.fifo");
      ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
      std::vector<std::string> args{kBin};
      for (const std::string& a : c.args) args.push_back(a == "FIFO" ? fifo : a == "OUT" ? d.file(c.output) : a);
      const pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        const int null = open("/dev/null", O_WRONLY);
        dup2(null, 1), dup2(null, 2);
        execv(kBin.c_str(), argv.data());
        _exit(127);
      }
      int w = -1;  // opened once the command reads the FIFO
      for (int i = 0; i < 3000 && w < 0; ++i) {
        w = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
        if (w < 0) usleep(10000);
      }
      ASSERT_GE(w, 0) << "the command never opened its input";
      fcntl(w, F_SETFL, 0);
      const std::string head = read_file(c.input).substr(0, 48 * 1024);  // fits the pipe: never blocks
      ASSERT_EQ(write(w, head.data(), head.size()), static_cast<ssize_t>(head.size()));
      // map has opened its output by the time the index is loaded: wait for that (others: a moment).
      for (int i = 0; i < 300; ++i) {
        bool temp = false;
        for (const auto& e : std::filesystem::directory_iterator(d.path())) {
          temp = temp || e.path().filename().string().find("gatemap-tmp") != std::string::npos;
        }
        if (temp || c.name.rfind("map", 0) != 0) break;
        usleep(100000);
      }
      usleep(300000);
      kill(pid, sig);
      int status = 0;
      ASSERT_EQ(waitpid(pid, &status, 0), pid);
      close(w);
      EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "status " << status;
      for (const auto& e : std::filesystem::directory_iterator(d.path())) {
        EXPECT_EQ(e.path().filename().string(), "in.fifo") << "left behind";
      }
    }
  }
}

// Reports written beside the main output (--stats, --summary) follow the output rule: one
// that names an input or the main output, or lies in a missing folder, is a usage error
// before any work; nothing is replaced or written.
TEST_F(Hostile, SideOutputsAreCheckedBeforeAnyWork) {
  gatemap::test::TempDir d;
  const std::string reads = write_file(d.file("r.fq"), read_file(f("r_1.fq")));
  const std::string before = read_file(reads);
  // A name that is also an input or output is a usage error (2); a folder that does not
  // exist is one a file cannot be made in, as for the main output (1: io/run_paths.hpp).
  const std::vector<std::tuple<std::string, std::string, int>> cases = {
      {"map --stats " + d.file("o.sam") + " -o " + d.file("o.sam") + " " + f("ref.gmi") + " " + reads, "--stats", 2},
      {"map --stats " + d.file("nodir/s.json") + " -o " + d.file("o.sam") + " " + f("ref.gmi") + " " + reads,
       "--stats", 1},
      {"correct --summary " + reads + " -o " + d.file("c.fq") + " " + reads, "--summary", 2},
      {"correct --summary " + d.file("nodir/s.tsv") + " -o " + d.file("c.fq") + " " + reads, "--summary", 1},
  };
  for (const auto& [args, flag, status] : cases) {
    std::string out;
    EXPECT_EQ(gm(args, &out), status) << args << "\n" << out;
    EXPECT_NE(out.find(flag), std::string::npos) << out;
    EXPECT_FALSE(exists(d.file("o.sam")));
    EXPECT_FALSE(exists(d.file("c.fq")));
    EXPECT_EQ(read_file(reads), before);
  }
  std::string out;  // and a good one is written whole
  ASSERT_EQ(gm("map --stats " + d.file("s.json") + " -o " + d.file("o.sam") + " " + f("ref.gmi") + " " + reads, &out),
            0)
      << out;
  EXPECT_NE(read_file(d.file("s.json")).find("\"reads\": "), std::string::npos);
}

// Errors that name the real mistake: reads given where the index goes, a flag gatemap
// lacks (not the reads after it), a command that does not exist; `gatemap help` helps.
TEST_F(Hostile, ErrorsNameTheMistake) {
  std::string out;
  EXPECT_EQ(gm("map " + f("r_1.fq") + " " + f("ref.gmi"), &out), 1) << out;
  EXPECT_NE(out.find("the index comes first"), std::string::npos) << out;
  EXPECT_EQ(gm("map -k 19 " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq"), &out), 2) << out;
  EXPECT_NE(out.find("unknown option '-k'"), std::string::npos) << out;
  EXPECT_EQ(gm("frobnicate", &out), 2) << out;
  EXPECT_NE(out.find("unknown command 'frobnicate'"), std::string::npos) << out;
  EXPECT_EQ(run_command(kBin + " help 2> /dev/null", &out), 0);
  EXPECT_NE(out.find("map"), std::string::npos) << out;
  EXPECT_NE(out.find("call"), std::string::npos) << out;
}

// call and correct keep stderr to the verbosity rules (nothing at -v 1) and write their
// counts as JSON with --stats, as map does.
TEST_F(Hostile, CallAndCorrectReportAsMapDoes) {
  gatemap::test::TempDir d;
  std::string err;
  ASSERT_EQ(run_command("timeout 120 " + kBin + " call -v 1 -t 2 --stats " + d.file("c.json") + " -r " + f("ref.fa") +
                            " -o " + d.file("c.vcf") + " " + f("aln.bam") + " 2> " + d.file("err.txt")),
            0);
  EXPECT_EQ(read_file(d.file("err.txt")), "");
  EXPECT_NE(read_file(d.file("c.json")).find("\"calls\": "), std::string::npos);
  ASSERT_EQ(run_command("timeout 120 " + kBin + " correct -v 1 -t 2 --stats " + d.file("r.json") + " -o " +
                            d.file("c.fq") + " " + f("r_1.fq") + " 2> " + d.file("err2.txt")),
            0);
  EXPECT_EQ(read_file(d.file("err2.txt")), "");
  EXPECT_NE(read_file(d.file("r.json")).find("\"reads\": "), std::string::npos);
  EXPECT_EQ(gm("call --stats " + f("aln.bam") + " -r " + f("ref.fa") + " " + f("aln.bam"), &err), 2) << err;
  // correct reads a BAM as map does: one of pairs needs mate 2's output.
  EXPECT_EQ(gm("correct -o " + d.file("x.fq") + " " + f("aln.bam"), &err), 2) << err;
  EXPECT_NE(err.find("'" + f("aln.bam") + "' holds read pairs: name mate 2's output with -p"), std::string::npos) << err;
  // index too: nothing on stderr at -v 1, its counts as JSON.
  ASSERT_EQ(run_command("timeout 120 " + kBin + " index -v 1 -t 2 --stats " + d.file("i.json") + " -o " +
                            d.file("i.gmi") + " " + f("ref.fa") + " 2> " + d.file("err3.txt")),
            0);
  EXPECT_EQ(read_file(d.file("err3.txt")), "");
  EXPECT_NE(read_file(d.file("i.json")).find("\"distinct_kmers\": "), std::string::npos);
  EXPECT_EQ(gm("index --stats " + f("ref.fa") + " -o " + d.file("i2.gmi") + " " + f("ref.fa"), &err), 2) << err;
}

// A benchmark's table to a full disk is an error, not exit 0 (its rows are flushed as they
// come: the failed flush used to go unseen); to a file, it is written whole.
TEST_F(Hostile, BenchTableToAFullDiskIsAnError) {
  if (!exists("/dev/full")) GTEST_SKIP() << "/dev/full not available";
  gatemap::test::TempDir d;
  const std::string quick = "bench pairhmm -t 2 --sizes 16 --gpu-cells 100000 --cpu-cells 100000 -o ";
  std::string out;
  EXPECT_EQ(gm(quick + "/dev/full", &out), 1) << out;
  EXPECT_NE(out.find("/dev/full"), std::string::npos) << out;
  ASSERT_EQ(gm(quick + d.file("t.tsv"), &out), 0) << out;
  EXPECT_NE(read_file(d.file("t.tsv")).find("GPU"), std::string::npos);
  for (const auto& e : std::filesystem::directory_iterator(d.path())) {
    EXPECT_EQ(e.path().filename().string(), "t.tsv");
  }
  // eval map --wrong likewise (the fixture's reads carry their truth; some are misplaced).
  EXPECT_EQ(gm("eval map " + f("aln.bam") + " --wrong /dev/full", &out), 1) << out;
  EXPECT_EQ(gm("eval map " + f("aln.bam") + " --wrong " + f("aln.bam"), &out), 2) << out;
}

// bench fastq reads every record each way (6,000 pairs: record by record per file, then
// in batches of pairs), and a file that is not there is an error naming it.
TEST_F(Hostile, BenchFastqCountsEveryRecordEachWay) {
  std::string out;
  ASSERT_EQ(gm("bench fastq -t 2 " + f("r_1.fq") + " " + f("r_2.fq"), &out), 0) << out;
  int rows = 0;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string mode, threads, records;
    fields >> mode >> threads >> records;
    if (mode == "lines_only" || mode == "one_record_at_a_time" || mode == "batches") {
      EXPECT_EQ(records, "6000") << line;
      ++rows;
    } else if (mode == "batches_of_pairs") {
      EXPECT_EQ(records, "12000") << line;
      ++rows;
    }
  }
  EXPECT_EQ(rows, 5) << out;
  EXPECT_EQ(gm("bench fastq " + f("absent.fq"), &out), 1) << out;
  EXPECT_NE(out.find("absent.fq"), std::string::npos) << out;
}

// One file given as both mates maps, but almost no pair is proper: said once, after the
// first batch; real mates are not warned about.
TEST_F(Hostile, MatesThatAreNotMatesAreWarnedAbout) {
  std::string out;
  ASSERT_EQ(gm("map -t 2 -o " + f("twice.bam") + " " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_1.fq"), &out), 0)
      << out;
  EXPECT_NE(out.find("[W::map] only "), std::string::npos) << out;
  EXPECT_NE(out.find("mates of each other"), std::string::npos) << out;
  ASSERT_EQ(gm("map -t 2 -o " + f("mates.bam") + " " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq"), &out), 0)
      << out;
  EXPECT_EQ(out.find("[W::map]"), std::string::npos) << out;
}

// correct reads an unmapped BAM (or CRAM) as map does: the same corrected bases and
// qualities as from the FASTQ pair it was made of; a BAM sorted by coordinate (mates
// apart) is refused.
TEST_F(Hostile, CorrectReadsAnUnmappedBamAsItsFastq) {
  if (run_command("samtools --version") != 0) GTEST_SKIP() << "samtools not installed";
  gatemap::test::TempDir d;
  std::string out;
  ASSERT_EQ(run_command("samtools import -1 " + f("r_1.fq") + " -2 " + f("r_2.fq") + " -o " + d.file("u.bam"), &out), 0)
      << out;
  ASSERT_EQ(gm("correct -t 2 -o " + d.file("b_1.fq") + " -p " + d.file("b_2.fq") + " " + d.file("u.bam"), &out), 0)
      << out;
  ASSERT_EQ(gm("correct -t 2 -o " + d.file("f_1.fq") + " -p " + d.file("f_2.fq") + " " + f("r_1.fq") + " " +
                   f("r_2.fq"), &out), 0) << out;
  const auto lines = [&](const std::string& path, int which) {  // 1: bases, 3: qualities
    std::istringstream in(read_file(path));
    std::string kept, line;
    for (int i = 0; std::getline(in, line); ++i) {
      if (i % 4 == which) kept += line + "\n";
    }
    return kept;
  };
  for (const char* mate : {"_1.fq", "_2.fq"}) {
    EXPECT_EQ(lines(d.file(std::string("b") + mate), 1), lines(d.file(std::string("f") + mate), 1)) << mate;
    EXPECT_EQ(lines(d.file(std::string("b") + mate), 3), lines(d.file(std::string("f") + mate), 3)) << mate;
  }
  EXPECT_FALSE(lines(d.file("b_1.fq"), 1).empty());
  // CRAM too, decoded against -T.
  ASSERT_EQ(run_command("samtools view -C -T " + f("ref.fa") + " -o " + d.file("u.cram") + " " + d.file("u.bam"), &out), 0)
      << out;
  ASSERT_EQ(gm("correct -t 2 -T " + f("ref.fa") + " -o " + d.file("c_1.fq") + " -p " + d.file("c_2.fq") + " " +
                   d.file("u.cram"), &out), 0) << out;
  EXPECT_EQ(lines(d.file("c_1.fq"), 1), lines(d.file("f_1.fq"), 1));
  EXPECT_EQ(lines(d.file("c_2.fq"), 3), lines(d.file("f_2.fq"), 3));
  EXPECT_EQ(gm("correct -o " + d.file("s_1.fq") + " -p " + d.file("s_2.fq") + " " + f("aln.bam"), &out), 1) << out;
  EXPECT_NE(out.find("sorted by coordinate"), std::string::npos) << out;
}

// Progress on a terminal is one line that moves (each batch's line overwrites the last);
// to a file or pipe every batch has a line of its own, as logs want them.
TEST_F(Hostile, ProgressMovesOnATerminalAndIsLinesElsewhere) {
  if (run_command("script -qec true /dev/null") != 0) GTEST_SKIP() << "no terminal to be had (script, util-linux)";
  std::string tty, piped;
  const std::string map = kBin + " map -t 2 --batch 2000 -o /dev/null " + f("ref.gmi") + " " + f("r_1.fq") + " " + f("r_2.fq");
  ASSERT_EQ(run_command("script -qec '" + map + "' /dev/null", &tty), 0) << tty;
  EXPECT_NE(tty.find("\r[M::map] batch 2: "), std::string::npos) << tty;
  EXPECT_EQ(tty.find("\n[M::map] batch 2: "), std::string::npos) << tty;
  ASSERT_EQ(run_command(map, &piped), 0) << piped;
  EXPECT_NE(piped.find("\n[M::map] batch 2: 2000 reads mapped, 4000 in all, "), std::string::npos) << piped;
  EXPECT_EQ(piped.find('\r'), std::string::npos);
}

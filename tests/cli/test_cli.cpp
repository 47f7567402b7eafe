// The gatemap binary as users meet it: help, version, usage errors, missing files.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "../test_util.hpp"

using gatemap::test::run_command;

const std::string kBin = GATEMAP_BINARY;

TEST(Cli, HelpListsSubcommands) {
  std::string out;
  EXPECT_EQ(run_command(kBin + " --help", &out), 0);
  for (const char* cmd : {"index", "version"}) EXPECT_NE(out.find(cmd), std::string::npos) << cmd;
}

TEST(Cli, VersionReportsBuildAndDevices) {
  std::string out;
  EXPECT_EQ(run_command(kBin + " version", &out), 0);
  EXPECT_NE(out.find("CUDA"), std::string::npos);
  EXPECT_NE(out.find("GPU"), std::string::npos);
}

// One -t default for every command: every CPU the process may use (OMP_NUM_THREADS or
// the affinity mask, as nproc counts them), said in its help.
TEST(Cli, EveryCommandDefaultsToTheCpusItMayUse) {
  for (const char* cmd : {"index", "map", "call", "joint", "correct", "sim genome", "sim variants", "sim reads",
                          "pairhmm", "demo", "bench filter", "bench pairhmm"}) {
    std::string out;
    ASSERT_EQ(run_command("OMP_NUM_THREADS=3 " + kBin + " " + cmd + " --help", &out), 0) << cmd;
    EXPECT_NE(out.find("-t,--threads INT:INT in [0 - 1024]=3"), std::string::npos) << cmd << "\n" << out;
    EXPECT_NE(out.find("0: every CPU this process may use, the default"), std::string::npos) << cmd;
  }
}

TEST(Cli, NoArgumentsIsUsageError) { EXPECT_EQ(run_command(kBin), 2); }

TEST(Cli, UnknownOptionIsOneLineAndStatus2) {
  std::string out;
  EXPECT_EQ(run_command(kBin + " index --bogus x.fa", &out), 2);
  EXPECT_NE(out.find("[E::index]"), std::string::npos) << out;
  EXPECT_NE(out.find("--bogus"), std::string::npos) << out;
}

TEST(Cli, MissingFileIsStatus1WithItsName) {
  std::string out;
  EXPECT_EQ(run_command(kBin + " index -o /tmp/x.gmi /nonexistent/ref.fa", &out), 1);
  EXPECT_NE(out.find("/nonexistent/ref.fa"), std::string::npos) << out;
}

// --gpu-mem takes a size as -m does; anything else is a usage error naming it, in every
// command that has it, before any file is opened.
TEST(Cli, GpuMemoryIsASize) {
  for (const std::string command : {"map ref.gmi r.fq", "call -r ref.fa -o x.vcf a.bam", "correct -o x.fq r.fq"}) {
    std::string out;
    EXPECT_EQ(run_command(kBin + " " + command + " --gpu-mem 24X", &out), 2) << command;
    EXPECT_NE(out.find("--gpu-mem '24X'"), std::string::npos) << command << ": " << out;
  }
}

// A bwa mem command line works as it is: the reference's path stands for its index
// (REF.gmi, what 'gatemap index REF' writes), -v 1 keeps stderr quiet, -K (bases per
// batch), -M and -Y are taken.
TEST(Cli, MapTakesBwaMemCommandLines) {
  gatemap::test::TempDir dir;
  std::mt19937_64 rng(5);
  const std::string genome = gatemap::test::random_dna(rng, 5000);
  const auto ref = gatemap::test::write_file(dir.file("ref.fa"), ">chr1\n" + genome + "\n");
  const auto reads = gatemap::test::write_file(dir.file("r.fq"), "@r1\n" + genome.substr(1000, 100) + "\n+\n" +
                                                                      std::string(100, 'I') + "\n");
  std::string out;
  ASSERT_EQ(run_command(kBin + " index -v 1 " + ref, &out), 0) << out;
  EXPECT_EQ(out, "");  // -v means the same in every command
  const std::string bwa_like = " map -K 100000000 -v 1 -M -Y -t 2 " + ref + " " + reads;
  ASSERT_EQ(run_command(kBin + bwa_like + " 2>" + dir.file("err.txt"), &out), 0)
      << out;
  EXPECT_NE(out.find("r1\t0\tchr1\t1001\t60\t100M"), std::string::npos) << out;
  EXPECT_EQ(gatemap::test::read_file(dir.file("err.txt")), "");
  // A FASTA with no index beside it is indexed for the run (as minimap2 does), saying so
  // and how to keep one; nothing is written beside it.
  const auto plain = gatemap::test::write_file(dir.file("plain.fa"), ">chr1\n" + genome + "\n");
  ASSERT_EQ(run_command(kBin + " map -t 2 " + plain + " " + reads, &out), 0) << out;
  EXPECT_NE(out.find("r1\t0\tchr1\t1001\t60\t100M"), std::string::npos) << out;
  EXPECT_NE(out.find("indexing it for this run; 'gatemap index " + plain + "' keeps one"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(plain + ".gmi"));
  // Reads given where the index belongs are still refused.
  ASSERT_EQ(run_command(kBin + " map " + reads + " " + ref, &out), 1);
  EXPECT_NE(out.find("not a gatemap index"), std::string::npos) << out;
}

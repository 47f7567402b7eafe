// The gatemap binary as users meet it: help, version, usage errors, missing files.
#include <gtest/gtest.h>

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

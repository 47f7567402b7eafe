// The GPU's BGZF compression writes exactly the CPU twin's bytes (skips without a GPU).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "io/deflate/bgzf_deflate.hpp"
#include "tests/gpu/gpu_test.hpp"
#include "tests/io/deflate_inputs.hpp"

using namespace gatemap;

namespace {

TEST(BgzfDeflateGpu, BlocksEqualTheCpuTwin) {
  GATEMAP_REQUIRE_GPU();
  std::vector<std::string> in = test::deflate_inputs(11);
  std::mt19937_64 rng(12);
  for (int i = 0; i < 300; ++i) in.push_back(test::bam_like_block(rng, 1 + rng() % 65280));
  io::BgzfDeflateCpu twin(4);
  const std::vector<std::string> want = test::compress_blocks(twin, in);
  for (const size_t per_round : {size_t{4096}, size_t{37}}) {  // one round, and many
    io::BgzfDeflateGpu gpu(0, 4, per_round);
    const std::vector<std::string> got = test::compress_blocks(gpu, in);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < in.size(); ++i) ASSERT_TRUE(got[i] == want[i]) << "block " << i << ", rounds of " << per_round;
  }
}

// Batches one after another with start(): each one's return leaves every batch before it
// complete (the twin's bytes) while its own last round may still run; finish() completes
// it. Batches of many rounds, of one, and empty ones.
TEST(BgzfDeflateGpu, StartedBatchesCompleteTheOnesBefore) {
  GATEMAP_REQUIRE_GPU();
  std::mt19937_64 rng(13);
  std::vector<std::string> in;
  for (int i = 0; i < 700; ++i) in.push_back(test::bam_like_block(rng, 1 + rng() % 65280));
  io::BgzfDeflateCpu twin(4);
  const std::vector<std::string> want = test::compress_blocks(twin, in);
  const std::vector<size_t> batch_ends = {300, 300, 301, 560, 700};  // sizes 300, 0, 1, 259, 140
  std::vector<std::string> out(in.size(), std::string(65536, '\0'));
  std::vector<io::BgzfJob> jobs(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    jobs[i] = {reinterpret_cast<const uint8_t*>(in[i].data()), static_cast<uint32_t>(in[i].size()),
               reinterpret_cast<uint8_t*>(out[i].data()), 0};
  }
  const auto complete_up_to = [&](size_t end, const std::string& when) {
    for (size_t i = 0; i < end; ++i) {
      ASSERT_EQ(out[i].substr(0, jobs[i].out_size), want[i]) << "block " << i << " " << when;
    }
  };
  io::BgzfDeflateGpu gpu(0, 4, 128);  // rounds of at most 128 blocks
  size_t from = 0;
  for (const size_t end : batch_ends) {
    gpu.start(jobs.data() + from, end - from);
    complete_up_to(from, "once the batch after it started");
    from = end;
  }
  gpu.finish();
  complete_up_to(in.size(), "after finish()");
}

}  // namespace

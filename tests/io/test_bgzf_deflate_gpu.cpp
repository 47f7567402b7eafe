// The GPU's BGZF compression writes exactly the CPU twin's bytes (skips without a GPU).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "io/bgzf_deflate.hpp"
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

}  // namespace

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

std::vector<std::string> compress(io::BlockCompressor& c, const std::vector<std::string>& in) {
  std::vector<std::string> out(in.size(), std::string(65536, '\0'));
  std::vector<io::BgzfJob> jobs(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    jobs[i].in = reinterpret_cast<const uint8_t*>(in[i].data());
    jobs[i].size = static_cast<uint32_t>(in[i].size());
    jobs[i].out = reinterpret_cast<uint8_t*>(out[i].data());
  }
  c.compress(jobs.data(), jobs.size());
  for (size_t i = 0; i < in.size(); ++i) out[i].resize(jobs[i].out_size);
  return out;
}

TEST(BgzfDeflateGpu, BlocksEqualTheCpuTwin) {
  GATEMAP_REQUIRE_GPU();
  std::vector<std::string> in = test::deflate_inputs(11);
  std::mt19937_64 rng(12);
  for (int i = 0; i < 300; ++i) in.push_back(test::bam_like_block(rng, 1 + rng() % 65280));
  io::BgzfDeflateCpu twin(4);
  const std::vector<std::string> want = compress(twin, in);
  for (const size_t per_round : {size_t{4096}, size_t{37}}) {  // one round, and many
    io::BgzfDeflateGpu gpu(0, 4, per_round);
    const std::vector<std::string> got = compress(gpu, in);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < in.size(); ++i) ASSERT_TRUE(got[i] == want[i]) << "block " << i << ", rounds of " << per_round;
  }
}

}  // namespace

#include "common/error.hpp"
#include "tests/gpu/gpu_test.hpp"

using namespace gatemap;

TEST(Device, BackendChoiceFollowsWhatIsPresent) {
  EXPECT_EQ(gpu::choose_backend("cpu"), gpu::Backend::cpu);
  EXPECT_THROW(gpu::choose_backend("tpu"), UsageError);
  if (gpu::device_available()) {
    EXPECT_EQ(gpu::choose_backend("auto"), gpu::Backend::gpu);
  } else {
    EXPECT_EQ(gpu::choose_backend("auto"), gpu::Backend::cpu);
    EXPECT_THROW(gpu::choose_backend("gpu"), Error);
  }
}

TEST(Device, ListsDevicesWithMemory) {
  GATEMAP_REQUIRE_GPU();
  const auto devices = gpu::list_devices();
  ASSERT_FALSE(devices.empty());
  EXPECT_GT(devices[0].total_bytes, 0u);
  EXPECT_GT(devices[0].free_bytes, 0u);
  EXPECT_GE(devices[0].cc_major, 7);
}

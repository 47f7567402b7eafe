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

TEST(Device, DeviceListSyntaxAlwaysCheckedIdsOnlyForTheGpu) {
  for (const char* bad : {"", "x", "0,", ",1", "1,,2", "-1", "0;1", "all,0", "1.5"}) {
    EXPECT_THROW(gpu::resolve_devices(bad, gpu::Backend::cpu), UsageError) << bad;
  }
  EXPECT_TRUE(gpu::resolve_devices("0,3", gpu::Backend::cpu).empty());  // the CPU path uses none
  EXPECT_TRUE(gpu::resolve_devices("all", gpu::Backend::cpu).empty());
  const int visible = static_cast<int>(gpu::list_devices().size());
  if (visible == 0) return;
  EXPECT_EQ(gpu::resolve_devices("all", gpu::Backend::gpu).size(), static_cast<size_t>(visible));
  EXPECT_EQ(gpu::resolve_devices("0,0", gpu::Backend::gpu), (std::vector<int>{0, 0}));  // two engines on one
  try {
    gpu::resolve_devices("0," + std::to_string(visible), gpu::Backend::gpu);
    ADD_FAILURE() << "an id past the visible devices was taken";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no device " + std::to_string(visible)), std::string::npos) << e.what();
  }
}

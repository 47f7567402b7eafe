#include <algorithm>
#include <vector>

#include "common/error.hpp"
#include "gpu/memory_cap.hpp"
#include "tests/gpu/gpu_test.hpp"
#if GATEMAP_HAVE_CUDA
#include <cuda_runtime.h>

#include "gpu/staged_copy.hpp"
#endif

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

#if GATEMAP_HAVE_CUDA
// Pieces of every size (empty, a few bytes, one chunk and a bit, many chunks) arrive
// whole and in place, through the staging buffers as through a plain copy.
TEST(StagedCopy, EveryPieceArrivesWhole) {
  GATEMAP_REQUIRE_GPU();
  const std::vector<size_t> sizes = {0, 7, (size_t{8} << 20) + 13, (size_t{45} << 20) + 4099, 1};
  std::vector<std::vector<unsigned char>> host;
  std::vector<void*> device;
  std::vector<gpu::HostToDevice> pieces;
  uint64_t x = 12345;
  for (size_t n : sizes) {
    std::vector<unsigned char> h(n);
    for (unsigned char& c : h) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      c = static_cast<unsigned char>(x >> 56);
    }
    void* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, std::max<size_t>(n, 1)), cudaSuccess);
    host.push_back(std::move(h));
    device.push_back(d);
    pieces.push_back({d, host.back().data(), n});
  }
  gpu::copy_to_device(pieces);
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::vector<unsigned char> back(sizes[i]);
    if (sizes[i]) {
      ASSERT_EQ(cudaMemcpy(back.data(), device[i], sizes[i], cudaMemcpyDeviceToHost), cudaSuccess);
    }
    EXPECT_TRUE(back == host[i]) << "piece " << i << " of " << sizes[i] << " bytes";
    cudaFree(device[i]);
  }
}
#endif

// --gpu-mem: while a cap is held the device shows at most that much free (what every
// engine sizes itself by); released, the memory is back.
TEST(Device, MemoryCapLeavesOnlyTheCapFree) {
  GATEMAP_REQUIRE_GPU();
  const size_t before = gpu::list_devices()[0].free_bytes;
  const size_t cap = size_t{1} << 30;
  ASSERT_GT(before, 2 * cap);
  {
    const gpu::MemoryCap capped({0, 0}, cap, "test");
    const size_t free_b = gpu::list_devices()[0].free_bytes;
    EXPECT_LE(free_b, cap);
    EXPECT_GE(free_b, cap - (size_t{64} << 20));
  }
  EXPECT_GE(gpu::list_devices()[0].free_bytes, before - (size_t{256} << 20));
}

TEST(Device, NoMemoryCapHoldsNothing) {
  GATEMAP_REQUIRE_GPU();
  const size_t before = gpu::list_devices()[0].free_bytes;
  const gpu::MemoryCap uncapped({0}, 0, "test");
  EXPECT_GE(gpu::list_devices()[0].free_bytes, before - (size_t{64} << 20));
}

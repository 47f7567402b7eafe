#pragma once
// GPU discovery and the CPU/GPU backend switch. Works in CPU-only builds (no devices)
// and on machines without a driver (any CUDA error at discovery means "no GPU").
#include <cstddef>
#include <string>
#include <vector>

namespace gatemap::gpu {

struct DeviceInfo {
  int id = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  size_t total_bytes = 0;
  size_t free_bytes = 0;
  bool concurrent_managed = false;  // cudaMemPrefetchAsync / cudaMemAdvise supported
};

enum class Backend { cpu, gpu };

bool built_with_cuda();
std::vector<DeviceInfo> list_devices();  // empty without CUDA, driver or device
bool device_available();
// "cpu" / "gpu" / "auto" (gpu when a device is present). Throws UsageError otherwise;
// asking for "gpu" without a device throws Error.
Backend choose_backend(const std::string& name);
const char* backend_name(Backend b);

// --device: "0", "0,2" (a device listed twice gets two engines) or "all". The syntax is
// checked always (UsageError); the ids against the visible devices only for the GPU
// backend (an id not visible is a UsageError naming what is). Empty for the CPU backend.
std::vector<int> resolve_devices(const std::string& spec, Backend backend);

}  // namespace gatemap::gpu

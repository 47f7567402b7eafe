// CPU-only build: no devices. Compiled instead of device.cu when nvcc is absent.
#include "gpu/device.hpp"

namespace gatemap::gpu {
bool built_with_cuda() { return false; }
std::vector<DeviceInfo> list_devices() { return {}; }
}  // namespace gatemap::gpu

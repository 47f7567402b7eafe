#include "common/error.hpp"
#include "gpu/device.hpp"

namespace gatemap::gpu {

bool device_available() { return !list_devices().empty(); }

Backend choose_backend(const std::string& name) {
  if (name == "cpu") return Backend::cpu;
  if (name == "auto") return device_available() ? Backend::gpu : Backend::cpu;
  if (name == "gpu") {
    if (!device_available()) {
      throw Error(built_with_cuda() ? "GPU backend requested but no CUDA device is usable"
                                    : "GPU backend requested but this gatemap was built without CUDA");
    }
    return Backend::gpu;
  }
  throw UsageError("unknown backend '" + name + "' (expected cpu, gpu or auto)");
}

const char* backend_name(Backend b) { return b == Backend::gpu ? "gpu" : "cpu"; }

}  // namespace gatemap::gpu

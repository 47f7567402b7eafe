#include <charconv>

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

std::vector<int> resolve_devices(const std::string& spec, Backend backend) {
  std::vector<int> ids;
  if (spec != "all") {
    size_t at = 0;
    for (;;) {
      const size_t comma = spec.find(',', at);
      const std::string item = spec.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
      int id = -1;
      const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), id);
      if (item.empty() || ec != std::errc() || end != item.data() + item.size() || id < 0) {
        throw UsageError("--device '" + spec + "': expected device ids such as 0 or 0,1, or all");
      }
      ids.push_back(id);
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
  }
  if (backend == Backend::cpu) return {};
  const int visible = static_cast<int>(list_devices().size());
  if (spec == "all") {
    for (int i = 0; i < visible; ++i) ids.push_back(i);
  }
  for (int id : ids) {
    if (id >= visible) {
      throw UsageError("--device '" + spec + "': no device " + std::to_string(id) + " (" + std::to_string(visible) +
                       " visible" + (visible ? ", ids 0-" + std::to_string(visible - 1) : "") + ")");
    }
  }
  return ids;
}

}  // namespace gatemap::gpu

// gatemap version: version, build (CUDA on/off, architectures) and the GPUs seen.
#include <cstdio>

#include "apps/commands.hpp"
#include "common/build_info.hpp"
#include "gpu/arch_support.hpp"
#include "gpu/device.hpp"

namespace gatemap::apps {

void register_version(CLI::App& app, AppContext& ctx) {
  auto* sub = app.add_subcommand("version", "Print version, build configuration and visible GPUs");
  on_run(sub, ctx, [] {
    std::printf("gatemap %s\n", GATEMAP_VERSION);
    std::printf("build: %s, CUDA %s (architectures: %s), OpenMP on\n", GATEMAP_BUILD_TYPE,
                gpu::built_with_cuda() ? "on" : "off (CPU-only build)", GATEMAP_CUDA_ARCHS);
    const auto devices = gpu::list_devices();
    if (devices.empty()) std::printf("GPUs: none visible (CPU twins will be used)\n");
    for (const auto& d : devices) {
      std::printf("GPU %d: %s, compute %d.%d, %d SMs, %.1f GiB total, %.1f GiB free; kernels: %s\n", d.id,
                  d.name.c_str(), d.cc_major, d.cc_minor, d.sm_count, d.total_bytes / 1073741824.0,
                  d.free_bytes / 1073741824.0, gpu::kernels_for(d.cc_major, d.cc_minor, GATEMAP_CUDA_ARCHS).c_str());
    }
    return 0;
  });
}

}  // namespace gatemap::apps

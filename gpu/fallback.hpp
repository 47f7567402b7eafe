#pragma once
// The one way every stage (mapper filter, pair-HMM, corrector) leaves the GPU: a
// CudaError (out of device memory, a lost device, no usable driver) is said on stderr,
// naming the stage, and the work goes to the CPU twin, whose results are the same.
// Other exceptions (bad input, a full disk) pass through.
#include <memory>
#include <string>
#include <utility>

#include "common/error.hpp"
#include "common/log.hpp"

namespace gatemap::gpu {

// Runs on_gpu(); on CudaError warns "<what> on the CPU (<error>)" and runs on_cpu().
// Returns true when the GPU did the work. Synchronous; thread-safe if both callables are.
template <class OnGpu, class OnCpu>
bool run_or_fall_back(const std::string& stage, const std::string& what, OnGpu&& on_gpu, OnCpu&& on_cpu) {
  try {
    on_gpu();
    return true;
  } catch (const CudaError& e) {
    log::warn(stage, what + " on the CPU (" + e.what() + ")");
  }
  on_cpu();
  return false;
}

// A GPU engine, or null (with a warning naming the stage) when it cannot be made: the
// caller then takes the CPU twin for every batch.
template <class Engine, class... Args>
std::unique_ptr<Engine> make_engine_or_null(const std::string& stage, Args&&... args) {
  try {
    return std::make_unique<Engine>(std::forward<Args>(args)...);
  } catch (const CudaError& e) {
    log::warn(stage, std::string("GPU unavailable, every batch on the CPU (") + e.what() + ")");
    return nullptr;
  }
}

}  // namespace gatemap::gpu

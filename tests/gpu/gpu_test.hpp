#pragma once
#include <gtest/gtest.h>

#include "gpu/device.hpp"

// GPU tests skip cleanly where no device (or no CUDA build) is present.
#define GATEMAP_REQUIRE_GPU()                                                        \
  do {                                                                               \
    if (!::gatemap::gpu::device_available()) GTEST_SKIP() << "no CUDA device";       \
  } while (0)

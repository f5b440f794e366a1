// The Tier-1 device tests' first line: without a usable CUDA device the test
// skips and says why (cuda::t1_device_unavailable).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "entropy/cuda/t1_device_encoder.h"

#define SKIP_WITHOUT_DEVICE()                                                      \
  do {                                                                             \
    const std::string why = ::mallat::entropy::cuda::t1_device_unavailable();      \
    if (!why.empty()) GTEST_SKIP() << why;                                         \
  } while (0)

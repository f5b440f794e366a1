// The device block encoder on CUDA, EBCOT's and HT's (a DeviceBlockEncoder,
// entropy/hybrid/device_block_coder.h): plain C++, so that the registry
// (device_block_coders.h) can name it without CUDA's headers. Built only
// with CUDA.
#pragma once

#include <memory>

#include "common/status.h"
#include "entropy/hybrid/device_block_coder.h"

namespace mallat::entropy::cuda {

// A DeviceBlockEncoder over T1DeviceEncoder (entropy/cuda/t1_device_encoder.h):
// one launch per prepare/run, its device memory and pinned host buffer kept
// from launch to launch (grown as needed), so one made for many calls
// allocates once. Its making is CUDA's start-up (context, stream, the
// kernel's module), which the hybrid coder runs on a background thread.
Result<std::unique_ptr<DeviceBlockEncoder>> make_t1_device_block_encoder();

}  // namespace mallat::entropy::cuda

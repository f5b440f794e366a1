// The device block decoder on CUDA, EBCOT's and HT's (a DeviceBlockDecoder,
// entropy/hybrid/device_block_coder.h): plain C++, so that the registry
// (device_block_coders.h) can name it without CUDA's headers. Built only
// with CUDA.
#pragma once

#include <memory>

#include "common/status.h"
#include "entropy/hybrid/device_block_coder.h"

namespace mallat::entropy::cuda {

// A DeviceBlockDecoder over T1DeviceDecoder (entropy/cuda/t1_device_decoder.h):
// one launch per prepare/run, its device memory and pinned host buffers
// kept from launch to launch (grown by half at least), so one made for many
// calls allocates once. Its making is CUDA's start-up (context, stream, the
// kernel's module), which the hybrid decoder runs on a background thread.
Result<std::unique_ptr<DeviceBlockDecoder>> make_t1_device_block_decoder();

}  // namespace mallat::entropy::cuda

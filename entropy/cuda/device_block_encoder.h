// The Part 1 block coder's device side on CUDA (the T1Device of
// entropy/hybrid/hybrid_block_encoder.h): plain C++, so that
// make_device_block_encoder can name it without CUDA's headers. Built only
// with CUDA.
#pragma once

#include <memory>

#include "common/status.h"
#include "entropy/hybrid/hybrid_block_encoder.h"

namespace mallat::entropy::cuda {

// A T1Device over T1DeviceEncoder (entropy/cuda/ebcot/device_encoder.h): one launch per
// prepare/run, its device memory and pinned host buffer kept from launch to
// launch (grown as needed), so one made for many calls allocates once. Its
// making is CUDA's start-up (context, stream, the kernel's module), which
// the hybrid coder runs on a background thread.
Result<std::unique_ptr<T1Device>> make_cuda_t1_device();

}  // namespace mallat::entropy::cuda

// The Part 1 block decoder's device side on CUDA (the T1DecodeDevice of
// entropy/hybrid/hybrid_block_decoder.h): plain C++, so that
// make_device_block_decoder can name it without CUDA's headers. Built only
// with CUDA.
#pragma once

#include <memory>

#include "common/status.h"
#include "entropy/hybrid/hybrid_block_decoder.h"

namespace mallat::entropy::cuda {

// A T1DecodeDevice over T1DeviceDecoder (entropy/cuda/ebcot/device_decoder.h): one launch
// per prepare/run, its device memory and pinned host buffers kept from
// launch to launch (grown by half at least), so one made for many calls
// allocates once. Its making is CUDA's start-up (context, stream, the
// kernel's module), which the hybrid decoder runs on a background thread.
Result<std::unique_ptr<T1DecodeDevice>> make_cuda_t1_decode_device();

}  // namespace mallat::entropy::cuda

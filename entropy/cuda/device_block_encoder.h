// The Part 1 block coder on a CUDA device behind the BlockEncoder interface
// (block_coder.h): plain C++, so that make_device_block_encoder can name it
// without CUDA's headers. Built only with CUDA.
#pragma once

#include <memory>

#include "common/status.h"
#include "entropy/block_coder.h"

namespace mallat::entropy::cuda {

// A coder that codes each batch of Part 1 code-blocks in one launch of
// T1DeviceEncoder (t1_device_encoder.h) and HT batches on the CPU's HT
// coder. It keeps its device and pinned host buffers from batch to batch,
// so one coder made for many calls (a batch of files) allocates once; it
// serves one call at a time.
Result<std::unique_ptr<BlockEncoder>> make_t1_device_block_encoder();

}  // namespace mallat::entropy::cuda

// The Part 1 block coder on a CUDA device behind the BlockEncoder interface
// (block_coder.h): plain C++, so that make_device_block_encoder can name it
// without CUDA's headers. Built only with CUDA.
#pragma once

#include <cstddef>
#include <memory>

#include "common/status.h"
#include "entropy/block_coder.h"

namespace mallat::entropy::cuda {

// A coder that codes each batch of Part 1 code-blocks in one launch of
// T1DeviceEncoder (t1_device_encoder.h) and HT batches on the CPU's HT
// coder. It keeps its device and pinned host buffers from batch to batch,
// so one coder made for many calls (a batch of files) allocates once; it
// serves one call at a time. A batch of more than `max_blocks_per_launch`
// blocks is coded in several launches: each block's working state and
// output slot take about 50 KB of device memory, so the default bounds a
// launch at about 1.6 GB (an 8K RGB tile of 64x64 blocks, 23040 blocks, in
// one; 46080 blocks a launch measured as fast per block, NOTES.md).
Result<std::unique_ptr<BlockEncoder>> make_t1_device_block_encoder(size_t max_blocks_per_launch = 32768);

}  // namespace mallat::entropy::cuda

// Copies of rows from pageable host memory to the device through two
// pinned chunks: the pool's threads fill one chunk while the device copies
// up the other.
//
// Why: the driver stages a copy from or to pageable memory itself, slowly
// and for all of the process's copies together, several times slower than
// a copy from pinned memory when several threads copy at once
// (bench/d2h_copies.sh measures it). Pinning a tile's
// whole buffer instead costs the first tiles a wait, so a slot pins only
// two chunks of kPinnedMostBytes (common/host_staging.h). Used where it
// pays: a lossless tile's codeword bytes (device_decode_slot.cc), and a
// large tile's stored samples straight from the image's rows, which saves
// a copy of the tile in host memory (device_tile_stages.cc). Not for a
// decode's samples down (a lossy batch was slower through it) nor a batch
// tile's samples up (no gain).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "common/status.h"
#include "common/thread_pool.h"
#include "dwt/cuda/device_buffer.h"

namespace mallat::codec::cuda {

class StagedCopier {
 public:
  // `rows` rows of `width` bytes from `host` (rows `host_pitch` bytes
  // apart) to `device` (`device_pitch` apart) through the chunks, on
  // stream `s` after what is queued on it. Returns once `host` has been
  // read; the last chunk's copy may still be queued (the next call waits
  // for it before it writes that chunk).
  Status upload(const std::byte* host, size_t host_pitch, std::byte* device, size_t device_pitch, size_t width,
                size_t rows, cudaStream_t s, ThreadPool& pool);
  // The same for `n` contiguous bytes (rows of 64 KiB and the rest).
  Status upload_bytes(const std::byte* host, std::byte* device, size_t n, cudaStream_t s, ThreadPool& pool);

 private:
  Status ready(size_t bytes);

  dwt::cuda::HostArena chunk_[2];
  dwt::cuda::Event copied_[2];  // the last copy up from each chunk
};

}  // namespace mallat::codec::cuda

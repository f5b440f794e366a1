// Host memory that the device's copies read from or write to:
// pinned (page-locked) up to kPinnedMostBytes, ordinary pageable memory
// above. Header-only, for the targets that link CUDA::cudart (the device
// runner's slots, the Tier-1 device coders' staging); the DWT backend keeps
// its own always-pinned staging, which its CUDA graphs capture, and the
// hybrid coders their pinned buffers (entropy/cuda/cuda_memory.h,
// BufferKind::kPinned), whose copies overlap the CPU's share of a batch.
//
// Why the size rule: pinning is paid per byte, when the buffer is allocated
// and again at the process's exit, and a batch's big buffers (the tiles'
// stored samples, Tier-1's output slots) would pin hundreds of megabytes
// while the first tiles wait. Those big buffers' copies are waited for at
// once anyway, so the driver's staged copy of pageable memory loses little
// (the exception, a lossless tile's codeword bytes, goes up through pinned
// chunks instead: codec/stages/cuda/staged_copy.h); the small ones (jobs,
// segment lengths, a lossy tile's codeword bytes, results) are queued ahead
// of kernels and stay pinned so that the queueing does not wait.
//
// A copy to or from pageable memory is synchronous for the calling thread
// (cudaMemcpyAsync stages it): a host-to-device copy returns once the bytes
// are staged, a device-to-host one once they are there. Never use such a
// buffer inside a CUDA graph capture.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdlib>

namespace mallat {

inline constexpr size_t kPinnedMostBytes = size_t{4} << 20;

// `bytes` of host memory for copies, pinned where the rule says so
// (`*pinned` tells which, for host_staging_free); cudaSuccess or the
// allocation's error.
inline cudaError_t host_staging_alloc(void** p, size_t bytes, bool* pinned) {
  *p = nullptr;
  *pinned = bytes <= kPinnedMostBytes;
  if (*pinned) return cudaHostAlloc(p, bytes, cudaHostAllocDefault);
  // Page-aligned, as cudaHostAlloc's: the staged copies move whole pages.
  return posix_memalign(p, 4096, bytes) == 0 ? cudaSuccess : cudaErrorMemoryAllocation;
}

inline void host_staging_free(void* p, bool pinned) {
  if (p == nullptr) return;
  if (pinned) {
    cudaFreeHost(p);
  } else {
    std::free(p);
  }
}

}  // namespace mallat

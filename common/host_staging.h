// Host memory that the device's copies read from or write to (issue 15):
// pinned (page-locked) up to kPinnedMostBytes, ordinary pageable memory
// above. Header-only, for the targets that link CUDA::cudart (the device
// runner's slots, the Tier-1 device coders' staging); the DWT backend keeps
// its own always-pinned staging, which its CUDA graphs capture, and the
// hybrid coders their pinned buffers (entropy/cuda/cuda_memory.h,
// BufferKind::kPinned), whose copies overlap the CPU's share of a batch.
//
// Why the size rule: pinning costs 0.36-0.7 ms a MB when allocated and about
// 0.15 ms a MB at the process's exit, and a batch's slots held 94 MB
// (decode: the tiles' stored samples) to about 400 MB (encode: the stored
// samples and Tier-1's output slots, 6 slots) of it, paid while the first
// tiles waited. Those big buffers' copies are waited for at once anyway, so
// the driver's staged copy of pageable memory mostly loses nothing (the one
// exception measured, a lossless tile's codeword bytes, goes up through
// pinned chunks instead: codec/stages/cuda/staged_copy.h); the small ones
// (jobs, segment lengths, a lossy tile's codeword bytes, results) are queued
// ahead of kernels and stay pinned so that the queueing does not wait.
// Measured (session 13, run A, H200, 64 copies of the 3840x2048 mosaic,
// batch wall time, medians of 3 alternated rounds, ms): -I -r 20 decode
// 1000 -> 874 (all pageable: 1076), -I -r 20 encode 1757 -> 1712, lossless
// encode 1821 -> 1664, lossless decode 1604 -> 1547; the first output
// 140-240 ms sooner. docs/HISTORY.md, "2026-11-25, 08:35-09:30 UTC".
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

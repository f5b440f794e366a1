// RAII owners for CUDA resources: device memory, pinned host memory, streams,
// events and executable graphs. Each frees its resource in the destructor and
// is move-only; creation reports failure as a Status.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

#include "common/host_staging.h"
#include "common/status.h"
#include "dwt/cuda/check.h"

namespace mallat::dwt::cuda {

namespace detail {
struct DeviceFree {
  void operator()(void* p) const { cudaFree(p); }
};
struct PinnedFree {
  void operator()(void* p) const { cudaFreeHost(p); }
};
struct StreamDestroy {
  void operator()(CUstream_st* s) const { cudaStreamDestroy(s); }
};
struct EventDestroy {
  void operator()(CUevent_st* e) const { cudaEventDestroy(e); }
};
struct GraphExecDestroy {
  void operator()(CUgraphExec_st* g) const { cudaGraphExecDestroy(g); }
};
}  // namespace detail

// Memory that grows on demand and never shrinks; its content is not kept
// across a growth. Alloc is cudaMalloc or cudaMallocHost (page-locked host
// memory, so that cudaMemcpyAsync really is asynchronous).
template <cudaError_t (*Alloc)(void**, size_t), typename Free>
class Arena {
 public:
  Status reserve(size_t bytes) {
    if (bytes <= size_) return Status::Ok();
    ptr_.reset();
    size_ = 0;
    void* p = nullptr;
    MALLAT_RETURN_IF_ERROR(check_cuda(Alloc(&p, bytes), "allocating CUDA memory"));
    ptr_.reset(p);
    size_ = bytes;
    return Status::Ok();
  }
  std::byte* data() const { return static_cast<std::byte*>(ptr_.get()); }
  size_t size() const { return size_; }

 private:
  std::unique_ptr<void, Free> ptr_;
  size_t size_ = 0;
};

namespace detail {
inline cudaError_t device_alloc(void** p, size_t bytes) { return cudaMalloc(p, bytes); }
inline cudaError_t pinned_alloc(void** p, size_t bytes) { return cudaMallocHost(p, bytes); }
}  // namespace detail

using DeviceArena = Arena<detail::device_alloc, detail::DeviceFree>;
using PinnedArena = Arena<detail::pinned_alloc, detail::PinnedFree>;

// Host memory for the device's copies that grows as Arena does, pinned or
// pageable by common/host_staging.h's size rule.
class HostArena {
 public:
  HostArena() = default;
  HostArena(const HostArena&) = delete;
  HostArena& operator=(const HostArena&) = delete;
  ~HostArena() { host_staging_free(data_, pinned_); }
  Status reserve(size_t bytes) {
    if (bytes <= size_) return Status::Ok();
    host_staging_free(data_, pinned_);
    data_ = nullptr;
    size_ = 0;
    void* p = nullptr;
    MALLAT_RETURN_IF_ERROR(check_cuda(host_staging_alloc(&p, bytes, &pinned_), "allocating host memory for copies"));
    data_ = static_cast<std::byte*>(p);
    size_ = bytes;
    return Status::Ok();
  }
  std::byte* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  std::byte* data_ = nullptr;
  size_t size_ = 0;
  bool pinned_ = false;
};

using Stream = std::unique_ptr<CUstream_st, detail::StreamDestroy>;
using Event = std::unique_ptr<CUevent_st, detail::EventDestroy>;
using GraphExec = std::unique_ptr<CUgraphExec_st, detail::GraphExecDestroy>;

inline Result<Stream> make_stream() {
  cudaStream_t s = nullptr;
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking),
                                    "cudaStreamCreateWithFlags"));
  return Stream(s);
}

// Timing events record time; the others are created without it (cheaper).
inline Result<Event> make_event(bool timing) {
  cudaEvent_t e = nullptr;
  MALLAT_RETURN_IF_ERROR(check_cuda(
      cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming),
      "cudaEventCreateWithFlags"));
  return Event(e);
}

}  // namespace mallat::dwt::cuda

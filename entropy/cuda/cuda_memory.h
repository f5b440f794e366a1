// CUDA host-side helpers the Tier-1 device coders share (device_block_encoder.cc,
// entropy/cuda/t1_device_decoder.cc, device_block_decoder.cc): errors as Statuses, page-locked
// host buffers and device buffers that grow and are kept, a wall clock per
// step, and a launch's device time. Host code.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "common/host_staging.h"
#include "common/status.h"

namespace mallat::entropy::cuda {

// A CUDA error as a Status naming what failed.
inline Status check_cuda(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return Status::Ok();
  return device_error(std::string(what) + ": " + cudaGetErrorString(err));
}

// Where a GrowingBuffer lives: device memory; host memory by
// common/host_staging.h's size rule; or host memory pinned whatever its
// size (the hybrid coders' buffers, whose copies overlap the CPU's share of
// a batch).
enum class BufferKind { kDevice, kHost, kPinned };

// Room for at least `count` Ts, growing by half again at least: a hybrid
// coder's share of a batch moves a little from batch to batch, and freeing
// and allocating each time costs more than a launch (page-locking host
// memory is slow). The content is not kept when it grows.
template <class T, BufferKind kKind>
class GrowingBuffer {
 public:
  GrowingBuffer() = default;
  GrowingBuffer(const GrowingBuffer&) = delete;
  GrowingBuffer& operator=(const GrowingBuffer&) = delete;
  ~GrowingBuffer() { release(); }

  Status reserve(size_t count) {
    count = std::max<size_t>(count, 1);
    if (count <= capacity_) return Status::Ok();
    count = std::max(count, capacity_ + capacity_ / 2);
    release();
    void* p = nullptr;
    const size_t bytes = count * sizeof(T);
    cudaError_t err = cudaSuccess;
    if constexpr (kKind == BufferKind::kDevice) {
      err = cudaMalloc(&p, bytes);
    } else if constexpr (kKind == BufferKind::kPinned) {
      pinned_ = true;
      err = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
    } else {
      err = host_staging_alloc(&p, bytes, &pinned_);
    }
    if (err != cudaSuccess) {
      return device_error("allocating " + std::to_string(bytes) + " bytes of " +
                          (kKind == BufferKind::kDevice ? "device" : "host") +
                          " memory for Tier-1: " + cudaGetErrorString(err));
    }
    data_ = static_cast<T*>(p);
    capacity_ = count;
    return Status::Ok();
  }
  T* data() const { return data_; }

 private:
  void release() {
    if (data_ != nullptr) {
      if constexpr (kKind == BufferKind::kDevice) {
        cudaFree(data_);
      } else {
        host_staging_free(data_, pinned_);
      }
    }
    data_ = nullptr;
    capacity_ = 0;
  }
  T* data_ = nullptr;
  size_t capacity_ = 0;
  bool pinned_ = false;  // a host buffer's kind (common/host_staging.h)
};
template <class T>
using HostBuffer = GrowingBuffer<T, BufferKind::kHost>;
template <class T>
using PinnedBuffer = GrowingBuffer<T, BufferKind::kPinned>;
template <class T>
using DeviceBuffer = GrowingBuffer<T, BufferKind::kDevice>;

// Adds the wall time from here to the end of its scope to `*sink`.
class StepClock {
 public:
  explicit StepClock(double* sink) : sink_(sink), start_(std::chrono::steady_clock::now()) {}
  ~StepClock() {
    *sink_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }
  StepClock(const StepClock&) = delete;
  StepClock& operator=(const StepClock&) = delete;

 private:
  double* sink_;
  std::chrono::steady_clock::time_point start_;
};

// Device time of one `launch` on `stream`, in ms: the median of `runs`
// launches timed by CUDA events, after `warmup` untimed ones.
inline Result<double> median_launch_ms(cudaStream_t stream, const std::function<Status()>& launch, int warmup,
                                       int runs) {
  for (int i = 0; i < warmup; ++i) MALLAT_RETURN_IF_ERROR(launch());
  // The two events, destroyed on every way out.
  cudaEvent_t events[2] = {};
  struct Destroy {
    cudaEvent_t* e;
    ~Destroy() {
      for (int i = 0; i < 2; ++i)
        if (e[i] != nullptr) cudaEventDestroy(e[i]);
    }
  } destroy{events};
  for (cudaEvent_t& e : events) MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventCreate(&e), "cudaEventCreate"));
  std::vector<double> ms;
  for (int i = 0; i < std::max(1, runs); ++i) {
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventRecord(events[0], stream), "cudaEventRecord"));
    MALLAT_RETURN_IF_ERROR(launch());
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventRecord(events[1], stream), "cudaEventRecord"));
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventSynchronize(events[1]), "a timed launch"));
    float t = 0;
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventElapsedTime(&t, events[0], events[1]), "cudaEventElapsedTime"));
    ms.push_back(t);
  }
  std::nth_element(ms.begin(), ms.begin() + static_cast<ptrdiff_t>(ms.size() / 2), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace mallat::entropy::cuda

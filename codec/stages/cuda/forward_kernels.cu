// The device runner's sample kernels (forward_launch.h). Each is a plain
// loop over samples with the rule of colour_rules.h, the one the CPU runs.
#include <type_traits>

#include "codec/stages/colour_rules.h"
#include "codec/stages/cuda/forward_launch.h"
#include "codec/stages/stored_samples.h"
#include "dwt/cuda/check.h"

namespace mallat::codec::cuda {
namespace {

constexpr int kThreads = 256;

int blocks_for(size_t count) {
  const size_t b = (count + kThreads - 1) / kThreads;
  return static_cast<int>(b < 65535 * 16 ? b : 65535 * 16);
}

// Sample i of the packed stored plane to its place in the int32 plane;
// the conversion is stored_samples.h's widen (a plain C++ one).
template <typename Stored>
__global__ void widen_kernel(const Stored* stored, uint64_t count, uint32_t width, int32_t* plane, int64_t pitch) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count; i += uint64_t{gridDim.x} * blockDim.x) {
    const uint64_t y = i / width, x = i - y * width;
    plane[y * pitch + x] = static_cast<int32_t>(stored[i]);
  }
}

template <typename Stored>
Status widen_as(const void* stored, int64_t width, int64_t height, int32_t* plane, int64_t pitch, cudaStream_t s) {
  const uint64_t count = static_cast<uint64_t>(width * height);
  widen_kernel<Stored><<<blocks_for(count), kThreads, 0, s>>>(static_cast<const Stored*>(stored), count,
                                                              static_cast<uint32_t>(width), plane, pitch);
  return dwt::cuda::check_launch("widen_kernel");
}

__global__ void dc_shift_kernel(int32_t* p, size_t n, int32_t shift) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    p[i] -= shift;
}

__global__ void rct_kernel(int32_t* c0, int32_t* c1, int32_t* c2, size_t n, int32_t s0, int32_t s1, int32_t s2) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    int32_t a = c0[i] - s0, b = c1[i] - s1, c = c2[i] - s2;
    rct_forward_sample(a, b, c);
    c0[i] = a;
    c1[i] = b;
    c2[i] = c;
  }
}

// Block k of the grid copies job k, its threads striding over the samples.
__global__ void gather_kernel(const GatherJob* jobs, const int32_t* planes, int32_t* out) {
  const GatherJob job = jobs[blockIdx.x];
  const uint32_t n = uint32_t{job.width} * job.height;
  for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
    const uint32_t y = i / job.width, x = i - y * job.width;
    out[job.target + i] = planes[job.source + uint64_t{y} * job.pitch + x];
  }
}

}  // namespace

Status launch_widen(const void* stored, int precision, bool is_signed, int64_t width, int64_t height, int32_t* plane,
                    int64_t pitch, cudaStream_t stream) {
  if (width <= 0 || height <= 0) return Status::Ok();
  return with_stored_type(stored_bytes(precision), is_signed, [&](auto* type) {
    return widen_as<std::remove_pointer_t<decltype(type)>>(stored, width, height, plane, pitch, stream);
  });
}

Status launch_dc_shift(int32_t* samples, size_t count, int32_t shift, cudaStream_t stream) {
  if (count == 0 || shift == 0) return Status::Ok();
  dc_shift_kernel<<<blocks_for(count), kThreads, 0, stream>>>(samples, count, shift);
  return dwt::cuda::check_launch("dc_shift_kernel");
}

Status launch_rct_forward(int32_t* c0, int32_t* c1, int32_t* c2, size_t count, const int32_t shift[3],
                          cudaStream_t stream) {
  if (count == 0) return Status::Ok();
  rct_kernel<<<blocks_for(count), kThreads, 0, stream>>>(c0, c1, c2, count, shift[0], shift[1], shift[2]);
  return dwt::cuda::check_launch("rct_kernel");
}

Status launch_gather(const GatherJob* jobs, size_t count, const int32_t* planes, int32_t* out,
                     cudaStream_t stream) {
  // One grid row of blocks per job; a tile's jobs fit a grid's 2^31 - 1.
  if (count == 0) return Status::Ok();
  gather_kernel<<<static_cast<unsigned>(count), kThreads, 0, stream>>>(jobs, planes, out);
  return dwt::cuda::check_launch("gather_kernel");
}

}  // namespace mallat::codec::cuda

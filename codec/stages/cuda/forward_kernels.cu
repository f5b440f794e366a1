// The device runner's sample kernels (forward_launch.h). Each is a plain
// loop over samples with the rule the CPU runs (colour_rules.h,
// quant/quantize.h); built with -fmad=false, as the host's float code has
// no fused multiply-adds.
#include <type_traits>

#include "codec/stages/colour_rules.h"
#include "codec/stages/cuda/forward_launch.h"
#include "codec/stages/stored_samples.h"
#include "codec/stages/cuda/sample_grid.cuh"
#include "dwt/cuda/check.h"

namespace mallat::codec::cuda {
namespace {

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

// G.1.2 into floats, in place: each int32 sample minus `shift` as a float
// (dc_shift_row's float form, tile_input.cc).
__global__ void to_float_kernel(int32_t* p, size_t n, int32_t shift) {
  float* f = reinterpret_cast<float*>(p);
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    f[i] = static_cast<float>(p[i] - shift);
}

__global__ void ict_kernel(float* c0, float* c1, float* c2, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    ict_forward_sample(c0[i], c1[i], c2[i]);
}

// |y| / Delta of a row's sample x, for dead_zone_energy_lanes.
struct RowScaled {
  const float* row;
  const quant::DeadZoneRule* rule;
  __device__ float operator()(int64_t x) const { return quant::dead_zone_scaled(*rule, row[x]); }
};

// Block k of the grid quantises job k (quantise_on_host, device_tile_plan.h):
// its threads stride over the samples for the values and the clipped
// count; then each thread takes a row's energy lanes, and thread 0 adds
// them in row order in double, as quantize_dead_zone does.
__global__ void quantise_kernel(const QuantiseJob* jobs, const float* planes, int32_t* out,
                                quant::QuantizationError* found) {
  const QuantiseJob g = jobs[blockIdx.x];
  __shared__ unsigned long long clipped;
  __shared__ float lanes[kThreads][8];
  if (threadIdx.x == 0) clipped = 0;
  __syncthreads();
  const uint32_t n = uint32_t{g.width} * g.height;
  uint32_t mine = 0;
  for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
    const uint32_t y = i / g.width, x = i - y * g.width;
    const float v = planes[g.source + uint64_t{y} * g.pitch + x];
    const float scaled = quant::dead_zone_scaled(g.rule, v);
    const int32_t over = quant::dead_zone_over(g.rule, scaled);
    out[g.target + uint64_t{y} * g.pitch + x] = quant::dead_zone_value(g.rule, v, scaled, over);
    mine -= static_cast<uint32_t>(over);
  }
  if (mine) atomicAdd(&clipped, static_cast<unsigned long long>(mine));
  double total = 0;
  for (uint32_t first = 0; first < g.height; first += blockDim.x) {
    const uint32_t y = first + threadIdx.x;
    if (y < g.height) {
      const RowScaled row{planes + g.source + uint64_t{y} * g.pitch, &g.rule};
      quant::dead_zone_energy_lanes(g.width, row, lanes[threadIdx.x]);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      const uint32_t rows = min(blockDim.x, g.height - first);
      for (uint32_t r = 0; r < rows; ++r)
        for (int k = 0; k < 8; ++k) total += lanes[r][k];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    quant::QuantizationError e;
    e.clipped = static_cast<int64_t>(clipped);
    e.energy = total;
    found[g.block] = e;
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

Status launch_to_float(int32_t* samples, size_t count, int32_t shift, cudaStream_t stream) {
  if (count == 0) return Status::Ok();
  to_float_kernel<<<blocks_for(count), kThreads, 0, stream>>>(samples, count, shift);
  return dwt::cuda::check_launch("to_float_kernel");
}

Status launch_ict_forward(float* c0, float* c1, float* c2, size_t count, cudaStream_t stream) {
  if (count == 0) return Status::Ok();
  ict_kernel<<<blocks_for(count), kThreads, 0, stream>>>(c0, c1, c2, count);
  return dwt::cuda::check_launch("ict_kernel");
}

Status launch_quantise(const QuantiseJob* jobs, size_t count, const float* planes, int32_t* out,
                       quant::QuantizationError* found, cudaStream_t stream) {
  if (count == 0) return Status::Ok();
  quantise_kernel<<<static_cast<unsigned>(count), kThreads, 0, stream>>>(jobs, planes, out, found);
  return dwt::cuda::check_launch("quantise_kernel");
}

}  // namespace mallat::codec::cuda

// The device runner's inverse sample kernels (inverse_launch.h): plain
// loops over samples with the rules the CPU runs (inverse_jobs.h: quant's
// reconstruction, colour_rules.h's inverse transforms, shift and clamp);
// built with -fmad=false, as the host's float code has no fused
// multiply-adds.
#include "codec/stages/cuda/inverse_launch.h"
#include "codec/stages/cuda/sample_grid.cuh"
#include "dwt/cuda/check.h"

namespace mallat::codec::cuda {
namespace {

// Block blockIdx.x's job: its values, read along rows of the block, into
// its place in the planes.
__global__ void dequantise_kernel(const DequantiseJob* jobs, const int32_t* t1,
                                  const entropy::SharedT1DecodeResult* results, int32_t* planes) {
  const DequantiseJob job = jobs[blockIdx.x];
  quant::KnownPlanes known;
  if (!job.zero) {
    const entropy::SharedT1DecodeResult r = results[job.result];
    known.lowest_plane = r.lowest_plane;
    known.ended_in_significance_pass = r.ended_in_significance_pass;
  }
  const uint32_t n = uint32_t{job.width} * job.height;
  for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
    const uint32_t y = i / job.width, x = i - y * job.width;
    const int32_t v = job.zero ? 0 : t1[job.source + i];
    planes[job.target + uint64_t{y} * job.pitch + x] = dequantised(job, v, known);
  }
}

__global__ void output_kernel(OutputPlane plane, const int32_t* buffer, void* stored) {
  const uint64_t count = static_cast<uint64_t>(plane.width * plane.height);
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count; i += uint64_t{gridDim.x} * blockDim.x) {
    const int64_t y = static_cast<int64_t>(i / static_cast<uint64_t>(plane.width)), x = static_cast<int64_t>(i) - y * plane.width;
    store_sample(output_value(plane, x, y, buffer), plane, static_cast<int64_t>(i), stored);
  }
}

struct ColourPlanes {
  OutputPlane p[3];
};

__global__ void output_colour_kernel(ColourPlanes planes, const int32_t* buffer, void* stored) {
  const int64_t width = planes.p[0].width;
  const uint64_t count = static_cast<uint64_t>(width * planes.p[0].height);
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count; i += uint64_t{gridDim.x} * blockDim.x) {
    const int64_t y = static_cast<int64_t>(i / static_cast<uint64_t>(width)), x = static_cast<int64_t>(i) - y * width;
    int32_t v[3];
    output_pixel(planes.p, x, y, buffer, v);
    for (int c = 0; c < 3; ++c) store_sample(v[c], planes.p[c], static_cast<int64_t>(i), stored);
  }
}

}  // namespace

Status launch_dequantise(const DequantiseJob* jobs, size_t count, const int32_t* t1_samples,
                         const entropy::SharedT1DecodeResult* results, int32_t* planes, cudaStream_t stream) {
  if (count == 0) return Status::Ok();
  dequantise_kernel<<<static_cast<unsigned>(count), 128, 0, stream>>>(jobs, t1_samples, results, planes);
  return dwt::cuda::check_launch("dequantise_kernel");
}

Status launch_output(const OutputPlane& plane, const int32_t* planes, void* stored, cudaStream_t stream) {
  const uint64_t count = static_cast<uint64_t>(plane.width * plane.height);
  if (count == 0) return Status::Ok();
  output_kernel<<<blocks_for(count), kThreads, 0, stream>>>(plane, planes, stored);
  return dwt::cuda::check_launch("output_kernel");
}

Status launch_output_colour(const OutputPlane planes[3], const int32_t* buffer, void* stored, cudaStream_t stream) {
  const uint64_t count = static_cast<uint64_t>(planes[0].width * planes[0].height);
  if (count == 0) return Status::Ok();
  const ColourPlanes p{{planes[0], planes[1], planes[2]}};
  output_colour_kernel<<<blocks_for(count), kThreads, 0, stream>>>(p, buffer, stored);
  return dwt::cuda::check_launch("output_colour_kernel");
}

Status load_inverse_kernels() {
  cudaFuncAttributes attributes{};
  for (const void* kernel : {reinterpret_cast<const void*>(&dequantise_kernel),
                             reinterpret_cast<const void*>(&output_kernel),
                             reinterpret_cast<const void*>(&output_colour_kernel)}) {
    MALLAT_RETURN_IF_ERROR(dwt::cuda::check_cuda(cudaFuncGetAttributes(&attributes, kernel), "loading an inverse kernel"));
  }
  return Status::Ok();
}

}  // namespace mallat::codec::cuda

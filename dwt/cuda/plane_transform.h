// All levels of one plane on the device: the sequence of fused level kernels
// (level_kernels.cuh) and the buffers they pass the LL band through.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/status.h"
#include "dwt/cuda/level_args.h"
#include "dwt/dwt.h"

namespace mallat::dwt::cuda {

// Device storage of one plane. `in` is only read, so a timed run can be
// repeated on the same input; `out` receives the result; the two scratch
// planes, each ceil(w/2) x ceil(h/2), carry the LL band (forward) or the
// reconstructed region (inverse) from one level to the next.
template <typename T>
struct PlaneBuffers {
  DevicePlane<T> in;
  DevicePlane<T> out;
  DevicePlane<T> scratch[2];
};

// What the kernels need of a PlaneJob.
struct PlaneShape {
  Direction direction = Direction::kForward;
  int levels = 0;
  int64_t x0 = 0, y0 = 0, width = 0, height = 0;
};

// Enqueues every level of the transform of `in` into `out` on `stream`
// (Annex F: 2D_SD level by level from the finest, or 2D_SR from the coarsest
// down). Nothing waits; each launch is checked.
Status transform_plane_async(const PlaneShape& shape, const PlaneBuffers<int32_t>& bufs,
                             cudaStream_t stream);
Status transform_plane_async(const PlaneShape& shape, const PlaneBuffers<float>& bufs,
                             cudaStream_t stream);

}  // namespace mallat::dwt::cuda

// Annex F over a tile's planes as the device runner lays them out
// (device_tile_plan.h: DevicePlaneLayout), forward or inverse, for the
// forward runner and the inverse one alike: `in` and `out` hold the planes
// at the layout's offsets (int32 for the 5/3, float for the 9/7 in the same
// bytes, tile_buffers.h), the DWT's packed subbands on one side of it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "codec/stages/device_tile_plan.h"
#include "codec/stages/tile_buffers.h"
#include "common/status.h"
#include "dwt/cuda/plane_transform.h"

namespace mallat::codec {

inline Status transform_layout(dwt::Direction direction, std::span<const TilePlane> planes,
                               const DevicePlaneLayout& plan, int32_t* in, int32_t* out, std::byte* scratch0,
                               std::byte* scratch1, cudaStream_t s) {
  for (size_t c = 0; c < planes.size(); ++c) {
    const TilePlane& plane = planes[c];
    if (plane.rect.empty()) continue;
    dwt::cuda::PlaneShape shape;
    shape.direction = direction;
    shape.levels = plane.levels;
    shape.x0 = plane.rect.x0;
    shape.y0 = plane.rect.y0;
    shape.width = plane.width();
    shape.height = plane.height();
    const auto buffers = [&](auto* type) {
      using T = std::remove_pointer_t<decltype(type)>;
      dwt::cuda::PlaneBuffers<T> b;
      b.in = {reinterpret_cast<T*>(in + plan.plane_offset[c]), plan.plane_pitch[c]};
      b.out = {reinterpret_cast<T*>(out + plan.plane_offset[c]), plan.plane_pitch[c]};
      b.scratch[0] = {reinterpret_cast<T*>(scratch0), plan.scratch_pitch[c]};
      b.scratch[1] = {reinterpret_cast<T*>(scratch1), plan.scratch_pitch[c]};
      return dwt::cuda::transform_plane_async(shape, b, s);
    };
    MALLAT_RETURN_IF_ERROR(plane.wavelet == dwt::Wavelet::k97 ? buffers(static_cast<float*>(nullptr))
                                                              : buffers(static_cast<int32_t*>(nullptr)));
  }
  return Status::Ok();
}

}  // namespace mallat::codec

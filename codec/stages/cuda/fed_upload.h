// A fed tile's rows (EncodeTile::feed) up to its planes on the device, a
// strip at a time through two pinned buffers: the feed fills one (its rows
// converted on the encoder's pool) while the device copies up the other.
//
// Why: one large image encoded on the device would otherwise be read whole
// into host memory first (its samples at their stored width, the size of
// the file again) and copied up from there; fed, the host holds two strips.
// The samples go up as int32 (the feed's form) into the planes where the
// colour transform reads them, so no widening kernel runs.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>

#include "codec/stages/tile_buffers.h"
#include "common/status.h"
#include "dwt/cuda/device_buffer.h"

namespace mallat::codec::cuda {

class FedUpload {
 public:
  // Every row of `tile` (a whole image: each plane its component's size,
  // from sample (0, 0)) from its feed into plane c at planes[c], rows
  // pitch[c] samples apart, on stream `s` after what is queued on it.
  // Returns once the feed has been read; the last strips' copies may still
  // be queued (the next call waits for them before it writes their buffer).
  Status upload(const EncodeTile& tile, std::span<int32_t* const> planes, std::span<const int64_t> pitch,
                cudaStream_t s);

 private:
  dwt::cuda::PinnedArena strip_[2];
  dwt::cuda::Event copied_[2];  // the last copy up from each strip
};

}  // namespace mallat::codec::cuda

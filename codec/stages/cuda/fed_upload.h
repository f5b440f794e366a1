// A fed tile's rows (EncodeTile::feed) up to its planes on the device, a
// strip at a time through two pinned buffers: the feed fills one (its rows
// converted on the encoder's pool) while the device copies up the other.
//
// Why: one large image encoded on the device would otherwise be read whole
// into host memory first (its samples at their stored width, the size of
// the file again) and copied up from there; fed, the host holds two strips.
// Where the tile has a stored feed (EncodeTile::stored_feed) the rows go up
// at their stored width, a quarter of the bytes of 8-bit samples as int32,
// and are widened into the planes on the device (launch_widen, as a tile
// read at its stored width is); otherwise as the feed's int32 samples,
// straight into the planes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "codec/stages/tile_buffers.h"
#include "common/status.h"
#include "dwt/cuda/device_buffer.h"

namespace mallat::codec::cuda {

// Where a fed tile's rows go on the device: plane c at planes[c], rows
// pitch[c] samples apart; for a stored feed, component c's stored rows at
// stored + stored_offset[c] (packed rows, the plan's stored buffer).
struct FedPlanes {
  std::span<int32_t* const> planes;
  std::span<const int64_t> pitch;
  std::byte* stored = nullptr;
  std::span<const uint64_t> stored_offset;
};

class FedUpload {
 public:
  // Every row of `tile` (a whole image: each plane its component's size,
  // from sample (0, 0)) from its feed into `to`, on stream `s` after what
  // is queued on it. Returns once the feed has been read; the last strips'
  // copies may still be queued (the next call waits for them before it
  // writes their buffer).
  Status upload(const EncodeTile& tile, const FedPlanes& to, cudaStream_t s);

 private:
  dwt::cuda::PinnedArena strip_[2];
  dwt::cuda::Event copied_[2];  // the last copy up from each strip
};

}  // namespace mallat::codec::cuda

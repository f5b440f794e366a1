// A decode's raster (decode.h's raster overload: the components
// interleaved, a byte each) in device memory, for a caller that wants the
// samples on the device (the engine's DecodeItem::raster_on_device). The
// device runner's tiles store their samples there from the device
// (DecodeTile::device_raster); a tile decoded on the CPU writes the host's
// raster and its part goes up (upload_raster_part). Without CUDA in the
// build, or without a device, every function says so (kDeviceError).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "common/status.h"
#include "common/thread_pool.h"

namespace mallat::codec {

// OK where device rasters can be made (the build has CUDA and device 0
// exists), else why not.
Status device_raster_ready();

// `bytes` of device 0's memory, zero-filled and ready for any stream when
// this returns. They come from a stream-ordered pool that keeps freed memory
// for the next raster (no cudaMalloc per image) and go back to it when the
// last owner lets go, ordered after the work already queued on the legacy
// default stream (where PyTorch's default stream reads a tensor made from
// it).
Result<std::shared_ptr<uint8_t>> make_device_raster(size_t bytes);

// Rows [y0, y0 + rows) of `width` bytes from column byte `x` of a host
// raster into the same place of a device raster, both `pitch` bytes a row:
// through pinned chunks filled on `pool` while the device copies the
// other, queued on the calling thread's stream; finish_device_raster waits
// for them.
Status upload_raster_part(const uint8_t* host, uint8_t* device, size_t pitch, size_t x, size_t width, size_t y0,
                          size_t rows, ThreadPool& pool);

// Waits for the calling thread's uploads.
Status finish_device_raster();

// `bytes` of a device raster into host memory, waited for (the tests' check
// of a device raster against the host's).
Status download_device_raster(const uint8_t* device, size_t bytes, uint8_t* host);

}  // namespace mallat::codec

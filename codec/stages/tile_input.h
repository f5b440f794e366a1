// The first step of encoding a tile: its samples from the image into the
// tile's planes (tile_buffers.h) with the DC level shift of unsigned
// components (G.1.2) and, on components 0..2, the forward RCT (G.2, with
// the 5/3) or ICT (G.3, with the 9/7). The mirror of tile_output.h.
#pragma once

#include "codec/stages/tile_buffers.h"
#include "common/thread_pool.h"

namespace mallat::codec {

// Fills tile.planes (allocated, of their wavelet's sample type) from
// tile.image. With the colour transform, in bands of rows on the pool, each
// band's components shifted and transformed while in cache; without it, one
// component per item.
void read_tile(EncodeTile& tile, ThreadPool& pool);

// G.1.2 on n samples of component `comp`: the DC level shift, into the
// plane's type (int32 for the 5/3; float for the 9/7, converted after the
// shift). read_tile and the streamed encoder's rows both go through these.
void dc_shift_row(const int32_t* in, int64_t n, const Component& comp, int32_t* out);
void dc_shift_row(const int32_t* in, int64_t n, const Component& comp, float* out);

}  // namespace mallat::codec

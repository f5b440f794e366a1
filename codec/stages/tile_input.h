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

}  // namespace mallat::codec

// Annex E per code-block, in place in a tile's planes (tile_buffers.h): the
// encoder's dead-zone quantisation with H.1's ROI up-shift, the decoder's
// mid-point reconstruction (E.1.1.2) with the ROI down-shift, through
// quant/. Both run on the thread that codes the block, just before or after
// it (block_coding.h), or as a stage of their own.
#pragma once

#include <cstddef>
#include <functional>

#include "common/plane_view.h"
#include "common/thread_pool.h"
#include "entropy/block_coder.h"
#include "quant/quantize.h"

namespace mallat::codec {

struct EncodeTile;  // tile_buffers.h
struct DecodeTile;

// Encoder, block i of `tile`: the 9/7's coefficients become dead-zone
// indices with the block's fraction bits (quant::quantize_dead_zone), in
// place; then, under a region of interest, every index is shifted up by s
// (H.1: the whole component is the region). Returns what quantisation
// found (nothing for the 5/3, whose coefficients are the indices).
quant::QuantizationError quantise_block(const EncodeTile& tile, size_t i);

// A block's indices as quantised, on the thread that quantised it.
using QuantisedIndices = std::function<void(size_t block, PlaneView<const int32_t> indices)>;

// kQuantisation on its own: every block, on the pool; with
// tile.ht_statistics, each block's HT plane estimate after it. `beside`'s
// items run on the pool beside the blocks (started first), and its `each`
// after each block, on the thread that quantised it. `take`, where given,
// gets each block's indices there (the streamed encoder keeps them): with
// tile.ht_statistics, where the one pass of quantise_statistics.h applies,
// in that thread's scratch, the tile's plane left holding the block's
// coefficients (none of its lines written, so none written back).
void quantise_blocks(EncodeTile& tile, ThreadPool& pool, const entropy::BatchWork& beside = {},
                     const QuantisedIndices& take = {});

// Decoder, block i of `tile` (decoded, with passes): its values become
// coefficients in place (quant::reconstruct_reversible / _irreversible),
// int32 for the 5/3, float for the 9/7.
void dequantise_block(const DecodeTile& tile, size_t i);

// kDequantisation on its own: every block that decoded, on the pool.
void dequantise_blocks(DecodeTile& tile, ThreadPool& pool);

}  // namespace mallat::codec

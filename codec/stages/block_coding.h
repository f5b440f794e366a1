// The block coding stages: a tile's code-blocks, as one batch, through the
// block coder their style asks for (entropy/block_coder.h), reading and
// writing the tile's planes in place (tile_buffers.h).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "codec/stages/tile_buffers.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "entropy/block_coder.h"

namespace mallat::codec {

// Whether `block` is coded with its cleanup at `plane`: not where the
// plane is negative (rate control's "not this round") or where the block
// has nothing there (Mb <= plane, above plane 0).
bool block_coded_at(const EncodeBlock& block, int plane);
// Block i of `tile` to code with its cleanup at `plane`, with SigProp and
// MagRef below it when `refinement` asks and the plane is above 0, the
// tile's lowering share and distortions; `samples` its indices (a device
// runner's plan gives a view without data: the samples lie on the device).
entropy::BlockToEncode block_to_encode(const EncodeTile& tile, size_t i, PlaneView<const int32_t> samples, int plane,
                                       bool refinement);

// kBlockCoding: codes every block of `tile` into tile.coded. With
// `quantise`, kQuantisation comes first for each block, on the thread
// that codes it (tile.quantisation).
// `beside`'s items (work of the caller's: the streamed encoder's next rows)
// run on the pool beside the blocks; its `each` (block i of tile.blocks)
// just before block i is quantised and coded, on that thread (the streamed
// encoder puts kept indices back in place there).
Status encode_blocks(EncodeTile& tile, ThreadPool& pool, bool quantise, const entropy::BatchWork& beside = {});

// Rate control's coding again at chosen planes (codec/encoder/tile_encoder.h):
// block i of `tile` with its cleanup at rounds[r][i] for each round r,
// round 0 with SigProp and MagRef below its plane, the later rounds the
// cleanup alone (a negative plane, or one at or above the block's Mb
// above 0: not coded). `before(i)` runs once, just before block i's first
// coding; `after(i, r, coded)` after each of its rounds in round order
// (coded.num_passes 0 where the block was not coded), on the thread that
// coded it, which may take `coded`'s contents. On the CPU a block's rounds
// are one item of one parallel section; through tile.hybrid_coder each
// round is a batch of encode_blocks (tile.ht_block_planes and
// tile.ht_refinement are left as the last round set them). The same bytes
// either way as encode_blocks, round by round.
struct BlockRounds {
  std::function<void(size_t block)> before;
  std::function<void(size_t block, size_t round, entropy::EncodedCodeBlock& coded)> after;
};
Status encode_block_rounds(EncodeTile& tile, std::span<const std::vector<int8_t>> rounds, ThreadPool& pool,
                           const BlockRounds& work);

// kBlockDecoding: decodes every block into its place in the planes and
// sets its info and status; blocks without passes, and the samples of a
// plane that no block covers, become zero. With `dequantise`,
// kDequantisation follows for each block on the thread that decoded it.
// `beside`'s items (work of the caller's) run on the pool beside the
// blocks. Returns the first failed block's error in block order, a block
// decoder's named by tile.describe_block.
Status decode_blocks(DecodeTile& tile, ThreadPool& pool, bool dequantise, const entropy::BatchWork& beside = {});

// 15444-15 lets HT and Part 1 code-blocks share a tile (HTMIXED, or
// components whose COC styles differ): `batch` decoded in one batch per
// block coder (entropy::make_block_decoder), the caller's beside-work run
// with the first. decode_blocks and the transcoder decode through it.
// `hybrid`, when set, decodes every coder's blocks (the device's coders
// and the CPU's, entropy/hybrid/hybrid_block_decoder.h).
Status decode_by_coder(std::span<const entropy::BlockToDecode> batch, std::span<entropy::DecodedBlock> out,
                       ThreadPool& pool, const entropy::BatchWork& work = {}, entropy::BlockDecoder* hybrid = nullptr);

}  // namespace mallat::codec

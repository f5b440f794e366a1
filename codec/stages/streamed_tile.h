// A tile decoded row by row in bounded memory: the inverse DWT of
// each plane runs line by line (dwt/line_inverse.h), and when it needs rows
// of a subband that are not decoded yet, the next row of that subband's
// code-blocks is block-decoded and dequantised on the pool, through the same
// decode_blocks as the whole-tile stages (block_coding.h), into a buffer of
// that row's height that is reused (with the row at the same place of the
// resolution's other subbands, of every plane, decoded ahead in the same
// batch; after use_threads(), the next row of a resolution's subbands is
// decoded on a thread of its own while the transform goes on through the
// rows in hand). What is held: per subband at most two code-block rows of
// coefficients, per level a few rows of the transform, and the strip asked
// for; no whole plane.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "codec/stages/tile_buffers.h"
#include "codec/stages/tile_output.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "dwt/geometry.h"

namespace mallat::codec {

// One code-block of a streamed tile: its plane, its subband (resolution r of
// the plane's decomposition, 0 being the LL band, and orientation) and its
// rectangle in subband coordinates (B-15); `id` is the caller's name for it.
struct StreamBlock {
  int plane = 0;
  int resolution = 0;
  dwt::Band band = dwt::Band::kLL;
  dwt::Rect rect;
  size_t id = 0;
};

struct StreamedTileInput {
  // Each plane's rect, levels and wavelet (unallocated). The planes must
  // have one rect (the caller streams only such tiles).
  std::vector<TilePlane> planes;
  // The code-blocks to decode: in each subband they must tile it, as
  // Annex B's partition does.
  std::vector<StreamBlock> blocks;
  // Block `id` for the block decoder (its Tier-2 data, Mb, style, step);
  // its place is set here.
  std::function<DecodeBlock(size_t id)> make_block;
  // Names block `id` in a block decoder's message; may be empty.
  std::function<std::string(size_t id)> describe_block;
  // When set, decodes every batch of code-blocks (DecodeTile::hybrid_decoder:
  // the device's coders beside the CPU's, the CPU decoder's samples).
  entropy::BlockDecoder* hybrid_decoder = nullptr;
};

class StreamedTile {
 public:
  StreamedTile(StreamedTileInput input, ThreadPool& pool);
  ~StreamedTile();

  int64_t rows_left() const;
  // Before the first rows, with a pool of 4 threads or more: the blocks are
  // decoded ahead on a thread of its own and each plane's inverse DWT runs
  // on a thread of its own (plane 0 on the caller's), one more thread than
  // the pool's and one a plane besides; the caller asks it of one tile at a
  // time, so that the threads stay few. Otherwise one thread runs every
  // plane's transform and waits for the blocks it reaches.
  void use_threads();
  // After use_threads(), before the first rows: the first row of
  // code-blocks of every subband decoded ahead on its thread now, in order
  // of resolution and plane, while the caller is still busy (block by block, the
  // blocks' makers may wait for their Tier-2 data: tile_decoder.h). The
  // rows are those the first strip needs; nothing without use_threads().
  void decode_first_rows_ahead();

  // The next min(rows, rows_left()) rows of every plane, as the inverse DWT
  // leaves them (int32 for the 5/3, float for the 9/7), valid until the next
  // call; or the first block decoding error.
  Result<std::vector<DecodedTileComponent>> next_strip(int64_t rows);

  // Whether the rows next_strip or next_rows hand over stay valid through
  // the next such call too, not only until it: after use_threads() with
  // several planes, whose inverse DWTs fill strips, two sets of strips take
  // turns, so that the caller may take one strip through the output stage
  // while the next is made.
  bool keeps_two_strips() const;

  // Whether every plane is 5/3 (int32 rows that the output stage only reads,
  // tile_output.h), so that next_rows may hand them over.
  bool reversible() const;

  // The next min(rows, rows_left()) rows one at a time, without next_strip's
  // copy into a strip: `each` gets one row of every plane, the inverse DWT's
  // own (which it reads again: `each` must not write them), valid during the
  // call. After use_threads() with several planes, whose inverse DWTs then
  // run at once, `each` gets the rows once, as next_strip's. The first block
  // decoding error, after the rows.
  Status next_rows(int64_t rows, const std::function<void(std::span<const DecodedTileComponent>)>& each);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mallat::codec

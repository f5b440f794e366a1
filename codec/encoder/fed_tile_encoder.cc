// TileEncoder::code_fed: a streamed encode's one tile handed to the device
// runner whole, its rows read from the source strip by strip straight into
// device memory (EncodeTile::feed), so that neither the image nor a copy of
// it at its stored width is ever held by the host.
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "codec/encoder/tile_encoder.h"
#include "codec/stages/tile_stages.h"

namespace mallat::codec {

namespace {

// The source's next rows of every component: read together and converted
// on the pool in bands of rows where the source can, else component by
// component (RowSource::read_rows, the components in step).
TileFeed feed_of(const RowSource& source, ThreadPool& pool) {
  return [&source, &pool](int64_t rows, int32_t* const* out) -> Status {
    const std::vector<Component>& comps = source.layout.components;
    if (!source.read_together) {
      for (size_t c = 0; c < comps.size(); ++c) MALLAT_RETURN_IF_ERROR(source.read_rows(static_cast<int>(c), rows, out[c]));
      return Status::Ok();
    }
    MALLAT_ASSIGN_OR_RETURN(const RowConversion convert, source.read_together(rows));
    constexpr int64_t kBandRows = 8;
    return pool.parallel_for_status((rows + kBandRows - 1) / kBandRows, [&](int64_t band) -> Status {
      const int64_t y0 = band * kBandRows, y1 = std::min(rows, y0 + kBandRows);
      std::vector<int32_t*> to(comps.size());
      for (size_t c = 0; c < comps.size(); ++c) to[c] = out[c] + y0 * comps[c].width;
      return convert(y0, y1, to.data());
    });
  };
}

// The same rows at their stored width (RowSource::read_together_stored),
// converted on the pool in bands of rows.
TileStoredFeed stored_feed_of(const RowSource& source, ThreadPool& pool) {
  return [&source, &pool](int64_t rows, uint8_t* const* out) -> Status {
    const std::vector<Component>& comps = source.layout.components;
    MALLAT_ASSIGN_OR_RETURN(const StoredRowConversion convert, source.read_together_stored(rows));
    constexpr int64_t kBandRows = 8;
    return pool.parallel_for_status((rows + kBandRows - 1) / kBandRows, [&](int64_t band) -> Status {
      const int64_t y0 = band * kBandRows, y1 = std::min(rows, y0 + kBandRows);
      std::vector<uint8_t*> to(comps.size());
      for (size_t c = 0; c < comps.size(); ++c)
        to[c] = out[c] + y0 * comps[c].width * stored_bytes(comps[c].precision);
      return convert(y0, y1, to.data());
    });
  };
}

}  // namespace

Result<bool> TileEncoder::code_fed(int index, const RowSource& source) {
  if (setup_.device_tiles == nullptr || setup_.ht_candidates) return false;
  MALLAT_ASSIGN_OR_RETURN(std::vector<EncodeBlock> blocks, prepare(index));
  const std::unique_ptr<TileStages> stages = make_device_tile_stages(pool_, dwt_, *setup_.device_tiles);
  EncodeTile tile = planes();
  // The feed gives whole rows of every component from the image's first.
  for (size_t c = 0; c < tile.planes.size(); ++c) {
    const Component& comp = source.layout.components[c];
    if (tile.source_x[c] != 0 || tile.source_y[c] != 0 || tile.planes[c].width() != comp.width ||
        tile.planes[c].height() != comp.height || comp.height != source.layout.height())
      return false;
  }
  const TileFeed feed = feed_of(source, pool_);
  tile.feed = &feed;
  const TileStoredFeed stored = source.read_together_stored ? stored_feed_of(source, pool_) : TileStoredFeed();
  if (stored) tile.stored_feed = &stored;
  tile.distortions = setup_.distortions;
  tile.hybrid_coder = setup_.hybrid_coder;
  tile.blocks = std::move(blocks);
  if (!stages->keeps_whole(tile)) return false;
  MALLAT_RETURN_IF_ERROR(run_forward_stages(*stages, tile));
  for (size_t slot = 0; slot < tile.blocks.size(); ++slot) account(slot, tile);
  return true;
}

}  // namespace mallat::codec

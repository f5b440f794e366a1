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

constexpr int64_t kFeedBandRows = 8;

// One conversion's `rows` rows in bands of kFeedBandRows on the pool, each band
// of component c at out[c] plus its first row's elements (a row of
// component c is row[c] elements of T).
template <typename T, typename Convert>
Status convert_in_bands(ThreadPool& pool, int64_t rows, T* const* out, const std::vector<int64_t>& row,
                        const Convert& convert) {
  return pool.parallel_for_status((rows + kFeedBandRows - 1) / kFeedBandRows, [&](int64_t band) -> Status {
    const int64_t y0 = band * kFeedBandRows, y1 = std::min(rows, y0 + kFeedBandRows);
    std::vector<T*> to(row.size());
    for (size_t c = 0; c < row.size(); ++c) to[c] = out[c] + y0 * row[c];
    return convert(y0, y1, to.data());
  });
}

// The source's next rows of every component: read together and converted
// on the pool in bands of rows where the source can, else component by
// component (RowSource::read_rows, the components in step).
TileFeed feed_of(const RowSource& source, ThreadPool& pool) {
  std::vector<int64_t> row;
  for (const Component& c : source.layout.components) row.push_back(c.width);
  return [&source, &pool, row](int64_t rows, int32_t* const* out) -> Status {
    if (!source.read_together) {
      for (size_t c = 0; c < row.size(); ++c) MALLAT_RETURN_IF_ERROR(source.read_rows(static_cast<int>(c), rows, out[c]));
      return Status::Ok();
    }
    MALLAT_ASSIGN_OR_RETURN(const RowConversion convert, source.read_together(rows));
    return convert_in_bands(pool, rows, out, row, convert);
  };
}

// The same rows at their stored width (RowSource::read_together_stored),
// converted on the pool in bands of rows.
TileStoredFeed stored_feed_of(const RowSource& source, ThreadPool& pool) {
  std::vector<int64_t> row;
  for (const Component& c : source.layout.components) row.push_back(c.width * stored_bytes(c.precision));
  return [&source, &pool, row](int64_t rows, uint8_t* const* out) -> Status {
    MALLAT_ASSIGN_OR_RETURN(const StoredRowConversion convert, source.read_together_stored(rows));
    return convert_in_bands(pool, rows, out, row, convert);
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

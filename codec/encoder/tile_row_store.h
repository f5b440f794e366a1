// A streamed encode of a tiled image (codec/api/encode_streamed.h):
// the image is read one row of tiles at a time (B-7..B-10: the tiles of one
// row share their rows on the reference grid, B-12 on each component's
// grid), held at the samples' width (one byte for up to 8 bits, two for up
// to 16) instead of int32, and each tile of the row takes its columns of
// those rows through TileEncoder::code_rows. The rows of one row of tiles
// are dropped when the next row of tiles is read, so what is held is one
// row of tiles, never the image. The first tile of a row reads the rows
// from the source as its code_rows asks for them (the components in step,
// as code_rows reads them), so reading runs beside its block coding; the
// other tiles of the row find them read.
#pragma once

#include <cstdint>
#include <vector>

#include "codec/api/encode_streamed.h"
#include "codec/codestream/params.h"
#include "codec/encoder/tile_encoder.h"
#include "common/status.h"

namespace mallat::codec {

class TileRowStore {
 public:
  // `source` and `siz` (the main header's) stay alive while the store is used.
  TileRowStore(const RowSource& source, const ImageAndTileSize& siz) : source_(source), siz_(siz) {}

  // Tile `index`'s rows, each component's columns of the tile, for
  // code_rows. Tiles come in index order (raster, B-7), each reading all
  // its rows; the first tile of a row of tiles reads that row's rows from
  // the source as it goes. The reader is valid until the next call.
  Result<TileRowReader> rows_of(int index);

 private:
  // One component's rows of the current row of tiles, full width.
  struct Plane {
    int sample_bytes = 1;  // stored_bytes (codec/stages/stored_samples.h): 1, 2 or 4
    int64_t width = 0, rows = 0;
    int64_t loaded = 0;   // rows read from the source so far
    int64_t x_start = 0;  // ceil(XOsiz / XRsiz): the component's first column on its grid (B-2)
    std::vector<uint8_t> samples;
  };

  // Makes room for the rows of tile row `row` of every component.
  Status start_tile_row(int row);
  // Reads component c's rows of the current row of tiles from the source
  // up to `until` (counted from the row's first), if not read yet.
  Status load(int c, int64_t until);
  // Rows [from, from + count) of plane c narrowed into its store from `wide`.
  Status narrow(int c, int64_t from, int64_t count, const int32_t* wide);

  const RowSource& source_;
  const ImageAndTileSize& siz_;
  int row_ = -1;
  std::vector<Plane> planes_;
  std::vector<int64_t> first_rows_;  // per component: the current rows' first row in the image
  std::vector<int64_t> taken_;   // per component: rows of the current tile given so far
  std::vector<int32_t> wide_;    // a chunk of rows read from the source
};

}  // namespace mallat::codec

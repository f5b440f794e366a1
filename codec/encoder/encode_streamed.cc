// encode_streamed (codec/api/encode_streamed.h): encode()'s steps over the
// image's layout, the one tile coded from its rows (TileEncoder::code_rows),
// the file handed to the sink in pieces.
#include "codec/api/encode_streamed.h"

#include <string>

#include "codec/api/profile.h"
#include "codec/encoder/encode_tiles.h"

namespace mallat::codec {

std::string why_not_streamed(const Image& layout, const EncodeOptions& o) {
  if (o.rate_kind == EncodeOptions::RateKind::kPsnr)
    return "PSNR targets (-q) decode what was written and compare it with the whole image";
  if (o.step_search > 1) return "the step search (--step-search) decodes each file and compares it with the whole image";
  if (o.profile.kind != ProfileKind::kNone) return "profiles (cinema, IMF) are encoded from the whole image";
  const Result<GridSize> grid = reference_grid_size(layout, o.image_x0, o.image_y0);
  if (!grid.ok()) return grid.status().message();
  const uint64_t xsiz = uint64_t{o.image_x0} + static_cast<uint64_t>(grid->width);
  const uint64_t ysiz = uint64_t{o.image_y0} + static_cast<uint64_t>(grid->height);
  if ((o.tile_width != 0 && uint64_t{o.tile_x0} + o.tile_width < xsiz) ||
      (o.tile_height != 0 && uint64_t{o.tile_y0} + o.tile_height < ysiz))
    return "more than one tile (-t)";
  return "";
}

Status encode_streamed(const RowSource& source, const EncodeOptions& options, const FileSink& sink,
                       EncodeReport* report) {
  if (const std::string why = why_not_streamed(source.layout, options); !why.empty())
    return unsupported("streamed encoding: " + why);
  TileCoding coding;
  coding.with_samples = false;
  coding.sink = &sink;
  coding.code = [&](TileEncoder& tile, int index, int count) -> Status {
    if (count != 1) return unsupported("streamed encoding: more than one tile");
    return tile.code_rows(index, source.read_rows);
  };
  return encode_tiles(source.layout, options, report, coding).status();
}

}  // namespace mallat::codec

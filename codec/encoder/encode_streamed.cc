// encode_streamed (codec/api/encode_streamed.h): encode()'s steps over the
// image's layout, each tile coded from its rows (TileEncoder::code_rows):
// one tile straight from the source, several from the rows of their row of
// tiles (tile_row_store.h); the file handed to the sink in pieces.
#include "codec/api/encode_streamed.h"

#include <algorithm>
#include <memory>
#include <string>

#include "codec/api/profile.h"
#include "codec/encoder/encode_call.h"
#include "codec/encoder/encode_tiles.h"
#include "codec/encoder/tile_row_store.h"

namespace mallat::codec {

std::string why_not_streamed(const Image& layout, const EncodeOptions& o) {
  if (o.rate_kind == EncodeOptions::RateKind::kPsnr)
    return "PSNR targets (-q) decode what was written and compare it with the whole image";
  if (o.step_search > 1) return "the step search (--step-search) decodes each file and compares it with the whole image";
  if (o.profile.kind != ProfileKind::kNone) return "profiles (cinema, IMF) are encoded from the whole image";
  const Result<GridSize> grid = reference_grid_size(layout, o.image_x0, o.image_y0);
  if (!grid.ok()) return grid.status().message();
  return "";
}

bool streamed_encode_feeds_device(const Image& layout, const EncodeOptions& options) {
  if (options.tile_width != 0 || options.tile_height != 0) return false;
  // HT rate control codes the blocks again after quantisation, which a fed
  // tile's rows, read once, cannot give the CPU runner should the device
  // fail (TileEncoder::code_fed leaves such a tile to the rows).
  if (options.ht_under_target()) return false;
  return std::all_of(layout.components.begin(), layout.components.end(), [&](const Component& c) {
    return c.width == layout.width() && c.height == layout.height();
  });
}

Status encode_streamed(const RowSource& source, const EncodeOptions& options, const FileSink& sink,
                       EncodeReport* report, const FileSizeHint* size_hint) {
  CallResources resources;
  if (options.time_stages && report) resources.stage_times = &report->stage_times;
  return encode_streamed(source, options, resources, sink, report, size_hint);
}

Status encode_streamed(const RowSource& source, const EncodeOptions& options, const CallResources& resources,
                       const FileSink& sink, EncodeReport* report, const FileSizeHint* size_hint) {
  if (const std::string why = why_not_streamed(source.layout, options); !why.empty())
    return unsupported("streamed encoding: " + why);
  TileCoding coding;
  coding.with_samples = false;
  coding.sink = &sink;
  coding.size_hint = size_hint;
  std::unique_ptr<TileRowStore> tile_rows;
  const bool feeds_device =
      source.rewind && resources.device_tiles && streamed_encode_feeds_device(source.layout, options);
  coding.code = [&](TileEncoder& tile, int index, int count) -> Status {
    if (count == 1 && feeds_device) {
      const Result<bool> fed = tile.code_fed(index, source);
      if (fed.ok() && *fed) return Status::Ok();
      if (!fed.ok()) {
        if (fed.status().code() != ErrorCode::kDeviceError) return fed.status();
        // The rows went to a device that failed: read again, coded here.
        MALLAT_RETURN_IF_ERROR(source.rewind());
        if (report)
          report->notes.push_back("the device failed (" + fed.status().message() +
                                  "); coded on the CPU instead, the same bytes");
      }
    }
    if (count == 1) return tile.code_rows(index, source.read_rows, source.read_together ? &source.read_together : nullptr);
    if (!tile_rows) tile_rows = std::make_unique<TileRowStore>(source, tile.main_header().siz);
    MALLAT_ASSIGN_OR_RETURN(const TileRowReader rows, tile_rows->rows_of(index));
    return tile.code_rows(index, rows);
  };
  return encode_tiles(source.layout, options, resources, report, coding).status();
}

}  // namespace mallat::codec

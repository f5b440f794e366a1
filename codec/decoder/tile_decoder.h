// Decoding one tile of a parsed codestream into its place in the output
// image: Tier-2 packets, Tier-1 code-blocks, dequantisation, inverse DWT,
// inverse colour transform, DC level shift. codec::decode drives it per tile.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "codec/api/decode.h"
#include "codec/codestream/codestream_header.h"
#include "codec/decoder/quirks.h"
#include "codec/stages/call_resources.h"
#include "common/image.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "dwt/dwt.h"

namespace mallat::codec {

class StreamedTile;  // codec/stages/streamed_tile.h

// Where decode_tile's samples go as a binary PNM's raster (both null: into
// the image's components). `device`, with `host`: the same raster in device
// memory (DecodeTile::device_raster); the tile's samples end there, written
// on the device, or copied up from `host` where the CPU decoded the tile
// (device_raster.h).
struct TileRaster {
  uint8_t* host = nullptr;
  uint8_t* device = nullptr;
};

// `decoded` lists the codestream components decoded, ascending (all, or
// those -c asks for: component_selection.h); `image`'s components are
// those, with the output's sizes (reduced by options.reduce, or one tile's
// area); a component whose samples are still empty is allocated,
// zero-filled, by this tile. origin_x/origin_y give, per image component,
// the image's top-left on the component's reduced grid. Code-blocks of
// other components are read past in the packets and never decoded.
// Non-fatal damage (truncated packets) is reported in `report` and decodes
// as far as it goes; encoders' quirks are repaired and counted in `quirks`
// unless options.strict refuses them. `raster`: where set, the samples go
// there, not into the image's components (DecodeTile::raster; the image
// fits_bytes).
Status decode_tile(const Codestream& cs, const Tile& tile, const DecodeOptions& options,
                   const CallResources& resources, std::span<const int> decoded, std::span<const uint8_t> stream, ThreadPool& pool, dwt::Backend& dwt,
                   std::span<const int64_t> origin_x, std::span<const int64_t> origin_y, Image& image,
                   TileRaster raster, DecodeReport* report, QuirkCounts& quirks);

// The streamed path (streamed_decoder.cc): the tile's packets read as
// decode_tile reads them, and a StreamedTile over the planes of the
// components `decoded` (whole tile-components at the -r resolution) that
// gives their rows top to bottom; its code-blocks through
// resources.block_decoder when set (the other resources are not used).
// With `read_ahead` and a pool of several threads, the packets are read on
// a thread of their own while the tile is laid out and its first rows'
// code-blocks decode (StreamedTile::decode_first_rows_ahead), each block
// once its precinct's packets are read (in LRCP, RLCP and RPCL the low
// resolutions' come first); the caller asks packets_read() before it
// begins the sink.
class TileStream {
 public:
  virtual ~TileStream() = default;
  virtual StreamedTile& rows() = 0;
  // Whether planes 0..2 go through the inverse colour transform (G.2, G.3).
  virtual bool colour_transform() const = 0;
  // Waits for the packets to be read: the error decode_tile gives a
  // damaged stream without -allow-partial (the same each time asked), its
  // warnings otherwise added to the report (once). OK at once where they
  // were read when the tile was opened.
  virtual Status packets_read() = 0;
};
Result<std::unique_ptr<TileStream>> open_tile_stream(const Codestream& cs, const Tile& tile,
                                                     const DecodeOptions& options, const CallResources& resources,
                                                     std::span<const int> decoded,
                                                     std::span<const uint8_t> stream, ThreadPool& pool,
                                                     dwt::Backend& dwt, DecodeReport* report, QuirkCounts& quirks,
                                                     bool read_ahead = false);

}  // namespace mallat::codec

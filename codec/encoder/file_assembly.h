// The file from the tiles' coded blocks once the rate allocator has chosen
// each layer's passes: Tier-2 packets, tile-parts, markers, JP2 boxes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "codec/api/encode.h"
#include "codec/api/encode_streamed.h"
#include "codec/codestream/codestream_header.h"
#include "codec/codestream/marker_writer.h"
#include "codec/encoder/rate_control.h"
#include "codec/encoder/tile_encoder.h"
#include "codec/jp2/jp2_boxes.h"
#include "codec/tier2/packet_writer.h"
#include "common/status.h"
#include "common/thread_pool.h"

namespace mallat::codec {

// Assembles the file from the tiles' packets of the chosen layers: tile-parts
// divided as asked, packet headers in place or packed into PPM / PPT, the
// tiles' own progression changes in their first tile-part headers.
class FileAssembler {
 public:
  FileAssembler(const MainHeader& main, const EncodeOptions& options, const TileCodingSetup& setup,
                const Jp2Description& jp2, const std::vector<std::unique_ptr<TileEncoder>>& tiles,
                const std::vector<size_t>& first_block, ThreadPool& pool);

  // Bytes of the whole file for these layers, without copying the packet
  // data; the tiles' packets are sized in parallel.
  Result<uint64_t> size(const LayerPasses& layers) const;

  // The file's bytes and, when `per_component`, each component's: its
  // packets, and the whole of every tile-part that holds it alone (the
  // cinema profiles' limit per colour component). The last few sizings are
  // kept, while the blocks' truncation points stay as they were
  // (TileEncoder::points_listed): a rate allocation asks for its answer
  // again, and write() takes its packets and headers.
  Result<LayerBytes> bytes(const LayerPasses& layers, bool per_component) const;

  // The file of file(layers) handed to `sink` in pieces, the packets not
  // gathered anywhere: the tile-part headers come from a pass without the
  // data (which gives their lengths, and keeps the packet headers), then
  // each tile's packet data is sent straight to the sink, the headers
  // kept rather than coded again, each tile-part's header sent where its
  // packets start (encode_streamed.h). Layers that bytes() sized lately
  // take that pass's packets and headers. `size_hint`, where set, is told
  // the file's size before its first byte.
  Status write(const LayerPasses& layers, const FileSink& sink, const FileSizeHint* size_hint = nullptr) const;

  Result<std::vector<uint8_t>> file(const LayerPasses& layers) const;

 private:
  struct TileOutput {
    std::vector<uint8_t> data, headers;
    std::vector<PacketBytes> packets;
    KeptHeaders kept;  // without the data, the headers not packed
  };

  // The tiles' packets and the tile-parts over them (spans into `out`),
  // with the main header that carries PPM when asked.
  struct Assembly {
    std::vector<TileOutput> out;
    std::vector<TilePartToWrite> parts;
    std::vector<int> part_component;   // the one component a tile-part holds, or -1
    MainHeader with_ppm;
    bool ppm = false;
  };

  // The codestream of `a`; without the packet data (its parts' data
  // bytes taken as none) unless `a` holds it; each component's bytes added
  // to *component_bytes when asked (without the data only).
  Result<std::vector<uint8_t>> assemble(const Assembly& a, bool with_data,
                                        std::vector<uint64_t>* component_bytes) const;

  Result<Assembly> gather(const LayerPasses& layers, bool with_data, uint64_t* left_out,
                          std::vector<uint64_t>* component_bytes) const;

  uint64_t container_overhead() const;

  bool in_jp2_boxes() const;

  const MainHeader& main_;
  const EncodeOptions& options_;
  const Jp2Description& jp2_;
  const std::vector<std::unique_ptr<TileEncoder>>& tiles_;
  const std::vector<size_t>& first_block_;
  ThreadPool& pool_;
  std::map<int, CodingOverrides> overrides_;
  // The tiles' points_listed() summed: kept sizings hold while it is the
  // same.
  uint64_t points_listed() const;
  // The last few sizings (bytes()): for the same layers asked again, and for
  // write().
  struct Sizing {
    LayerPasses layers;
    uint64_t points_listed = 0;
    bool per_component = false;
    LayerBytes bytes;
    std::shared_ptr<const Assembly> assembly;
  };
  mutable std::vector<Sizing> sized_;
};

}  // namespace mallat::codec

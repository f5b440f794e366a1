// What the main header and the tile-part headers of a codestream say (Annex
// A), as the reader fills it and the writer takes it. Plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "codec/codestream/capabilities.h"
#include "codec/codestream/params.h"

namespace mallat::codec {

// Hard limits a header may not exceed, checked before anything is allocated.
struct ParseLimits {
  uint32_t max_components = 16384;        // Csiz, A.5.1
  uint64_t max_tiles = 65535;             // Isot is 16 bits, A.4.2
  uint64_t max_samples = uint64_t{1} << 31;  // sum over components of the sample count
};

// A.9.2: COM.
struct Comment {
  uint16_t registration = 1;  // Rcom: 0 binary, 1 Latin (ISO 8859-15) text
  std::vector<uint8_t> data;
  std::string text() const { return std::string(data.begin(), data.end()); }
  friend bool operator==(const Comment&, const Comment&) = default;
};

// A.7.1: one TLM entry. `tile` is -1 where Ttlm is absent (ST = 0: tile-parts
// in tile order, one per tile).
struct TilePartLength {
  int tile = -1;
  uint32_t length = 0;  // Ptlm: SOT marker to the end of the tile-part data
  friend bool operator==(const TilePartLength&, const TilePartLength&) = default;
};

// A.9.1: CRG, per component, in 1/65536 of a sample separation.
struct ComponentRegistration {
  uint16_t x = 0, y = 0;
  friend bool operator==(const ComponentRegistration&, const ComponentRegistration&) = default;
};

// Markers that may sit in the main header and also in the first tile-part
// header of a tile, where they override the main header for that tile (A.6).
struct CodingOverrides {
  std::optional<CodingStyle> cod;
  std::map<int, ComponentCoding> coc;
  std::optional<Quantization> qcd;
  std::map<int, Quantization> qcc;
  std::vector<RegionOfInterest> rgn;
  std::vector<ProgressionChange> poc;  // concatenated over POC segments
};

struct MainHeader {
  ImageAndTileSize siz;
  CodingStyle cod;
  std::map<int, ComponentCoding> coc;
  Quantization qcd;
  std::map<int, Quantization> qcc;
  std::vector<RegionOfInterest> rgn;
  std::vector<ProgressionChange> poc;
  // A.7.4: PPM payloads (the bytes after Zppm) in Zppm order. parse_codestream
  // splits them once into each tile-part's TilePartHeader::ppm;
  // ppm_tile_part_headers() splits them alone.
  std::vector<std::vector<uint8_t>> ppm;
  std::vector<TilePartLength> tlm;  // in Ztlm order
  // A.7.2: PLM payloads (after Zplm) in Zplm order, unparsed.
  std::vector<std::vector<uint8_t>> plm;
  std::vector<ComponentRegistration> crg;  // empty when no CRG
  std::vector<Comment> comments;
  Capabilities cap;             // 15444-1 A.5.2 / 15444-15 A.3: CAP (empty: none)
  std::vector<uint16_t> cpf;    // 15444-1 A.5.3: CPF's Pcpf words (empty: none)
  size_t end_offset = 0;     // where the first SOT (or EOC) starts
};

struct TilePartHeader {
  int tile = 0;            // Isot
  int part = 0;            // TPsot
  int num_parts = 0;       // TNsot; 0 = not given
  uint32_t psot = 0;       // as written; 0 = up to EOC
  size_t sot_offset = 0;   // where the SOT marker starts
  size_t header_end = 0;   // where SOD starts
  size_t data_offset = 0;  // first byte after SOD
  size_t data_length = 0;  // bytes of packet data (clipped when truncated)
  CodingOverrides overrides;
  // A.7.5: PPT payloads (after Zppt) in Zppt order, concatenated: this
  // tile-part's packed packet headers.
  std::vector<uint8_t> ppt;
  // A.7.4: this tile-part's packed packet headers from the main header's PPM
  // (its Ippm). PPM gives them in the order the tile-parts appear in the
  // codestream, which may interleave the tile-parts of different tiles
  // (A.4.2); parse_codestream hands them out in that order. Empty without PPM.
  std::vector<uint8_t> ppm;
  // A.7.3: packet lengths from PLT, in order.
  std::vector<uint32_t> plt;
  std::vector<Comment> comments;
};

struct Tile {
  int index = 0;
  std::vector<TilePartHeader> parts;  // in TPsot order
  // The overrides of the first tile-part, with POC of later parts appended.
  CodingOverrides overrides;
};

struct Codestream {
  MainHeader main;
  // One per tile of the tile grid (B.3), in raster order; a tile with no
  // tile-part in the stream has empty `parts`.
  std::vector<Tile> tiles;
  bool has_eoc = false;
  bool truncated = false;
  std::vector<std::string> warnings;
};

}  // namespace mallat::codec

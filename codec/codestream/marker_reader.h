// Parsers of single marker segments (Annex A). Each takes a reader over the
// segment's parameters (after the Lxxx length field; its offset() is a file
// position) and returns the value or a kCorruptData / kUnsupported Status
// that names the marker and the byte, e.g. "COD at byte 47: code-block width
// exponent 11 outside 2..10". Trailing bytes beyond the fields are ignored
// where the length does not define the field count.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "codec/codestream/byte_reader.h"
#include "codec/codestream/codestream_header.h"
#include "codec/codestream/params.h"
#include "common/status.h"

namespace mallat::codec {

// A.5.1: SIZ, validated with check_image_and_tile_size().
Result<ImageAndTileSize> parse_siz(ByteReader& seg, const ParseLimits& limits = {});
// A.6.1: COD.
Result<CodingStyle> parse_cod(ByteReader& seg);
// A.6.2: COC; Ccoc is 8 bits when Csiz < 257, else 16.
Result<std::pair<int, ComponentCoding>> parse_coc(ByteReader& seg, int num_components);
// A.6.4: QCD.
Result<Quantization> parse_qcd(ByteReader& seg);
// A.6.5: QCC.
Result<std::pair<int, Quantization>> parse_qcc(ByteReader& seg, int num_components);
// A.6.3: RGN (max-shift only: Srgn = 0).
Result<RegionOfInterest> parse_rgn(ByteReader& seg, int num_components);
// A.6.6: POC. CEpoc 0 reads as 256 (8-bit) or 16384 (16-bit); CEpoc is
// clamped to Csiz.
Result<std::vector<ProgressionChange>> parse_poc(ByteReader& seg, int num_components);

// A.4.2: SOT.
struct StartOfTile {
  int tile = 0;        // Isot
  uint32_t psot = 0;   // Psot
  int part = 0;        // TPsot
  int num_parts = 0;   // TNsot
};
Result<StartOfTile> parse_sot(ByteReader& seg);

// A.7.1: TLM. `index` receives Ztlm.
Result<std::vector<TilePartLength>> parse_tlm(ByteReader& seg, int* index);
// A.9.1: CRG.
Result<std::vector<ComponentRegistration>> parse_crg(ByteReader& seg, int num_components);
// A.9.2: COM.
Result<Comment> parse_com(ByteReader& seg);

// A.7.2 / A.7.3: the packet lengths of Iplm/Iplt: 7 bits per byte, most
// significant first, bit 7 set on all bytes of a length but its last.
Result<std::vector<uint32_t>> decode_packet_lengths(std::span<const uint8_t> bytes, size_t base_offset);

}  // namespace mallat::codec

// Reading a codestream (Annex A): the main header, each tile-part header, and
// the split of the stream into tiles and the byte ranges of their packet
// data. A damaged tail (truncation, missing EOC, junk after the last
// tile-part) is kept as far as it is intact and reported in `warnings`; a
// damaged header is an error.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "codec/codestream/byte_reader.h"
#include "codec/codestream/codestream_header.h"
#include "common/status.h"

namespace mallat::codec {

// SOC, SIZ (second), then the main header segments up to the first SOT
// (A.4.1, Table A.3). COD and QCD are required. Unknown segments are skipped
// with a warning. `end_offset` is where the first SOT or EOC starts (the end
// of the stream if the stream has nothing after the main header).
Result<MainHeader> parse_main_header(std::span<const uint8_t> stream, std::vector<std::string>* warnings = nullptr,
                                     const ParseLimits& limits = {});

// The tile-part header whose SOT starts at `sot_offset` of `stream`, through
// SOD. Fills everything but data_length (which needs Psot and the stream
// end: parse_codestream works it out).
Result<TilePartHeader> parse_tile_part_header(std::span<const uint8_t> stream, size_t sot_offset,
                                              const MainHeader& main, std::vector<std::string>* warnings = nullptr);

// The whole codestream: main header, and every tile's tile-parts in TPsot
// order with their packet data ranges and, with PPM, their packed headers
// (TilePartHeader::ppm, handed out in codestream order, A.7.4). A malformed
// Nppm is an error; tile-parts beyond the last Nppm get none, with a warning.
Result<Codestream> parse_codestream(std::span<const uint8_t> stream, const ParseLimits& limits = {});

// A.7.4: the packed packet headers of PPM, one per tile-part in codestream
// order (Nppm, Ippm pairs may span PPM segments). parse_codestream hands
// the same out to the tile-parts.
Result<std::vector<std::vector<uint8_t>>> ppm_tile_part_headers(const MainHeader& main);

}  // namespace mallat::codec

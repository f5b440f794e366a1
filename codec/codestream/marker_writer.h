// Writing marker segments (Annex A). Each write_* appends one marker
// segment (several where one would exceed 65535 bytes: POC, PLT, TLM) after
// checking its values with params_check; an invalid value is an
// kInvalidArgument Status and nothing useful is written.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "codec/codestream/byte_writer.h"
#include "codec/codestream/codestream_header.h"
#include "codec/codestream/params.h"
#include "common/status.h"

namespace mallat::codec {

void write_soc(ByteWriter& w);
void write_sod(ByteWriter& w);
void write_eoc(ByteWriter& w);

Status write_siz(ByteWriter& w, const ImageAndTileSize& siz);              // A.5.1
Status write_cod(ByteWriter& w, const CodingStyle& cod);                   // A.6.1
Status write_coc(ByteWriter& w, int component, const ComponentCoding& cc, int num_components);  // A.6.2
Status write_qcd(ByteWriter& w, const Quantization& q);                    // A.6.4
Status write_qcc(ByteWriter& w, int component, const Quantization& q, int num_components);     // A.6.5
Status write_rgn(ByteWriter& w, const RegionOfInterest& roi, int num_components);             // A.6.3
// A.6.6. CEpoc = 256 (Csiz < 257) or 16384 is written as 0.
Status write_poc(ByteWriter& w, std::span<const ProgressionChange> poc, int num_components);
Status write_crg(ByteWriter& w, std::span<const ComponentRegistration> crg, int num_components);  // A.9.1
Status write_com(ByteWriter& w, const Comment& c);                         // A.9.2
// A.7.1, with 16-bit Ttlm (or none when every entry's tile is -1) and
// 32-bit Ptlm, so that its size depends only on the entry count: an encoder
// writes it with zero lengths and later overwrites it in place
// (ByteWriter::patch_bytes) with the real ones.
Status write_tlm(ByteWriter& w, std::span<const TilePartLength> entries);
// A.7.3: packet lengths, in as many PLT segments as needed (Zplt from 0).
Status write_plt(ByteWriter& w, std::span<const uint32_t> lengths);
// A.7.5: packed packet headers of one tile-part, in PPT segments from Zppt
// `first_index` (OpenJPEG numbers them on across the tile-parts of a tile);
// returns the index after the last one written.
Result<int> write_ppt(ByteWriter& w, std::span<const uint8_t> headers, int first_index = 0);
// The PPT segments write_ppt writes for `bytes` bytes of packed headers.
size_t ppt_segments(size_t bytes);
// A.7.4: the payloads (after Zppm) of the PPM segments that carry the packed
// packet headers of every tile-part, given in codestream order: Nppm and
// Ippm per tile-part, cut into segments of at most 65535 bytes. Ippm may run
// on into the next segment, Nppm never does (OpenJPEG reads it whole).
Result<std::vector<std::vector<uint8_t>>> ppm_payloads(std::span<const std::vector<uint8_t>> tile_part_headers);

// A.4.2: SOT with Psot = 0; returns where the SOT marker starts.
size_t begin_tile_part(ByteWriter& w, int tile, int part, int num_parts);
// Sets Psot to the bytes from SOT to the current end (call after the data).
Status end_tile_part(ByteWriter& w, size_t sot_offset);

// SOC, SIZ, COD, COC (by component), QCD, QCC, RGN, POC, CRG, COM and PPM
// (main.ppm, Zppm from 0) of `main` (PLM, TLM and CAP are not written: TLM
// has its own call).
Status write_main_header(ByteWriter& w, const MainHeader& main);
// COD, COC, QCD, QCC, RGN, POC of a tile-part header.
Status write_overrides(ByteWriter& w, const CodingOverrides& o, int num_components);

// One tile-part to write: header overrides (first tile-part of a tile only),
// PLT lengths, packed packet headers (PPT; empty: none), and its packet data.
struct TilePartToWrite {
  int tile = 0;
  int part = 0;
  int num_parts = 0;  // TNsot, 0 = not given
  const CodingOverrides* overrides = nullptr;
  std::vector<uint32_t> plt;
  std::span<const uint8_t> data;
  std::span<const uint8_t> ppt;
  int ppt_index = 0;  // Zppt of its first PPT segment
  // When `data` is empty: the bytes of data the writer sends apart
  // (codestream_pieces counts them in Psot).
  uint64_t data_bytes = 0;
};
// A codestream in pieces, so that a writer need not copy the tile-parts'
// data: `main` (the main header and TLM), then for each part its header
// (SOT to SOD, Psot counting its data) and its data, then `end` (EOC);
// `total` bytes in all.
struct CodestreamPieces {
  std::vector<uint8_t> main, end;
  std::vector<std::vector<uint8_t>> part_headers;
  uint64_t total = 0;
};
Result<CodestreamPieces> codestream_pieces(const MainHeader& main, std::span<const TilePartToWrite> parts,
                                           bool with_tlm = false);
// A whole codestream: main header, a TLM if asked, the tile-parts, EOC
// (codestream_pieces put together).
Result<std::vector<uint8_t>> write_codestream(const MainHeader& main, std::span<const TilePartToWrite> parts,
                                              bool with_tlm = false);

}  // namespace mallat::codec

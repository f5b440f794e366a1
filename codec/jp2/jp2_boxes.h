// The JP2 file format (Annex I): reading the boxes a decoder needs and
// writing a minimal valid file around a codestream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codec/api/coding_types.h"
#include "codec/codestream/params.h"
#include "common/image.h"
#include "common/status.h"

namespace mallat::codec {

// What a byte stream holds: a raw codestream (FF4F FF51) or a JP2 file (the
// signature box of I.5.1).
Container detect_container(std::span<const uint8_t> bytes);

namespace box {  // I.4, Table I.2: box types
inline constexpr uint32_t kSignature = 0x6A502020;  // 'jP  '
inline constexpr uint32_t kFileType = 0x66747970;   // 'ftyp'
inline constexpr uint32_t kHeader = 0x6A703268;     // 'jp2h' (superbox)
inline constexpr uint32_t kImageHeader = 0x69686472;  // 'ihdr'
inline constexpr uint32_t kBitsPerComponent = 0x62706363;  // 'bpcc'
inline constexpr uint32_t kColour = 0x636F6C72;     // 'colr'
inline constexpr uint32_t kPalette = 0x70636C72;    // 'pclr'
inline constexpr uint32_t kComponentMapping = 0x636D6170;  // 'cmap'
inline constexpr uint32_t kChannelDefinition = 0x63646566;  // 'cdef'
inline constexpr uint32_t kResolution = 0x72657320;  // 'res ' (superbox)
inline constexpr uint32_t kCaptureResolution = 0x72657363;  // 'resc'
inline constexpr uint32_t kDisplayResolution = 0x72657364;  // 'resd'
inline constexpr uint32_t kCodestream = 0x6A703263;  // 'jp2c'
inline constexpr uint32_t kBrandJp2 = 0x6A703220;    // 'jp2 '
inline constexpr uint32_t kBrandJph = 0x6A706820;    // 'jph ', 15444-15 Annex D
inline constexpr uint32_t kSignatureContent = 0x0D0A870A;
}  // namespace box

// I.5.3.1: ihdr.
struct ImageHeader {
  uint32_t height = 0, width = 0;
  uint16_t num_components = 0;
  uint8_t bpc = 0;  // (precision - 1) | sign << 7, or 0xFF when components differ (see bpcc)
  uint8_t compression = 7;
  bool colourspace_unknown = false;
  bool intellectual_property = false;
};

// I.5.3.3, Table I.10: enumerated colour spaces a Part 1 reader knows.
enum class EnumeratedColourSpace : uint32_t { kSRGB = 16, kGreyscale = 17, kSYCC = 18 };

// What an enumerated colour space (colr's EnumCS) is to a Part 1 reader: the
// space's name and the ColorSpace of the samples; for a value that is not
// one of EnumeratedColourSpace, "not a 15444-1 space" and kUnknown. The one
// mapping of EnumCS that decoder, JP2 colour and `mallat info` use.
struct EnumeratedColourSpaceMeaning {
  const char* name;
  ColorSpace color_space;
};
EnumeratedColourSpaceMeaning enumerated_colour_space(uint32_t enumerated);

// I.5.3.3: colr. method 1: `enumerated`; method 2: restricted ICC `icc_profile`.
struct ColourSpecification {
  int method = 1;
  int precedence = 0;
  int approximation = 0;
  uint32_t enumerated = 0;
  std::vector<uint8_t> icc_profile;
  size_t offset = 0;  // of the box, for messages
};

// I.5.3.4: pclr. entries[e][column].
struct Palette {
  std::vector<uint8_t> column_depth;  // B_i: (bits - 1) | sign << 7
  std::vector<std::vector<int64_t>> entries;
  size_t offset = 0;  // of the box, for messages
  int bits(int column) const { return (column_depth[column] & 0x7F) + 1; }
  bool is_signed(int column) const { return (column_depth[column] & 0x80) != 0; }
};

// I.5.3.5: one cmap entry.
struct ComponentMapping {
  uint16_t component = 0;  // CMP
  uint8_t mapping_type = 0;  // MTYP: 0 direct, 1 palette
  uint8_t palette_column = 0;  // PCOL
};

// I.5.3.6: one cdef entry.
struct ChannelDefinition {
  uint16_t channel = 0;      // Cn
  uint16_t type = 0;         // Typ: 0 colour, 1 opacity, 2 premultiplied opacity, 65535 unspecified
  uint16_t association = 0;  // Asoc: 0 whole image, 1.. colour index, 65535 none
};

// I.5.3.7: resc / resd, grid points per metre = n / d * 10^e.
struct ResolutionBox {
  uint16_t vertical_num = 0, vertical_den = 0, horizontal_num = 0, horizontal_den = 0;
  int8_t vertical_exp = 0, horizontal_exp = 0;
};

struct Jp2File {
  uint32_t brand = 0;
  uint32_t minor_version = 0;
  std::vector<uint32_t> compatibility;
  ImageHeader ihdr;
  std::vector<uint8_t> bits_per_component;  // bpcc, when ihdr.bpc == 0xFF
  std::vector<ColourSpecification> colour;  // in file order; the first is the one to use
  std::optional<Palette> palette;
  std::vector<ComponentMapping> component_mapping;
  std::vector<ChannelDefinition> channel_definitions;
  size_t component_mapping_offset = 0, channel_definition_offset = 0;  // of the boxes, for messages
  std::optional<ResolutionBox> capture_resolution, display_resolution;
  size_t codestream_offset = 0;  // the contents of the first jp2c box
  size_t codestream_length = 0;
  std::vector<std::string> warnings;
};

// I.5.3.3: the colour specification that counts, the first colr box (a
// Part 1 reader ignores any that follow); null when there is none.
const ColourSpecification* first_colour_specification(const Jp2File& jp2);

// Reads the boxes of a JP2 file; unknown boxes are skipped. A jp2c box cut
// short by the end of the file is kept with a warning. Without `strict`, a
// second ihdr is ignored and a pclr without cmap dropped, each with a
// warning (as OpenJPEG); `strict` refuses both.
Result<Jp2File> parse_jp2(std::span<const uint8_t> file, bool strict = false);

// Where the codestream of a JP2 file or a raw codestream lies.
Result<std::span<const uint8_t>> find_codestream(std::span<const uint8_t> bytes);

// sRGB for 3 or more components, greyscale for 1 or 2.
EnumeratedColourSpace default_colour_space(int num_components);

// What a JP2 file says about its image beyond the codestream: the colour
// specification (an enumerated space, or a restricted ICC profile, which
// takes precedence when present) and channel definitions (empty: none
// written, every channel is colour in component order).
struct Jp2Description {
  std::optional<EnumeratedColourSpace> colour;  // default: default_colour_space
  std::vector<uint8_t> icc_profile;             // written as colr method 2
  std::vector<ChannelDefinition> channels;      // written as cdef
  uint32_t brand = box::kBrandJp2;              // ftyp's brand and compatibility: 'jp2 ' or 'jph '
};

// A minimal JP2 file (I.2): signature, ftyp ('jp2 ', compatible 'jp2 '),
// jp2h with ihdr (bpcc where component depths differ), colr and, when
// given, cdef; then jp2c holding `codestream`. `siz` is the codestream's SIZ.
Result<std::vector<uint8_t>> write_jp2(const ImageAndTileSize& siz, std::span<const uint8_t> codestream,
                                       const Jp2Description& description = {});
// What write_jp2 writes before the codestream (its jp2c box's header
// included) for a codestream of `codestream_bytes`, so that a writer can
// send the codestream after it in pieces.
Result<std::vector<uint8_t>> jp2_before_codestream(const ImageAndTileSize& siz, uint64_t codestream_bytes,
                                                   const Jp2Description& description = {});

// A JP2 (or JPH) file with its first jp2c box's contents replaced by
// `codestream` and its ftyp naming `brand` ('jp2 ' or 'jph ', 15444-15
// Annex D) as brand and compatible, the other of the two taken off the
// compatibility list; every other box is kept byte for byte, in order.
Result<std::vector<uint8_t>> replace_jp2_codestream(std::span<const uint8_t> file,
                                                    std::span<const uint8_t> codestream, uint32_t brand);

}  // namespace mallat::codec

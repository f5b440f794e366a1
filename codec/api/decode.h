// The public decoding API: a JPEG 2000 codestream or JP2 file in memory to an
// Image (codec/codec.h has both directions). Only API types appear here; the
// machinery is in codec/decoder/, which a decoder-only program links alone.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codec/api/coding_types.h"
#include "codec/api/stage_times.h"
#include "common/image.h"
#include "common/status.h"
#include "dwt/dwt.h"
#include "entropy/block_coder.h"

namespace mallat::codec {

struct Jp2File;  // codec/jp2/jp2_boxes.h: the boxes of a JP2 file

struct DecodeOptions {
  int reduce = 0;      // -r: discard this many highest resolution levels
  int layers = 0;      // -l: decode only the first N quality layers; 0 = all
  int tile = -1;       // -t: decode only this tile; -1 = all
  // -d x0,y0,x1,y1: decode only this area of the reference grid (image
  // coordinates, as opj_decompress -d: at full resolution whatever
  // `reduce` is). The image returned is the area alone, its x0..y1 the
  // area's. Parts outside the image are cut off with a warning; an area
  // that is empty or wholly outside is an error. Only the tiles, and in
  // them only the code-blocks, whose samples reach the area are decoded,
  // and the inverse DWT runs over the area's windows alone.
  std::optional<dwt::Rect> region;
  // -c: decode and output only these codestream components, in this order
  // (as opj_decompress -c); empty = all. Their code-blocks alone are block
  // decoded and transformed (every packet header is still read). Under the
  // colour transform (G.2, G.3) asking for any of 0..2 decodes all three.
  // A JP2 file's header (palette, cdef, ICC, sYCC) is applied only when
  // every component is asked for in order; otherwise the output is the
  // components as decoded, grey below three of them.
  std::vector<int> components;
  int threads = 0;
  // --max-memory: refuse streams whose headers need more bytes than this
  // (codec/codestream/memory_limit.h); 0 = default_memory_limit().
  uint64_t max_memory = 0;
  dwt::BackendKind dwt_backend = dwt::BackendKind::kCpu;  // as EncodeOptions
  // Each stage's time into DecodeReport::stage_times (stage_times.h).
  bool time_stages = false;
  // A JP2 file's header applied to the decoded components (Annex I): palette
  // and cmap, cdef, the first colr (an enumerated space or a restricted ICC
  // profile), then sYCC converted to RGB: the image as opj_decompress gives
  // it before its output options. false: the codestream's components as
  // decoded (palette indices, say), in the space the first colr enumerates.
  bool apply_jp2_header = true;
  // --strict: refuse what Part 1 forbids but real encoders write and other
  // decoders accept (codec/decoder/quirks.h: coding passes below the last
  // bit-plane, zero bit-planes beyond Mb, too few step sizes; JP2 header
  // quirks). false: decode them as OpenJPEG does, one warning per kind.
  bool strict = false;
  // -allow-partial: a stream cut short or damaged in its packet data (a
  // tile, or packets, missing) decodes as far as it goes, with a warning.
  // false: that is an error.
  bool allow_partial = true;
};

// Non-fatal problems found while decoding (a truncated packet, a missing
// EOC): the image is what could be decoded, these say what was not.
struct DecodeReport {
  std::vector<std::string> warnings;
  // A JP2 file's boxes as decode parsed them (once); null for a raw codestream.
  std::shared_ptr<const Jp2File> jp2;
  // Each stage's time, where DecodeOptions::time_stages asked for it.
  StageTimes stage_times;
};

// The one decoding entry point: a raw codestream, or a JP2 file whose
// boxes are parsed once, its codestream decoded and, unless
// options.apply_jp2_header is false, its header applied.
Result<Image> decode(std::span<const uint8_t> data, const DecodeOptions& options,
                     DecodeReport* report = nullptr);

// The same, with the samples as a binary PNM's raster where the image
// allows it: every component decoded in order (no -c subset), each
// unsigned, of 1 to 8 bits, of one size and sub-sampling, and for a JP2 file (with
// apply_jp2_header) no palette, component mapping, channel definitions or
// sYCC. Then *raster holds the samples, the components interleaved
// (raster[(y * width + x) * components + c]), and the image's components
// describe them without samples; otherwise *raster is left empty and the
// samples are in the image as decode gives them. The same values either
// way (tests/codec/decode_raster_test.cc): a writer of 8-bit pixels is
// spared the int32 planes, their narrowing, and on the GPU their widening.
// A *raster given with samples (one written out before) is memory to
// reuse: where its capacity suffices it holds the new samples, and where
// every tile is present it is not cleared first, each sample being
// written (no fresh pages, no zeroing).
Result<Image> decode(std::span<const uint8_t> data, const DecodeOptions& options, DecodeReport* report,
                     std::vector<uint8_t>* raster);

}  // namespace mallat::codec

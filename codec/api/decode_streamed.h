// Streamed decoding: the image handed over in strips of rows, top
// to bottom, never held whole. Only API types appear here; the machinery is
// codec/decoder/streamed_decoder.cc and codec/stages/streamed_tile.h.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "codec/api/decode.h"
#include "common/image.h"
#include "common/status.h"

namespace mallat::codec {

// Where a streamed decode's rows go. Its calls come one at a time, in
// order, but not all from the caller's thread: byte_rows() may come from a
// thread of the decoder's own, which takes a strip through the output stage
// while the next strip is made.
class RowSink {
 public:
  virtual ~RowSink() = default;
  // Once, before any rows: the image as decode() would return it, its
  // components' samples empty.
  virtual Status begin(const Image& image) = 0;
  // Rows [y0, y0 + strip height) of the image: `strip` has the image's
  // components, each its width by the strip's rows; the sink may keep it
  // (hand it to another thread, say). Strips come in order and cover the
  // image.
  virtual Status rows(Image strip, int64_t y0) = 0;
  // Sample vectors of strips the sink has finished with, for the decoder to
  // fill again: each strip in fresh memory costs a page fault per 4 KiB,
  // which cost a single-threaded decode more than its inverse DWT. The
  // decoder asks before each strip; none by default.
  virtual std::vector<std::vector<int32_t>> spent_samples() { return {}; }

  // Optional, for a sink that writes 8-bit samples interleaved (a binary
  // PNM's raster): asked once, after begin(). Where it says true and every
  // component of the image begin() was given is unsigned, of 1 to 8 bits, all
  // of one size, the strips come to byte_rows() in place of rows(): `raster`
  // holds the strip's `rows` rows, each pixel's components in turn, a byte
  // each (raster[(y * width + x) * components + c]); the same values rows()
  // would have been given. Saves the decoder writing 32-bit samples and the
  // sink reading them back to narrow and interleave them.
  virtual bool takes_bytes() { return false; }
  virtual Status byte_rows(std::vector<uint8_t> raster, int64_t rows, int64_t y0) {
    (void)raster;
    (void)rows;
    (void)y0;
    return internal_error("this sink takes no byte rows");
  }
  // Byte vectors of strips the sink has finished with, as spent_samples.
  virtual std::vector<std::vector<uint8_t>> spent_bytes() { return {}; }
};

// Decodes `data` as decode() does (the same options, warnings and errors)
// and hands the image to `sink` strip by strip, holding per component a few
// rows per level and one code-block row per subband beside the compressed
// data (a tiled stream: one row of tiles at a time, their rows taken from
// all of them together). Returns false, having called nothing on the sink,
// where the stream or the options need the whole image (a region, -t, a
// missing tile, a JP2 palette, channel definitions or sYCC, components of
// different sizes): the caller then uses decode(). The memory limit (options.max_memory) is
// checked against what this path holds.
Result<bool> decode_streamed(std::span<const uint8_t> data, const DecodeOptions& options, RowSink& sink,
                             DecodeReport* report = nullptr);

}  // namespace mallat::codec

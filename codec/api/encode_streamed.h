// Streamed, line-based encoding in bounded memory: the image's
// rows are read a strip at a time as the line-based DWT (dwt/line_forward.h)
// needs them, each row of code-blocks is quantised and Tier-1 coded on the
// pool once its subband rows are in, and the rows are then dropped; what
// stays is the coded blocks until rate allocation and Tier-2, and the file
// is handed to a sink in pieces (no second whole copy). A tiled image
// (-t) is read one row of tiles at a time, held at the samples' width, and
// each tile of the row coded so from its columns of those rows. The file
// is the one encode() writes for the same image and options, byte for byte.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "codec/api/encode.h"
#include "common/image.h"
#include "common/status.h"

namespace mallat::codec {

// Where a written file's bytes go, piece by piece in order, one call at a
// time though not always on the caller's thread (a large tile's data may go
// from the encoder's pool while it copies the next piece); an error stops
// the encoder, which returns it.
using FileSink = std::function<Status(std::span<const uint8_t>)>;

// Told before a file's first byte how many bytes the whole file will hold
// (known once its packets are sized, before any is written), so that a
// writer may allocate them at once: a file system allocating a file's
// blocks as its pages come costs the serial write more. A hint only: the
// file is what the FileSink is given.
using FileSizeHint = std::function<void(uint64_t bytes)>;

// Rows [y0, y1) of what one RowSource::read_together call read (0: its
// first row), every component c's into out[c] (y1 - y0 rows of its width).
using RowConversion = std::function<Status(int64_t y0, int64_t y1, int32_t* const* out)>;

// The same rows at their stored width (Component::stored's form:
// stored_bytes(precision) bytes a sample, in the host's order) into out[c].
using StoredRowConversion = std::function<Status(int64_t y0, int64_t y1, uint8_t* const* out)>;

// An image read by rows.
struct RowSource {
  // The image as encode() takes it, without samples: each component's
  // size, precision, signedness, sub-sampling; colour space; x0..y1.
  Image layout;
  // The next `rows` rows of component c (rows x its width samples) into
  // `out`; each component is read top to bottom, the components in step.
  // With several tiles each sample must lie in its component's precision
  // (they are held at that width); one outside it is an error.
  std::function<Status(int c, int64_t rows, int32_t* out)> read_rows;
  // Optional, for a source whose components are all of one size: the next
  // `rows` rows of every component in two steps, so that the encoder
  // converts them on several threads. The call reads what must be read in
  // order (nothing where the rows lie at known places in a file) and
  // returns their conversion (reading them there, then), which may run on
  // several threads at once for rows that do not overlap, and stays valid
  // through the next call (until the one after it). A source read so is
  // not read by read_rows as well.
  std::function<Result<RowConversion>(int64_t rows)> read_together;
  // Optional, with read_together: the same rows kept at their stored width,
  // for an encode that sends them to a device as they are (see rewind). A
  // source read so is not read otherwise as well.
  std::function<Result<StoredRowConversion>(int64_t rows)> read_together_stored;
  // Optional: reads from the image's first row again (its file opened
  // anew). Only a source that has it is fed to a device (a device runner
  // given with the call, CallResources::device_tiles): should the device
  // fail, its rows are read again and coded on the CPU (the same bytes).
  std::function<Status()> rewind;
};

// Why these options cannot be encoded streamed for an image of this layout,
// or "" when they can: PSNR targets (-q decodes what it wrote and compares
// it with the whole image), a profile (cinema, IMF), a layout with no
// reference grid (B-2).
std::string why_not_streamed(const Image& layout, const EncodeOptions& options);

// Whether an encode of this layout with these options is one tile, every
// component of the image's size, and not HT under a target (whose blocks
// rate control codes again: read whole, the device runner keeps a one-tile
// image's indices for it, codec/stages/device_rule.h): what a streamed
// encode feeds to a device runner whole (its rows read strip by strip into
// device memory) where the call gives one (CallResources::device_tiles) and
// the source can rewind.
bool streamed_encode_feeds_device(const Image& layout, const EncodeOptions& options);

// Encodes the source's image as encode() would (the same bytes), to `sink`.
// The DWT is the CPU's line-based one whatever options.dwt_backend says
// (the files are the same), unless the call's device runner takes the
// image whole (streamed_encode_feeds_device); Tier-1 follows options as
// encode() does.
Status encode_streamed(const RowSource& source, const EncodeOptions& options, const FileSink& sink,
                       EncodeReport* report = nullptr, const FileSizeHint* size_hint = nullptr);

}  // namespace mallat::codec

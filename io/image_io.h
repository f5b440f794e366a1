// Reading and writing image files. Samples are kept exactly as stored: no
// gamma, colour-profile or bit-depth change. The format is found from the
// file's magic bytes first, then from its extension.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "common/image.h"
#include "common/status.h"

namespace mallat::io {

// kRaw / kRawl: raw planes, big- / little-endian (io/raw.h); read only by
// read_raw, which takes the geometry the file does not hold.
enum class Format { kUnknown, kPng, kTiff, kPnm, kPam, kPgx, kBmp, kRaw, kRawl };

const char* format_name(Format format);

// From the extension alone (".png", ".tif", ".tiff", ".pgm", ".ppm", ".pnm",
// ".pam", ".pgx", ".bmp", ".raw" and ".yuv" (kRaw), ".rawl"),
// case-insensitive; kUnknown otherwise.
Format format_from_extension(const std::filesystem::path& path);

// From the first bytes of a file; kUnknown when no magic number matches.
Format format_from_magic(const unsigned char* bytes, size_t size);

// Whether this build can read / write the format (TIFF is optional; raw
// files are read by read_raw alone).
bool can_read(Format format);
bool can_write(Format format);

// Reads any supported file. Errors name the file and the reason. An image
// whose samples need more than `max_memory` bytes is refused before they are
// allocated (0: default_memory_limit(), common/memory_limit.h).
//
// `form`: kStoredWhereCheap lets a binary PNM or PAM file (P5, P6, P7) come
// with its samples at their stored width (Component::stored: a byte a
// sample up to maxval 255, else two), for a caller that uploads them to a
// device as they are; every other file, and kInt32, gives int32 samples.
enum class SampleForm { kInt32, kStoredWhereCheap };
Result<Image> read_image(const std::filesystem::path& path, uint64_t max_memory = 0,
                         SampleForm form = SampleForm::kInt32);

// The PNG row filters (PNG 9.2) the writer uses: one for every row, or all
// five, libpng choosing per row the one whose bytes sum smallest (smaller
// files, at the cost of filtering each row five times).
enum class PngFilter { kNone, kSub, kUp, kAverage, kPaeth, kAll };

// How a PNG file is compressed: zlib's level, 0 (stored: no compression)
// to 9 (smallest, slowest), and the row filter. The default is level 1 with
// the Sub filter: zlib's fastest level that compresses, and the filter that
// needs no other row, for a batch's output; libpng's own default is level
// 6 with all filters (docs/PERFORMANCE.md compares them).
struct PngCompression {
  int level = 1;
  PngFilter filter = PngFilter::kSub;
};

struct WriteOptions {
  Format format = Format::kUnknown;  // kUnknown: from the extension
  bool png_interlace = false;        // PNG only: write Adam7-interlaced rows
  PngCompression png = {};           // PNG only
  int threads = 1;                   // PNM: rows converted on this many threads (0: one per core)
};

// Writes to a temporary file beside `path` and renames it into place, so a
// failure leaves no partial file. Errors if the format cannot hold the image
// (e.g. a signed or 3-component image as PGM).
Status write_image(const Image& image, const std::filesystem::path& path,
                   const WriteOptions& options = {});

// Writes one component as a PGX file (PGX holds one component; a
// multi-component image is written as one file per component). Precision
// 1..31, signed or unsigned, big-endian ("ML"). Atomic like write_image.
Status write_pgx_component(const Component& component, const std::filesystem::path& path);

}  // namespace mallat::io

// Raw planes, as opj_compress -F and opj_decompress read and write them:
// no header, the components one after another (planar), each at its own
// sub-sampled size ceil(W / dx) x ceil(H / dy) in raster order; samples of 1..8
// bits take one byte, 9..16 two, big-endian in .raw (and .yuv) files,
// little-endian in .rawl; signed samples are two's complement in that
// container. The file holds no geometry, so the reader takes it as a
// RawGeometry, written on the command line as opj_compress's -F text:
//   W,H,N,BITS,s|u[@DX1xDY1:DX2xDY2:...]
// (no @ part: 1x1 for every component; fewer factors than components: the
// last repeats, as opj_compress parses them).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/image.h"
#include "common/status.h"

namespace mallat::io {

struct RawGeometry {
  int64_t width = 0, height = 0;  // the image on the reference grid (B.2)
  int precision = 8;              // 1..16 bits, every component
  bool is_signed = false;
  // Per component: its sub-sampling (XRsiz, YRsiz), 1..255 each (A.5.1);
  // the size is the number of components.
  std::vector<std::array<int, 2>> subsampling;

  int num_components() const { return static_cast<int>(subsampling.size()); }
  // Component c's size: ceil(width / dx) x ceil(height / dy).
  int64_t component_width(int c) const;
  int64_t component_height(int c) const;
  // Bytes of the whole file.
  uint64_t file_bytes() const;
};

// Parses -F's text (above); errors say which field is wrong.
Result<RawGeometry> parse_raw_geometry(std::string_view text);

// Only the "@DX1xDY1:..." part (without the '@') for `components`
// components: the last factor repeats; more factors than components is an
// error.
Result<std::vector<std::array<int, 2>>> parse_subsampling(std::string_view text, int components);

// The -F text that reads `geometry` back (the @ part always written).
std::string raw_geometry_text(const RawGeometry& geometry);

// The geometry of an image's planes as a raw file holds them: one precision
// and signedness, 1..16 bits, and a reference-grid size W x H with
// ceil(W / dx) x ceil(H / dy) equal to each component's size (the image's
// own x1 - x0 when it fits; else the largest that fits). An error says why
// when there is none (components of several precisions, or sizes that follow
// an image offset no -F can say). Its samples need not be there.
Result<RawGeometry> raw_geometry_of(const Image& image);

// The image a raw file of this geometry holds, its samples zero: each
// component at its size, x1 and y1 the geometry's size, the colour space by
// read_raw's rule. The geometry must be valid (as parse_raw_geometry gives).
Image raw_planes(const RawGeometry& geometry);
// The same without samples (a reader in strips, strip_reader.h).
Image raw_planes_layout(const RawGeometry& geometry);

// Reads a raw file of this geometry; big_endian for .raw, false for .rawl.
// The file's size must be geometry.file_bytes() exactly (the error names both
// counts), and every sample must fit its precision. The image's x1, y1 are
// the geometry's width and height; its colour space is grey for one
// component, YCbCr (sYCC) for three or more whose components 1 and 2 are
// sub-sampled more than component 0, unknown otherwise.
Result<Image> read_raw(const std::filesystem::path& path, const RawGeometry& geometry, bool big_endian,
                       uint64_t max_memory = 0);

// Sets the colour space of planes put together from separate planes (raw
// files, per-component PGX) by the rule read_raw states.
void set_planar_colour(Image& image);

// Joins single-component images (one per file, each at its own size) into one
// image with these sub-sampling factors, or, when `subsampling` is empty,
// factors derived from the sizes: the largest width W and height H are the
// reference grid's, and each component's dx is the smallest integer with
// ceil(W / dx) equal to its width (likewise dy); an error names the component
// whose size is ceil(W / d) for no d. `names` name the parts in messages.
Result<Image> join_components(std::vector<Image> parts, const std::vector<std::string>& names,
                              const std::vector<std::array<int, 2>>& subsampling);

}  // namespace mallat::io

// Test TIFF files written through libtiff (only in builds with it): the
// layouts mallat's own writer does not produce (tiles, planar strips,
// compression, BigTIFF with tiles), for the readers to be checked on.
#pragma once

#include <tiffio.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace mallat::testing {

struct TiffShape {
  uint32_t width = 0, height = 0;
  uint16_t spp = 1, bits = 8;
  bool planar = false;
  uint32_t tile = 0;  // tile side; 0: strips of rows_per_strip rows
  uint32_t rows_per_strip = 8;
  uint16_t compression = COMPRESSION_NONE;
  bool big = false;  // BigTIFF
};

// Sample (x, y, c): a ramp with a little texture, within `bits` bits.
inline uint32_t tiff_sample(uint32_t x, uint32_t y, int c, int bits) {
  return (x * (3 + c) + y * 5 + (x * y) / 7 + 40u * c) & ((1u << bits) - 1);
}

// Writes the file; false when libtiff fails. 8- and 16-bit samples only.
inline bool write_test_tiff(const std::filesystem::path& path, const TiffShape& s) {
  TIFF* tif = TIFFOpen(path.c_str(), s.big ? "w8" : "w");
  if (!tif) return false;
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, s.width);
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, s.height);
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, s.spp);
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, s.bits);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, s.spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, s.planar ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG);
  TIFFSetField(tif, TIFFTAG_COMPRESSION, s.compression);
  if (s.spp == 4 || s.spp == 2) {
    const uint16_t extra = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &extra);
  }
  const int per_pixel = s.planar ? 1 : s.spp, bytes = s.bits / 8;
  const uint32_t block_w = s.tile ? s.tile : s.width, block_h = s.tile ? s.tile : s.rows_per_strip;
  if (s.tile) {
    TIFFSetField(tif, TIFFTAG_TILEWIDTH, s.tile);
    TIFFSetField(tif, TIFFTAG_TILELENGTH, s.tile);
  } else {
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, s.rows_per_strip);
  }
  std::vector<uint8_t> block(size_t{block_w} * block_h * per_pixel * bytes);
  bool ok = true;
  for (int p = 0; p < (s.planar ? s.spp : 1); ++p)
    for (uint32_t y0 = 0; y0 < s.height; y0 += block_h)
      for (uint32_t x0 = 0; x0 < (s.tile ? s.width : 1); x0 += block_w) {
        const uint32_t rows = s.tile ? block_h : std::min(block_h, s.height - y0);
        std::fill(block.begin(), block.end(), 0);
        for (uint32_t y = 0; y < rows && y0 + y < s.height; ++y)
          for (uint32_t x = 0; x < block_w && x0 + x < s.width; ++x)
            for (int k = 0; k < per_pixel; ++k) {
              const uint32_t v = tiff_sample(x0 + x, y0 + y, s.planar ? p : k, s.bits);
              uint8_t* at = block.data() + ((size_t{y} * block_w + x) * per_pixel + k) * bytes;
              if (bytes == 2) {
                const uint16_t v16 = static_cast<uint16_t>(v);
                std::memcpy(at, &v16, 2);  // libtiff takes host order
              } else {
                *at = static_cast<uint8_t>(v);
              }
            }
        const tmsize_t size = static_cast<tmsize_t>(size_t{block_w} * rows * per_pixel * bytes);
        if (s.tile)
          ok = ok && TIFFWriteTile(tif, block.data(), x0, y0, 0, static_cast<uint16_t>(p)) >= 0;
        else
          ok = ok && TIFFWriteEncodedStrip(tif, TIFFComputeStrip(tif, y0, static_cast<uint16_t>(p)), block.data(),
                                           size) >= 0;
      }
  TIFFClose(tif);
  return ok;
}

// The shapes the tests read: tiles and strips, contiguous and planar,
// 1, 3 and 4 samples, 8 and 16 bits, compressed or not, classic and BigTIFF.
inline std::vector<std::pair<std::string, TiffShape>> test_tiff_shapes() {
  return {
      {"tiled-rgb8-lzw.tif", {75, 61, 3, 8, false, 16, 0, COMPRESSION_LZW, false}},
      {"tiled-planar-rgba16.tif", {50, 40, 4, 16, true, 32, 0, COMPRESSION_NONE, false}},
      {"strips-planar-rgb8-deflate.tif", {67, 45, 3, 8, true, 0, 5, COMPRESSION_ADOBE_DEFLATE, false}},
      {"strips-grey16-big.tif", {41, 70, 1, 16, false, 0, 9, COMPRESSION_NONE, true}},
      {"tiled-grey8-big.tif", {90, 33, 1, 8, false, 16, 0, COMPRESSION_LZW, true}},
      {"one-strip-rgb8-lzw.tif", {60, 50, 3, 8, false, 0, 50, COMPRESSION_LZW, false}},
      // One strip of 1.3 MB decoded: the strip reader takes it a row at a time.
      {"one-large-strip-rgb8-deflate.tif", {700, 620, 3, 8, false, 0, 620, COMPRESSION_ADOBE_DEFLATE, false}},
  };
}

}  // namespace mallat::testing

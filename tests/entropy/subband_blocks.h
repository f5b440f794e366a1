// The 64x64 code-blocks of an 8-bit RGB image as a lossless encoder makes
// them: DC shift and the reversible colour transform (G.1.2, G.2), five
// levels of the 5/3 DWT (Annex F, with the plain reference transform) and
// each subband cut into code-blocks (B.7). For benchmarks of block coders on
// real subbands rather than synthetic ones (ht_benchmark.cc). Each block
// carries the Mb of its subband: the nominal eps_b of E.1.1.1 with one guard
// bit (B + gain_b, the chroma's B one more after the RCT), raised where a
// magnitude needs more.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "common/plane_view.h"
#include "dwt/reference.h"

namespace mallat::entropy::bench {

struct SubbandBlock {
  PlaneView<const int32_t> coefficients;
  int num_bitplanes = 0;
  int orientation = 0;  // entropy::BandOrientation: LL, HL, LH, HH
  int band = 0;         // the subband's place in A.6.4's order (LL, then HL, LH, HH, coarsest level first)
};

struct SubbandBlocks {
  int64_t width = 0, height = 0;
  std::vector<std::vector<int32_t>> planes;  // Y, Cb, Cr in Mallat's packed layout
  std::vector<SubbandBlock> blocks;
  int64_t samples() const { return 3 * width * height; }
};

namespace detail {

// One level of the 2-D forward 5/3 on the w x h corner of `plane`: columns,
// then rows (2D_SD, F.4.2), each line packed low-pass first.
inline void forward_level(std::vector<int32_t>& plane, int64_t stride, int64_t w, int64_t h) {
  std::vector<int32_t> line(static_cast<size_t>(std::max(w, h)));
  if (h > 1) {
    for (int64_t x = 0; x < w; ++x) {
      for (int64_t y = 0; y < h; ++y) line[static_cast<size_t>(y)] = plane[static_cast<size_t>(y * stride + x)];
      dwt::reference::forward_53(std::span<int32_t>(line.data(), static_cast<size_t>(h)), 0);
      for (int64_t y = 0; y < h; ++y) plane[static_cast<size_t>(y * stride + x)] = line[static_cast<size_t>(y)];
    }
  }
  if (w > 1) {
    for (int64_t y = 0; y < h; ++y) {
      dwt::reference::forward_53(std::span<int32_t>(plane.data() + y * stride, static_cast<size_t>(w)), 0);
    }
  }
}

// The code-blocks of the band [x0, x1) x [y0, y1) of `plane`, Mb as above.
inline void add_band(const std::vector<int32_t>& plane, int64_t stride, int64_t x0, int64_t y0, int64_t x1,
                     int64_t y1, int nominal_mb, int orientation, int band, std::vector<SubbandBlock>& blocks) {
  uint32_t all = 0;
  for (int64_t y = y0; y < y1; ++y) {
    for (int64_t x = x0; x < x1; ++x) {
      const int32_t c = plane[static_cast<size_t>(y * stride + x)];
      all |= c < 0 ? 0u - static_cast<uint32_t>(c) : static_cast<uint32_t>(c);
    }
  }
  const int mb = std::max(nominal_mb, static_cast<int>(std::bit_width(all)));
  const PlaneView<const int32_t> view{plane.data(), x1, y1, stride};
  for (int64_t y = y0; y < y1; y += 64) {
    for (int64_t x = x0; x < x1; x += 64) {
      blocks.push_back(
          {view.sub(x, y, std::min<int64_t>(64, x1 - x), std::min<int64_t>(64, y1 - y)), mb, orientation, band});
    }
  }
}

}  // namespace detail

// Reads an 8-bit binary PPM (no comments) and makes its blocks; empty
// `blocks` when the file is not one.
inline SubbandBlocks subband_blocks_of_ppm(const std::string& path, int levels = 5) {
  SubbandBlocks out;
  std::ifstream f(path, std::ios::binary);
  std::string magic;
  int max = 0;
  f >> magic >> out.width >> out.height >> max;
  f.get();
  if (!f || magic != "P6" || max != 255 || out.width <= 0 || out.height <= 0) return {};
  const auto n = static_cast<size_t>(out.width * out.height);
  std::vector<uint8_t> rgb(3 * n);
  f.read(reinterpret_cast<char*>(rgb.data()), static_cast<std::streamsize>(rgb.size()));
  if (!f) return {};
  out.planes.assign(3, std::vector<int32_t>(n));
  for (size_t i = 0; i < n; ++i) {
    const int r = rgb[3 * i] - 128, g = rgb[3 * i + 1] - 128, b = rgb[3 * i + 2] - 128;
    out.planes[0][i] = (r + 2 * g + b) >> 2;  // G-6: floor, as an arithmetic shift
    out.planes[1][i] = b - g;
    out.planes[2][i] = r - g;
  }
  for (size_t c = 0; c < 3; ++c) {
    const int depth = c == 0 ? 8 : 9;
    std::vector<int32_t>& plane = out.planes[c];
    int64_t w = out.width, h = out.height;
    for (int level = 0; level < levels; ++level) {
      detail::forward_level(plane, out.width, w, h);
      const int64_t lw = (w + 1) / 2, lh = (h + 1) / 2;
      const int band = 1 + 3 * (levels - 1 - level);
      detail::add_band(plane, out.width, lw, 0, w, lh, depth + 1, 1, band, out.blocks);       // HL
      detail::add_band(plane, out.width, 0, lh, lw, h, depth + 1, 2, band + 1, out.blocks);   // LH
      detail::add_band(plane, out.width, lw, lh, w, h, depth + 2, 3, band + 2, out.blocks);   // HH
      w = lw;
      h = lh;
    }
    detail::add_band(plane, out.width, 0, 0, w, h, depth, 0, 0, out.blocks);  // LL
  }
  return out;
}

}  // namespace mallat::entropy::bench

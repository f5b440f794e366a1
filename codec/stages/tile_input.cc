#include "codec/stages/tile_input.h"

#include <algorithm>
#include <span>

#include "codec/stages/colour_rules.h"
#include "codec/stages/component_transform.h"

namespace mallat::codec {

namespace {

int32_t dc_shift_of(const Component& comp) { return codec::dc_shift_of(comp.precision, comp.is_signed); }

}  // namespace

void dc_shift_row(const int32_t* in, int64_t n, const Component& comp, int32_t* out) {
  const int32_t shift = dc_shift_of(comp);
  for (int64_t x = 0; x < n; ++x) out[x] = in[x] - shift;
}

void dc_shift_row(const int32_t* in, int64_t n, const Component& comp, float* out) {
  const int32_t shift = dc_shift_of(comp);
  for (int64_t x = 0; x < n; ++x) out[x] = static_cast<float>(in[x] - shift);
}

void read_tile(EncodeTile& tile, ThreadPool& pool) {
  const Image& image = *tile.image;
  const size_t n = tile.planes.size();
  // Rows [y0, y1) of component c, DC-shifted (G.1.2), in the plane's type:
  // the 9/7 path goes straight to float (no integer copy: the pages of a
  // large tile cost as much to fault in as to fill).
  auto convert_rows = [&](size_t c, int64_t y0, int64_t y1) {
    const TilePlane& plane = tile.planes[c];
    const Component& src = image.components[c];
    const int64_t sx = tile.source_x[c], sy = tile.source_y[c];
    const int64_t w = plane.width();
    for (int64_t y = y0; y < y1; ++y) {
      const int32_t* row = src.samples.data() + (sy + y) * src.width + sx;
      if (plane.wavelet == dwt::Wavelet::k97) {
        dc_shift_row(row, w, src, plane.floats().row(y));
      } else {
        dc_shift_row(row, w, src, plane.ints().row(y));
      }
    }
  };
  if (!tile.colour_transform) {
    pool.parallel_for(static_cast<int64_t>(n), [&](int64_t c) {
      convert_rows(static_cast<size_t>(c), 0, tile.planes[c].height());
    });
    return;
  }
  // G.2 RCT / G.3 ICT in bands of rows over components 0..2 (the
  // components of a colour transform have one size, and one wavelet); the
  // others, of any size (sub-sampled, B-12), one per item after them.
  const int64_t height = tile.planes[0].height(), w = tile.planes[0].width();
  constexpr int64_t kBand = 32;
  const int64_t bands = (height + kBand - 1) / kBand;
  const bool floats = tile.planes[0].wavelet == dwt::Wavelet::k97;
  pool.parallel_for(bands + static_cast<int64_t>(n) - 3, [&](int64_t item) {
    if (item >= bands) {
      const size_t c = static_cast<size_t>(item - bands) + 3;
      convert_rows(c, 0, tile.planes[c].height());
      return;
    }
    const int64_t y0 = item * kBand, y1 = std::min(height, y0 + kBand);
    for (size_t c = 0; c < 3; ++c) convert_rows(c, y0, y1);
    const size_t at = static_cast<size_t>(y0 * w), count = static_cast<size_t>((y1 - y0) * w);
    if (floats) {
      ict_forward({tile.planes[0].floats().data + at, count}, {tile.planes[1].floats().data + at, count},
                  {tile.planes[2].floats().data + at, count});
    } else {
      rct_forward({tile.planes[0].ints().data + at, count}, {tile.planes[1].ints().data + at, count},
                  {tile.planes[2].ints().data + at, count});
    }
  });
}

}  // namespace mallat::codec

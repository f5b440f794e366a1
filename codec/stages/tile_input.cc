#include "codec/stages/tile_input.h"

#include <algorithm>
#include <span>
#include <vector>

#include "codec/stages/colour_rules.h"
#include "codec/stages/component_transform.h"
#include "codec/stages/stored_samples.h"

namespace mallat::codec {

namespace {

int32_t dc_shift_of(const Component& comp) { return codec::dc_shift_of(comp.precision, comp.is_signed); }

// `n` samples of row y of `src` from column x as int32: in its samples, or
// widened into `scratch` from its stored ones (Component::stored).
const int32_t* int32_row(const Component& src, int64_t x, int64_t y, int64_t n, std::vector<int32_t>& scratch) {
  if (src.stored.empty()) return src.samples.data() + y * src.width + x;
  const int64_t bytes = stored_bytes(src.precision);
  scratch.resize(static_cast<size_t>(n));
  widen_on_host(reinterpret_cast<const std::byte*>(src.stored.data()) + (y * src.width + x) * bytes, n, src.precision,
                src.is_signed, scratch.data());
  return scratch.data();
}

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
    std::vector<int32_t> widened;
    for (int64_t y = y0; y < y1; ++y) {
      const int32_t* row = int32_row(src, sx, sy + y, w, widened);
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

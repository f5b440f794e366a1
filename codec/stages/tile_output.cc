#include "codec/stages/tile_output.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "codec/stages/colour_rules.h"
#include "codec/stages/component_transform.h"
#include "codec/stages/output_kernels.h"

namespace mallat::codec {
namespace {

// A band of rows holds about this many samples per component: three
// components of it stay in L2 while every step runs over them, and a large
// tile still splits into enough bands to share among the threads.
constexpr int64_t kBandSamples = 16384;

SampleRange range_of(const Component& c) {
  const auto shift = c.is_signed ? 0 : static_cast<int32_t>(uint32_t{1} << (c.precision - 1));
  return {shift, c.min_value(), c.max_value()};
}

// The float kernels' components (output_kernels.h): up to 24 bits the
// range's ends, less the shift, are exact floats, so that clamping before
// rounding gives what rounding before clamping gives (samples_from_floats).
bool rounds_in_floats(const Component& c) { return c.precision <= 24; }

// One work item: rows [y0, y1) of one component, or of components 0..2
// together when they go through the colour transform.
struct RowBand {
  int component;
  bool colour;
  int64_t y0, y1;
};

// An image strip's samples as 8-bit interleaved bytes (write_tile_bytes).
struct ByteOut {
  uint8_t* data = nullptr;
  int components = 0;
};

class TileWriter {
 public:
  // Into image's samples, or with `bytes` into its bytes (image then only
  // describes the components).
  TileWriter(std::span<const DecodedTileComponent> tile, std::span<const int64_t> origin_x,
             std::span<const int64_t> origin_y, const Image& image, ByteOut bytes = {})
      : tile_(tile), origin_x_(origin_x), origin_y_(origin_y), image_(image), bytes_(bytes) {}

  // Where tile row y of component c goes: its columns [x_begin, x_end),
  // inside the image, to image row iy, the tile's column 0 at image column
  // ix (in: some of the row is in the image).
  struct Placement {
    bool in = false;
    int64_t iy = 0, ix = 0, x_begin = 0, x_end = 0;
    bool same_columns(const Placement& o) const {
      return in == o.in && (!in || (iy == o.iy && ix + x_begin == o.ix + o.x_begin && x_end - x_begin == o.x_end - o.x_begin));
    }
  };
  Placement place(int c, int64_t y) const {
    const DecodedTileComponent& t = tile_[c];
    const Component& dst = image_.components[c];
    const int64_t iy = t.rect.y0 - origin_y_[c] + y;
    if (iy < 0 || iy >= dst.height) return {};
    const int64_t ix = t.rect.x0 - origin_x_[c];  // image column of tile column 0
    const int64_t x_begin = std::max<int64_t>(0, -ix), x_end = std::min(t.width(), dst.width - ix);
    if (x_begin >= x_end) return {};
    return {true, iy, ix, x_begin, x_end};
  }
  int32_t* samples_at(int c, const Placement& p) const {
    Component& dst = const_cast<Component&>(image_.components[c]);  // write_tile's image, not const there
    return dst.samples.data() + p.iy * dst.width + p.ix + p.x_begin;
  }
  uint8_t* bytes_at(int c, const Placement& p) const {
    return bytes_.data + (p.iy * image_.components[c].width + p.ix + p.x_begin) * bytes_.components + c;
  }

  // Tile row y of component c to its image row, clipped to the image;
  // a reversible row from `ints` where given, else from the tile.
  void write_row(int c, int64_t y, const int32_t* ints = nullptr) const {
    const DecodedTileComponent& t = tile_[c];
    const Placement p = place(c, y);
    if (!p.in) return;
    const int64_t n = p.x_end - p.x_begin;
    const SampleRange r = range_of(image_.components[c]);
    if (bytes_.data) {  // output_kernels.h
      if (t.reversible()) {
        byte_kernels().ints((ints ? ints : t.samples53.row(y)) + p.x_begin, bytes_at(c, p), n, bytes_.components, r);
      } else {
        byte_kernels().floats(t.samples97.row(y) + p.x_begin, bytes_at(c, p), n, bytes_.components, r);
      }
      return;
    }
    const Component& dst = image_.components[c];
    if (t.reversible()) {
      sample_kernels().ints((ints ? ints : t.samples53.row(y)) + p.x_begin, samples_at(c, p), n, r);
    } else if (rounds_in_floats(dst)) {
      sample_kernels().floats(t.samples97.row(y) + p.x_begin, samples_at(c, p), n, r);
    } else {
      samples_from_floats({t.samples97.row(y) + p.x_begin, static_cast<size_t>(n)},
                          {samples_at(c, p), static_cast<size_t>(n)}, dst.precision, dst.is_signed);
    }
  }

  // Row y of irreversible components 0..2 through the ICT (G.3) into the
  // image in one pass where the three land on the same columns (the
  // transform needs components of one size) and round in floats, the
  // tile's rows only read; false where it leaves the row to the caller.
  bool write_ict_row(int64_t y) const {
    const Placement p[3] = {place(0, y), place(1, y), place(2, y)};
    if (!p[1].same_columns(p[0]) || !p[2].same_columns(p[0])) return false;
    for (int c = 0; c < 3; ++c)
      if (!rounds_in_floats(image_.components[c])) return false;
    if (!p[0].in) return true;
    const SampleRange r[3] = {range_of(image_.components[0]), range_of(image_.components[1]),
                              range_of(image_.components[2])};
    const int64_t x = p[0].x_begin, n = p[0].x_end - x;
    const float *y0 = tile_[0].samples97.row(y) + x, *y1 = tile_[1].samples97.row(y) + x,
                *y2 = tile_[2].samples97.row(y) + x;
    if (bytes_.data) {
      byte_kernels().ict(y0, y1, y2, bytes_at(0, p[0]), n, bytes_.components, r);
    } else {
      sample_kernels().ict(y0, y1, y2, samples_at(0, p[0]), samples_at(1, p[1]), samples_at(2, p[2]), n, r);
    }
    return true;
  }

  // Row y of reversible components 0..2 through the RCT into the image, the
  // tile's rows only read: in one pass where the three land on the same
  // columns (they do: the transform needs components of one size), else on
  // a copy, component by component.
  void write_rct_row(int64_t y) const {
    const Placement p[3] = {place(0, y), place(1, y), place(2, y)};
    const bool same = p[1].same_columns(p[0]) && p[2].same_columns(p[0]);
    if (same && !p[0].in) return;
    const SampleRange r[3] = {range_of(image_.components[0]), range_of(image_.components[1]),
                              range_of(image_.components[2])};
    if (same) {
      const int64_t x = p[0].x_begin, n = p[0].x_end - x;
      const int32_t *y0 = tile_[0].samples53.row(y) + x, *y1 = tile_[1].samples53.row(y) + x,
                    *y2 = tile_[2].samples53.row(y) + x;
      if (bytes_.data == nullptr) {
        sample_kernels().rct(y0, y1, y2, samples_at(0, p[0]), samples_at(1, p[1]), samples_at(2, p[2]), n, r);
        return;
      }
      byte_kernels().rct(y0, y1, y2, bytes_at(0, p[0]), n, bytes_.components, r);  // output_kernels.h
      return;
    }
    std::vector<int32_t> rows[3];
    for (int c = 0; c < 3; ++c) rows[c].assign(tile_[c].samples53.row(y), tile_[c].samples53.row(y) + tile_[0].width());
    rct_inverse(rows[0], rows[1], rows[2]);  // G.2
    for (int c = 0; c < 3; ++c) write_row(c, y, rows[c].data());
  }

  void write_band(const RowBand& band) const {
    for (int64_t y = band.y0; y < band.y1; ++y) {
      if (band.colour) {
        if (tile_[0].reversible()) {
          write_rct_row(y);
        } else if (!write_ict_row(y)) {
          const auto w = static_cast<size_t>(tile_[0].width());
          ict_inverse({tile_[0].samples97.row(y), w}, {tile_[1].samples97.row(y), w},
                      {tile_[2].samples97.row(y), w});  // G.3, in place
          for (int c = 0; c < 3; ++c) write_row(c, y);
        }
      } else {
        write_row(band.component, y);
      }
    }
  }

 private:
  std::span<const DecodedTileComponent> tile_;
  std::span<const int64_t> origin_x_, origin_y_;
  const Image& image_;
  ByteOut bytes_;
};

// write_tile's work: bands of rows of each component (of components 0..2
// together under the colour transform) on the pool.
void write_bands(std::span<const DecodedTileComponent> tile, bool colour_transform, const TileWriter& writer,
                 ThreadPool& pool) {
  std::vector<RowBand> bands;
  auto split = [&](int c, bool colour) {
    const int64_t w = tile[c].width(), h = tile[c].height();
    if (w <= 0 || h <= 0) return;
    const int64_t rows = std::max<int64_t>(1, kBandSamples / w);
    for (int64_t y = 0; y < h; y += rows) bands.push_back({c, colour, y, std::min(h, y + rows)});
  };
  const int n = static_cast<int>(tile.size());
  const int first = colour_transform && n >= 3 ? 3 : 0;
  if (first == 3) split(0, true);
  for (int c = first; c < n; ++c) split(c, false);
  pool.parallel_for(static_cast<int64_t>(bands.size()), [&](int64_t i) { writer.write_band(bands[i]); });
}

}  // namespace

void write_tile(std::span<const DecodedTileComponent> tile, bool colour_transform,
                std::span<const int64_t> origin_x, std::span<const int64_t> origin_y, Image& image,
                ThreadPool& pool) {
  write_bands(tile, colour_transform, TileWriter(tile, origin_x, origin_y, image), pool);
}

bool fits_bytes(const Image& image) {
  if (image.components.empty()) return false;
  for (const Component& c : image.components) {
    if (c.is_signed || c.precision < 1 || c.precision > 8) return false;
    if (c.width != image.components[0].width || c.height != image.components[0].height) return false;
  }
  return true;
}

void write_tile_bytes(std::span<const DecodedTileComponent> tile, bool colour_transform,
                      std::span<const int64_t> origin_x, std::span<const int64_t> origin_y, const Image& image,
                      uint8_t* bytes, ThreadPool& pool) {
  write_bands(tile, colour_transform,
              TileWriter(tile, origin_x, origin_y, image, {bytes, static_cast<int>(image.components.size())}), pool);
}

void write_tile_reference(std::span<const DecodedTileComponent> tile, bool colour_transform,
                          std::span<const int64_t> origin_x, std::span<const int64_t> origin_y,
                          Image& image) {
  // Contiguous copies of the planes.
  const size_t n = tile.size();
  std::vector<std::vector<int32_t>> ints(n);
  std::vector<std::vector<float>> floats(n);
  for (size_t c = 0; c < n; ++c) {
    const DecodedTileComponent& t = tile[c];
    for (int64_t y = 0; y < t.height(); ++y) {
      if (t.reversible()) {
        ints[c].insert(ints[c].end(), t.samples53.row(y), t.samples53.row(y) + t.width());
      } else {
        floats[c].insert(floats[c].end(), t.samples97.row(y), t.samples97.row(y) + t.width());
      }
    }
  }
  if (colour_transform && n >= 3) {
    if (tile[0].reversible()) {
      rct_inverse(ints[0], ints[1], ints[2]);
    } else {
      ict_inverse(floats[0], floats[1], floats[2]);
    }
  }
  for (size_t c = 0; c < n; ++c) {
    const Component& comp = image.components[c];
    if (tile[c].reversible()) {
      dc_level_shift_inverse(ints[c], comp.precision, comp.is_signed);
      clamp_to_precision(ints[c], comp.precision, comp.is_signed);
    } else {
      ints[c].resize(floats[c].size());
      samples_from_floats(floats[c], ints[c], comp.precision, comp.is_signed);
    }
  }
  for (size_t c = 0; c < n; ++c) {
    const DecodedTileComponent& t = tile[c];
    Component& dst = image.components[c];
    const int64_t ox = t.rect.x0 - origin_x[c], oy = t.rect.y0 - origin_y[c];
    for (int64_t y = 0; y < t.height(); ++y) {
      if (oy + y < 0 || oy + y >= dst.height) continue;
      for (int64_t x = 0; x < t.width(); ++x) {
        if (ox + x < 0 || ox + x >= dst.width) continue;
        dst.samples[(oy + y) * dst.width + ox + x] = ints[c][y * t.width() + x];
      }
    }
  }
}

}  // namespace mallat::codec

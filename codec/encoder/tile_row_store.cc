#include "codec/encoder/tile_row_store.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include "codec/stages/stored_samples.h"
#include "codec/tier2/tile_geometry.h"

namespace mallat::codec {
Status TileRowStore::narrow(int c, int64_t from, int64_t count, const int32_t* wide) {
  Plane& p = planes_[static_cast<size_t>(c)];
  const Component& comp = source_.layout.components[static_cast<size_t>(c)];
  const int64_t n = count * p.width;
  const int32_t lo = comp.min_value(), hi = comp.max_value();
  // A sample outside its precision would not survive the narrow store (and
  // is no image of that precision); say where it is.
  for (int64_t i = 0; i < n; ++i) {
    if (wide[i] < lo || wide[i] > hi)
      return invalid_argument("component " + std::to_string(c) + ": sample " + std::to_string(wide[i]) + " at (" +
                              std::to_string(i % p.width) + ", " +
                              std::to_string(first_rows_[static_cast<size_t>(c)] + from + i / p.width) +
                              ") is outside its " + std::to_string(comp.precision) + "-bit range " +
                              std::to_string(lo) + ".." + std::to_string(hi));
  }
  with_stored_type(p.sample_bytes, comp.is_signed, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    T* out = reinterpret_cast<T*>(p.samples.data()) + from * p.width;
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(wide[i]);
  });
  return Status::Ok();
}

Status TileRowStore::start_tile_row(int row) {
  const size_t nc = source_.layout.components.size();
  const Rect origin{siz_.xosiz, siz_.yosiz, siz_.xosiz, siz_.yosiz};
  if (planes_.empty()) {
    planes_.resize(nc);
    first_rows_.assign(nc, 0);
    for (size_t c = 0; c < nc; ++c) {
      const Component& comp = source_.layout.components[c];
      planes_[c].width = comp.width;
      planes_[c].sample_bytes = stored_bytes(comp.precision);
      planes_[c].x_start = tile_component_rect(origin, comp.dx, comp.dy).x0;
    }
  }
  MALLAT_ASSIGN_OR_RETURN(const Rect tile, tile_rect(siz_, row * static_cast<int>(siz_.tiles_x())));
  for (size_t c = 0; c < nc; ++c) {
    const Component& comp = source_.layout.components[c];
    Plane& p = planes_[c];
    const Rect tc = tile_component_rect(tile, comp.dx, comp.dy);
    const int64_t first = tc.y0 - tile_component_rect(origin, comp.dx, comp.dy).y0;
    // B-12's rows of consecutive rows of tiles meet, and the tiles before
    // took every row: each component's rows are read top to bottom, none
    // twice or left out.
    if (p.loaded != p.rows || first != first_rows_[c] + p.rows || first + tc.height() > comp.height)
      return internal_error("streamed encode: the rows of tile row " + std::to_string(row) + " of component " +
                            std::to_string(c) + " do not follow the last");
    first_rows_[c] = first;
    p.rows = tc.height();
    p.loaded = 0;
    // The previous row's store is reused: its size only changes at the last
    // row of tiles, so the memory is not given back and taken again.
    p.samples.resize(static_cast<size_t>(p.rows * p.width * p.sample_bytes));
  }
  row_ = row;
  return Status::Ok();
}

Status TileRowStore::load(int c, int64_t until) {
  Plane& p = planes_[static_cast<size_t>(c)];
  if (until <= p.loaded) return Status::Ok();
  const int64_t count = until - p.loaded;
  wide_.resize(static_cast<size_t>(count * p.width));
  MALLAT_RETURN_IF_ERROR(source_.read_rows(c, count, wide_.data()));
  MALLAT_RETURN_IF_ERROR(narrow(c, p.loaded, count, wide_.data()));
  p.loaded = until;
  return Status::Ok();
}

Result<TileRowReader> TileRowStore::rows_of(int index) {
  const int row = index / static_cast<int>(siz_.tiles_x());
  if (row != row_) {
    if (row != row_ + 1) return internal_error("streamed encode: tiles out of order at tile " + std::to_string(index));
    MALLAT_RETURN_IF_ERROR(start_tile_row(row));
  }
  MALLAT_ASSIGN_OR_RETURN(const Rect tile, tile_rect(siz_, index));
  const size_t nc = planes_.size();
  std::vector<int64_t> x0(nc), width(nc);
  for (size_t c = 0; c < nc; ++c) {
    const Component& comp = source_.layout.components[c];
    const Rect tc = tile_component_rect(tile, comp.dx, comp.dy);
    x0[c] = tc.x0 - planes_[c].x_start;
    width[c] = tc.width();
  }
  taken_.assign(nc, 0);
  return TileRowReader([this, x0, width](int c, int64_t rows, int32_t* out) -> Status {
    const size_t k = static_cast<size_t>(c);
    Plane& p = planes_[k];
    if (rows < 0 || taken_[k] + rows > p.rows)
      return internal_error("streamed encode: component " + std::to_string(c) + " asked for rows past its tile");
    MALLAT_RETURN_IF_ERROR(load(c, taken_[k] + rows));
    with_stored_type(p.sample_bytes, source_.layout.components[k].is_signed, [&](auto* type) {
      using T = std::remove_pointer_t<decltype(type)>;
      for (int64_t y = 0; y < rows; ++y) {
        const T* in = reinterpret_cast<const T*>(p.samples.data()) + (taken_[k] + y) * p.width + x0[k];
        int32_t* to = out + y * width[k];
        for (int64_t x = 0; x < width[k]; ++x) to[x] = in[x];
      }
    });
    taken_[k] += rows;
    return Status::Ok();
  });
}

}  // namespace mallat::codec

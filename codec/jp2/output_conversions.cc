#include "codec/jp2/output_conversions.h"

#include <algorithm>
#include <charconv>

#include "dwt/geometry.h"

namespace mallat::codec {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// The extent of the image on the reduced grid along one axis: the image
// area's where the image knows it (a decoded one), else a component with
// step 1 gives it exactly; otherwise the smallest end any component reaches
// (each covers up to (origin + size) * step).
int64_t grid_extent(const Image& image, int reduce, bool horizontal) {
  // B.2 / B-14: the image area at the decoded resolution, where it is known.
  const int64_t x0 = horizontal ? image.x0 : image.y0, x1 = horizontal ? image.x1 : image.y1;
  if (x1 > x0) return dwt::ceil_div_pow2(x1, reduce) - dwt::ceil_div_pow2(x0, reduce);
  int64_t best = -1;
  for (int c = 0; c < image.num_components(); ++c) {
    const Component& comp = image.components[c];
    const int step = horizontal ? comp.dx : comp.dy;
    const int64_t size = horizontal ? comp.width : comp.height;
    if (step == 1) return size;
    const int64_t origin = horizontal ? component_origin_x(image, c, reduce) : component_origin_y(image, c, reduce);
    const int64_t start = dwt::ceil_div_pow2(horizontal ? image.x0 : image.y0, reduce);
    const int64_t extent = (origin + size) * step - start;
    best = best < 0 ? extent : std::min(best, extent);
  }
  return best;
}

// For each grid point 0..n-1 (from `start` on the grid), the sample index of a
// component with origin `origin` and step `step`, clamped to its size.
std::vector<int64_t> nearest_samples(int64_t n, int64_t start, int64_t origin, int step, int64_t size) {
  std::vector<int64_t> index(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t grid = start + i;
    const int64_t floor_div = grid >= 0 ? grid / step : -ceil_div(-grid, step);
    index[i] = std::clamp<int64_t>(floor_div - origin, 0, size - 1);
  }
  return index;
}

}  // namespace

int64_t component_origin_x(const Image& image, int c, int reduce) {
  return ceil_div(dwt::ceil_div_pow2(image.x0, reduce), image.components[c].dx);
}

int64_t component_origin_y(const Image& image, int c, int reduce) {
  return ceil_div(dwt::ceil_div_pow2(image.y0, reduce), image.components[c].dy);
}

bool components_share_grid(const Image& image) {
  for (const Component& c : image.components)
    if (c.width != image.width() || c.height != image.height() || c.dx != image.components[0].dx ||
        c.dy != image.components[0].dy)
      return false;
  return true;
}

Status upsample_components(Image& image, int reduce) {
  bool needed = false;
  for (const Component& c : image.components) needed = needed || c.dx > 1 || c.dy > 1;
  if (!needed) return Status::Ok();
  const int64_t width = grid_extent(image, reduce, true), height = grid_extent(image, reduce, false);
  if (width <= 0 || height <= 0) return invalid_argument("upsample: the components cover no common area");
  const int64_t start_x = dwt::ceil_div_pow2(image.x0, reduce), start_y = dwt::ceil_div_pow2(image.y0, reduce);
  for (int c = 0; c < image.num_components(); ++c) {
    Component& comp = image.components[c];
    if (comp.dx == 1 && comp.dy == 1) continue;
    const auto cols = nearest_samples(width, start_x, component_origin_x(image, c, reduce), comp.dx, comp.width);
    const auto rows = nearest_samples(height, start_y, component_origin_y(image, c, reduce), comp.dy, comp.height);
    std::vector<int32_t> out(static_cast<size_t>(width * height));
    for (int64_t y = 0; y < height; ++y) {
      const int32_t* src = comp.samples.data() + rows[y] * comp.width;
      int32_t* dst = out.data() + y * width;
      for (int64_t x = 0; x < width; ++x) dst[x] = src[cols[x]];
    }
    comp.samples = std::move(out);
    comp.width = width;
    comp.height = height;
    comp.dx = comp.dy = 1;
  }
  return Status::Ok();
}

Result<std::vector<PrecisionRequest>> parse_precision_requests(const std::string& text) {
  std::vector<PrecisionRequest> out;
  size_t pos = 0;
  while (true) {
    PrecisionRequest r;
    auto [p, ec] = std::from_chars(text.data() + pos, text.data() + text.size(), r.bits);
    if (ec != std::errc() || r.bits < 0 || r.bits > 31)
      return invalid_argument("-p: a precision must be 0..31 bits, in '" + text + "'");
    pos = static_cast<size_t>(p - text.data());
    if (pos < text.size() && (text[pos] == 'S' || text[pos] == 'C')) r.scale = text[pos++] == 'S';
    out.push_back(r);
    if (pos == text.size()) return out;
    if (text[pos] != ',') return invalid_argument("-p: unexpected '" + std::string(1, text[pos]) + "' in '" + text + "'");
    ++pos;
  }
}

void force_precision(Image& image, const std::vector<PrecisionRequest>& requests) {
  if (requests.empty()) return;
  for (int c = 0; c < image.num_components(); ++c) {
    const PrecisionRequest& r = requests[std::min<size_t>(c, requests.size() - 1)];
    Component& comp = image.components[c];
    const int bits = r.bits == 0 ? comp.precision : r.bits;
    const int old_bits = comp.precision;
    comp.precision = bits;
    if (!r.scale) {
      const int32_t lo = comp.min_value(), hi = comp.max_value();
      for (int32_t& v : comp.samples) v = std::clamp(v, lo, hi);
    } else if (bits < old_bits) {
      for (int32_t& v : comp.samples) v >>= old_bits - bits;
    } else if (bits > old_bits) {
      const int64_t new_max = comp.is_signed ? int64_t{1} << (bits - 1) : (int64_t{1} << bits) - 1;
      const int64_t old_max = comp.is_signed ? int64_t{1} << (old_bits - 1) : (int64_t{1} << old_bits) - 1;
      for (int32_t& v : comp.samples) v = static_cast<int32_t>(int64_t{v} * new_max / old_max);
    }
  }
}

Status force_rgb(Image& image) {
  const bool grey = image.color_space == ColorSpace::kGray ||
                    (image.color_space == ColorSpace::kUnknown && image.num_components() <= 2);
  if (!grey) {
    if (image.color_space == ColorSpace::kRgb ||
        (image.color_space == ColorSpace::kUnknown && image.num_components() >= 3))
      return Status::Ok();
    return unsupported("-force-rgb: cannot convert this colour space to RGB");
  }
  if (!image.icc_profile.empty())
    return unsupported("-force-rgb: the greyscale ICC profile would not describe RGB samples; convert to sRGB first (--icc-to-srgb)");
  Component grey_channel = image.components[0];
  image.components.insert(image.components.begin() + 1, 2, grey_channel);
  image.color_space = ColorSpace::kRgb;
  return Status::Ok();
}

}  // namespace mallat::codec

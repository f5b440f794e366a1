#include "codec/jp2/sycc.h"

#include <algorithm>
#include <vector>

#include "codec/jp2/output_conversions.h"

namespace mallat::codec {

Rgb sycc_sample_to_rgb(int bits, int32_t y, int32_t cb, int32_t cr) {
  const int32_t offset = int32_t{1} << (bits - 1);
  const int32_t top = static_cast<int32_t>((int64_t{1} << bits) - 1);
  const double u = static_cast<float>(cb - offset), v = static_cast<float>(cr - offset);
  // Truncating products, as OpenJPEG's color.c (sycc_to_rgb) computes them.
  const int32_t r = y + static_cast<int32_t>(1.402 * v);
  const int32_t g = y - static_cast<int32_t>(0.344 * u + 0.714 * v);
  const int32_t b = y + static_cast<int32_t>(1.772 * u);
  return {std::clamp(r, 0, top), std::clamp(g, 0, top), std::clamp(b, 0, top)};
}

Status sycc_to_rgb(Image& image, int reduce) {
  if (image.num_components() < 3) return invalid_argument("sYCC needs 3 components, the image has " +
                                                          std::to_string(image.num_components()));
  const Component& luma = image.components[0];
  for (int c = 0; c < 3; ++c) {
    const Component& comp = image.components[c];
    if (comp.is_signed || comp.precision != luma.precision)
      return unsupported("sYCC with signed components or components of different precision");
    if (comp.dx % luma.dx != 0 || comp.dy % luma.dy != 0)
      return unsupported("sYCC chroma sampled more finely than luma");
  }
  const int64_t w = luma.width, h = luma.height;
  // Which chroma sample covers each luma column / row (B.2 on the reduced grid).
  auto chroma_index = [&](int c, bool horizontal) {
    const Component& comp = image.components[c];
    const int64_t n = horizontal ? w : h;
    const int64_t luma_origin = horizontal ? component_origin_x(image, 0, reduce) : component_origin_y(image, 0, reduce);
    const int64_t origin = horizontal ? component_origin_x(image, c, reduce) : component_origin_y(image, c, reduce);
    const int luma_step = horizontal ? luma.dx : luma.dy, step = horizontal ? comp.dx : comp.dy;
    const int64_t size = horizontal ? comp.width : comp.height;
    std::vector<int64_t> index(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      index[i] = std::clamp<int64_t>((luma_origin + i) * luma_step / step - origin, 0, size - 1);
    return index;
  };
  const auto cb_x = chroma_index(1, true), cb_y = chroma_index(1, false);
  const auto cr_x = chroma_index(2, true), cr_y = chroma_index(2, false);
  std::vector<int32_t> g(static_cast<size_t>(w * h)), b(static_cast<size_t>(w * h));
  std::vector<int32_t>& r = image.components[0].samples;
  const Component& cb = image.components[1];
  const Component& cr = image.components[2];
  for (int64_t y = 0; y < h; ++y) {
    const int32_t* cb_row = cb.samples.data() + cb_y[y] * cb.width;
    const int32_t* cr_row = cr.samples.data() + cr_y[y] * cr.width;
    for (int64_t x = 0; x < w; ++x) {
      const size_t i = static_cast<size_t>(y * w + x);
      const Rgb rgb = sycc_sample_to_rgb(luma.precision, r[i], cb_row[cb_x[x]], cr_row[cr_x[x]]);
      r[i] = rgb.r;
      g[i] = rgb.g;
      b[i] = rgb.b;
    }
  }
  for (int c = 1; c < 3; ++c) {
    Component& comp = image.components[c];
    comp.width = w;
    comp.height = h;
    comp.dx = luma.dx;
    comp.dy = luma.dy;
    comp.samples = std::move(c == 1 ? g : b);
  }
  image.color_space = ColorSpace::kRgb;
  return Status::Ok();
}

}  // namespace mallat::codec

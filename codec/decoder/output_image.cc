#include "codec/decoder/output_image.h"

namespace mallat::codec {

bool any_colour_transform(const Codestream& cs) {
  if (cs.main.cod.multiple_component_transform) return true;
  for (const Tile& tile : cs.tiles)
    if (tile.overrides.cod && tile.overrides.cod->multiple_component_transform) return true;
  return false;
}

Result<Image> output_image(const ImageAndTileSize& siz, const dwt::Rect& area, int reduce,
                           const ComponentSelection& selection, ColorSpace color_space,
                           std::vector<int64_t>& origin_x, std::vector<int64_t>& origin_y) {
  Image image;
  image.x0 = area.x0;
  image.y0 = area.y0;
  image.x1 = area.x1;
  image.y1 = area.y1;
  for (int index : selection.decoded) {
    const ComponentSize& c = siz.components[static_cast<size_t>(index)];
    const int64_t x0 = dwt::ceil_div_pow2((area.x0 + c.dx - 1) / c.dx, reduce);
    const int64_t y0 = dwt::ceil_div_pow2((area.y0 + c.dy - 1) / c.dy, reduce);
    const int64_t x1 = dwt::ceil_div_pow2((area.x1 + c.dx - 1) / c.dx, reduce);
    const int64_t y1 = dwt::ceil_div_pow2((area.y1 + c.dy - 1) / c.dy, reduce);
    if (c.precision > 31) return unsupported("component precision above 31 bits");
    Component comp;
    comp.width = x1 - x0;
    comp.height = y1 - y0;
    comp.precision = c.precision;
    comp.is_signed = c.is_signed;
    comp.dx = c.dx;
    comp.dy = c.dy;
    image.components.push_back(std::move(comp));
    origin_x.push_back(x0);
    origin_y.push_back(y0);
  }
  // Fewer than three components picked out of more are grey, whatever colr
  // says (as opj_decompress makes them).
  const size_t outputs = selection.output.size();
  image.color_space = !selection.all && outputs < 3 ? ColorSpace::kGray
                      : color_space != ColorSpace::kUnknown ? color_space
                      : outputs >= 3                        ? ColorSpace::kRgb
                                                            : ColorSpace::kGray;
  return image;
}

}  // namespace mallat::codec

#include "codec/codestream/params_check.h"

#include <string>

namespace mallat::codec {
namespace {

Status bad(std::string m) { return invalid_argument(std::move(m)); }
std::string str(uint64_t v) { return std::to_string(v); }

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace

uint64_t total_samples(const ImageAndTileSize& siz) {
  uint64_t total = 0;
  for (const auto& c : siz.components) {
    if (c.dx < 1 || c.dy < 1) continue;
    // B-2: component extent on its own sampling grid.
    uint64_t w = ceil_div(siz.xsiz, c.dx) - ceil_div(siz.xosiz, c.dx);
    uint64_t h = ceil_div(siz.ysiz, c.dy) - ceil_div(siz.yosiz, c.dy);
    total += w * h;  // both < 2^32: no overflow of one term; the sum of 16384 fits too
  }
  return total;
}

Status check_image_and_tile_size(const ImageAndTileSize& s, const ParseLimits& limits) {
  const size_t nc = s.components.size();
  if (nc < 1 || nc > 16384) return bad("Csiz " + str(nc) + " outside 1..16384");
  if (nc > limits.max_components)
    return resource_limit("Csiz " + str(nc) + " above the limit " + str(limits.max_components));
  if (s.xsiz == 0 || s.ysiz == 0) return bad("image size " + str(s.xsiz) + "x" + str(s.ysiz) + " is empty");
  if (s.xosiz >= s.xsiz) return bad("XOsiz " + str(s.xosiz) + " >= Xsiz " + str(s.xsiz));
  if (s.yosiz >= s.ysiz) return bad("YOsiz " + str(s.yosiz) + " >= Ysiz " + str(s.ysiz));
  if (s.xtsiz == 0 || s.ytsiz == 0) return bad("tile size " + str(s.xtsiz) + "x" + str(s.ytsiz) + " is empty");
  // A.5.1: the first tile must hold at least one image sample.
  if (s.xtosiz > s.xosiz) return bad("XTOsiz " + str(s.xtosiz) + " > XOsiz " + str(s.xosiz));
  if (s.ytosiz > s.yosiz) return bad("YTOsiz " + str(s.ytosiz) + " > YOsiz " + str(s.yosiz));
  if (uint64_t{s.xtosiz} + s.xtsiz <= s.xosiz)
    return bad("XTOsiz + XTsiz " + str(uint64_t{s.xtosiz} + s.xtsiz) + " <= XOsiz " + str(s.xosiz));
  if (uint64_t{s.ytosiz} + s.ytsiz <= s.yosiz)
    return bad("YTOsiz + YTsiz " + str(uint64_t{s.ytosiz} + s.ytsiz) + " <= YOsiz " + str(s.yosiz));
  for (size_t i = 0; i < nc; ++i) {
    const auto& c = s.components[i];
    if (c.precision < 1 || c.precision > 38)
      return bad("component " + str(i) + " precision " + str(c.precision) + " outside 1..38");
    if (c.dx < 1 || c.dx > 255 || c.dy < 1 || c.dy > 255)
      return bad("component " + str(i) + " subsampling " + std::to_string(c.dx) + "x" +
                 std::to_string(c.dy) + " outside 1..255");
  }
  uint64_t tx = ceil_div(uint64_t{s.xsiz} - s.xtosiz, s.xtsiz);
  uint64_t ty = ceil_div(uint64_t{s.ysiz} - s.ytosiz, s.ytsiz);
  if (tx * ty > limits.max_tiles)
    return resource_limit(str(tx) + "x" + str(ty) + " tiles, above the limit " + str(limits.max_tiles));
  uint64_t samples = total_samples(s);
  if (samples > limits.max_samples)
    return resource_limit(str(samples) + " samples, above the limit " + str(limits.max_samples));
  return Status::Ok();
}

Status check_component_coding(const ComponentCoding& cc) {
  if (cc.levels < 0 || cc.levels > 32) return bad("decomposition levels " + std::to_string(cc.levels) + " outside 0..32");
  if (cc.xcb < 2 || cc.xcb > 10) return bad("code-block width exponent " + std::to_string(cc.xcb) + " outside 2..10");
  if (cc.ycb < 2 || cc.ycb > 10) return bad("code-block height exponent " + std::to_string(cc.ycb) + " outside 2..10");
  if (cc.xcb + cc.ycb > 12)
    return bad("code-block exponents " + std::to_string(cc.xcb) + " + " + std::to_string(cc.ycb) + " > 12");
  if (!cc.precinct_exponents.empty()) {
    if (cc.precinct_exponents.size() != static_cast<size_t>(cc.levels) + 1)
      return bad(std::to_string(cc.precinct_exponents.size()) + " precinct sizes for " +
                 std::to_string(cc.levels + 1) + " resolutions");
    for (size_t r = 0; r < cc.precinct_exponents.size(); ++r) {
      int px = cc.precinct_exponents[r][0], py = cc.precinct_exponents[r][1];
      if (px > 15 || py > 15) return bad("precinct exponent above 15 at resolution " + str(r));
      // A.6.1, Table A.21: only resolution 0 may use 2^0 (its subband is not halved).
      if (r > 0 && (px == 0 || py == 0)) return bad("precinct exponent 0 at resolution " + str(r));
    }
  }
  return Status::Ok();
}

Status check_coding_style(const CodingStyle& cod) {
  if (cod.layers < 1 || cod.layers > 65535) return bad("layers " + std::to_string(cod.layers) + " outside 1..65535");
  if (static_cast<int>(cod.order) > 4) return bad("progression order " + std::to_string(static_cast<int>(cod.order)));
  return check_component_coding(cod.component);
}

Status check_quantization(const Quantization& q) {
  if (q.guard_bits < 0 || q.guard_bits > 7) return bad("guard bits " + std::to_string(q.guard_bits) + " outside 0..7");
  if (static_cast<int>(q.style) > 2) return bad("quantization style " + std::to_string(static_cast<int>(q.style)));
  if (q.steps.empty()) return bad("no step sizes");
  if (q.style == QuantizationStyle::kScalarDerived && q.steps.size() != 1)
    return bad("derived quantization with " + str(q.steps.size()) + " step sizes");
  for (size_t i = 0; i < q.steps.size(); ++i) {
    const auto& st = q.steps[i];
    if (st.exponent < 0 || st.exponent > 31) return bad("step " + str(i) + " exponent " + std::to_string(st.exponent) + " outside 0..31");
    if (st.mantissa < 0 || st.mantissa > 2047) return bad("step " + str(i) + " mantissa " + std::to_string(st.mantissa) + " outside 0..2047");
    if (q.style == QuantizationStyle::kNone && st.mantissa != 0) return bad("step " + str(i) + " has a mantissa without quantization");
  }
  return Status::Ok();
}

Status check_quantization_for_levels(const Quantization& q, int levels) {
  if (q.style == QuantizationStyle::kScalarDerived) return q.steps.size() == 1 ? Status::Ok() : bad("derived quantization needs one step");
  size_t need = 3 * static_cast<size_t>(levels) + 1;
  if (q.steps.size() < need)
    return bad(str(q.steps.size()) + " step sizes for " + str(need) + " subbands (" + std::to_string(levels) + " levels)");
  return Status::Ok();
}

Status check_progression_change(const ProgressionChange& p, int num_components) {
  if (static_cast<int>(p.order) > 4) return bad("progression order " + std::to_string(static_cast<int>(p.order)));
  if (p.resolution_start < 0 || p.resolution_start > 32) return bad("RSpoc " + std::to_string(p.resolution_start) + " outside 0..32");
  if (p.resolution_end < 0 || p.resolution_end > 33) return bad("REpoc " + std::to_string(p.resolution_end) + " outside 0..33");
  if (p.component_start < 0 || p.component_start >= num_components)
    return bad("CSpoc " + std::to_string(p.component_start) + " not below Csiz " + std::to_string(num_components));
  if (p.component_end < 0 || p.component_end > 16384) return bad("CEpoc " + std::to_string(p.component_end) + " outside 0..16384");
  if (p.layer_end < 0 || p.layer_end > 65535) return bad("LYEpoc " + std::to_string(p.layer_end));
  return Status::Ok();
}

}  // namespace mallat::codec

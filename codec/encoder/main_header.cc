#include "codec/encoder/main_header.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "codec/codestream/capabilities.h"
#include "codec/codestream/params_check.h"
#include "codec/encoder/synthesis_norms.h"
#include "codec/tier2/progression.h"
#include "codec/tier2/tile_geometry.h"
#include "entropy/ebcot/ebcot.h"
#include "quant/step_size.h"

namespace mallat::codec {

namespace {

// Irreversible step sizes are this many sample values over the subband's
// synthesis norm.
constexpr double kBaseStep = 1.0;

// The largest number of decomposition levels for which the first tile's
// smaller side still has a sample at the lowest resolution.
int max_levels_for(int64_t width, int64_t height) {
  int levels = 0;
  while (levels < 32 && (std::min(width, height) >> (levels + 1)) > 0) ++levels;
  return levels;
}

// G.2 / G.3 transform components 0..2 sample by sample: they need one size
// and one sub-sampling (opj_compress turns -mct off otherwise).
bool colour_transform_fits(const Image& image) {
  if (image.num_components() < 3) return false;
  const Component& a = image.components[0];
  for (int c = 1; c < 3; ++c) {
    const Component& b = image.components[c];
    if (b.dx != a.dx || b.dy != a.dy || b.width != a.width || b.height != a.height) return false;
  }
  return true;
}

std::string factors_of_first_three(const Image& image) {
  std::string text;
  for (int c = 0; c < std::min(3, image.num_components()); ++c) {
    const Component& k = image.components[c];
    text += (c ? ", " : "") + std::to_string(k.width) + "x" + std::to_string(k.height) + " sub-sampled " +
            std::to_string(k.dx) + "x" + std::to_string(k.dy);
  }
  return text;
}

}  // namespace

Result<GridSize> check_image(const Image& image, const EncodeOptions& o, bool with_samples) {
  if (image.components.empty()) return invalid_argument("the image has no components");
  if (image.num_components() > 16384) return invalid_argument("more than 16384 components");
  for (int c = 0; c < image.num_components(); ++c) {
    const Component& comp = image.components[c];
    if (comp.width <= 0 || comp.height <= 0)
      return invalid_argument("component " + std::to_string(c) + " is empty (zero size)");
    if (comp.precision < 1 || comp.precision > 16)
      return unsupported("component " + std::to_string(c) + " has " + std::to_string(comp.precision) +
                         " bits; lossless coding supports 1..16");
    const size_t count = static_cast<size_t>(comp.width * comp.height);
    const bool held = comp.stored.empty()
                          ? comp.samples.size() == count
                          : comp.samples.empty() && comp.stored.size() == count * stored_bytes(comp.precision);
    if (with_samples && !held)
      return invalid_argument("component " + std::to_string(c) + " has the wrong number of samples");
  }
  return reference_grid_size(image, o.image_x0, o.image_y0);
}

Result<MainHeader> main_header_for(const Image& image, GridSize grid, const EncodeOptions& o,
                                   EncodeReport* report) {
  MainHeader h;
  ImageAndTileSize& siz = h.siz;
  const int64_t w = grid.width, ht = grid.height;
  if (o.image_x0 + w > UINT32_MAX || o.image_y0 + ht > UINT32_MAX)
    return invalid_argument("image offset plus size exceeds 2^32 - 1");
  siz.xosiz = o.image_x0;
  siz.yosiz = o.image_y0;
  siz.xsiz = static_cast<uint32_t>(o.image_x0 + w);
  siz.ysiz = static_cast<uint32_t>(o.image_y0 + ht);
  siz.xtosiz = o.tile_x0;
  siz.ytosiz = o.tile_y0;
  if (siz.xtosiz > siz.xosiz || siz.ytosiz > siz.yosiz)
    return invalid_argument("the tile origin (-T) must not lie right of or below the image origin (-d)");
  siz.xtsiz = o.tile_width ? o.tile_width : siz.xsiz - siz.xtosiz;
  siz.ytsiz = o.tile_height ? o.tile_height : siz.ysiz - siz.ytosiz;
  if (uint64_t{siz.xtosiz} + siz.xtsiz <= siz.xosiz || uint64_t{siz.ytosiz} + siz.ytsiz <= siz.yosiz)
    return invalid_argument("the first tile does not reach the image area (A.5.1)");
  if (uint64_t{siz.tiles_x()} * siz.tiles_y() > 65535)
    return invalid_argument("more than 65535 tiles; choose larger tiles");
  for (const Component& c : image.components) siz.components.push_back({c.precision, c.is_signed, c.dx, c.dy});
  siz.rsiz = profile_rsiz(o.profile);   // A.5.1 Table A.10: the profile (codec/encoder/profiles.cc)

  // Levels: an explicit -n must fit the first tile's every tile-component
  // (B-12); the default shrinks to fit.
  MALLAT_ASSIGN_OR_RETURN(const dwt::Rect first_tile, tile_rect(siz, 0));
  int fit = 32;
  dwt::Rect first = first_tile;
  for (const Component& c : image.components) {
    const dwt::Rect tc = tile_component_rect(first_tile, c.dx, c.dy);
    if (max_levels_for(tc.width(), tc.height()) < fit) {
      fit = max_levels_for(tc.width(), tc.height());
      first = tc;
    }
  }
  int levels = o.resolutions - 1;
  if (levels > fit) {
    if (!o.resolutions_explicit) {
      levels = fit;
    } else {
      return invalid_argument(std::to_string(o.resolutions) + " resolutions need tiles of at least " +
                              std::to_string(1 << levels) + " samples a side; the first tile's smallest component is " +
                              std::to_string(first.width()) + "x" + std::to_string(first.height()));
    }
  }
  CodingStyle& cod = h.cod;
  cod.order = o.order;
  h.poc = o.main_progression_changes;
  cod.layers = o.rate_kind == EncodeOptions::RateKind::kNone ? 1 : static_cast<int>(o.rate_values.size());
  if (cod.layers < 1 || cod.layers > 65535) return invalid_argument("1..65535 quality layers, one per rate target");
  cod.sop = o.sop;
  cod.eph = o.eph;
  const bool equal_sizes = colour_transform_fits(image);
  if (o.mct == 1 && image.num_components() < 3) return invalid_argument("-mct 1 needs at least 3 components");
  if (o.mct == 1 && !equal_sizes)
    return invalid_argument("-mct 1: the colour transform (G.2, G.3) needs components 0..2 of one size and "
                            "sub-sampling; they are " + factors_of_first_three(image));
  if (o.mct == -1 && !equal_sizes && image.num_components() >= 3 && report)
    report->notes.push_back("no colour transform: components 0..2 differ in size or sub-sampling (" +
                            factors_of_first_three(image) + "); G.2 and G.3 need one");
  cod.multiple_component_transform = o.mct == -1 ? equal_sizes : o.mct == 1;
  ComponentCoding& cc = cod.component;
  cc.levels = levels;
  if (o.xcb < 2 || o.xcb > 10 || o.ycb < 2 || o.ycb > 10 || o.xcb + o.ycb > 12)
    return invalid_argument("code-block size must be 4..1024 a side with at most 4096 samples (A.6.1)");
  cc.xcb = o.xcb;
  cc.ycb = o.ycb;
  cc.style = o.style;
  cc.reversible = o.reversible;
  if (o.guard_bits < 0 || o.guard_bits > 7) return invalid_argument("guard bits must be 0..7 (A.6.4)");
  if (!o.precincts.empty()) {
    // -c lists precincts from the highest resolution down; the last repeats.
    cc.precinct_exponents.resize(levels + 1);
    for (int r = levels, i = 0; r >= 0; --r, ++i) {
      auto e = o.precincts[std::min<size_t>(i, o.precincts.size() - 1)];
      if (r > 0 && (e[0] == 0 || e[1] == 0))
        return invalid_argument("precincts above the lowest resolution must be at least 2x2 (A.6.1)");
      cc.precinct_exponents[r] = e;
    }
  }
  // E.1.1: reversible step sizes carry the bit-plane counts; irreversible
  // ones are Delta_b = s / norm_b, s = base_step_scale (one step in any
  // subband moves the image by about s sample values; PCRD then
  // truncates). Components of another precision get a QCC.
  std::vector<double> norms97;
  if (!o.reversible) {
    MALLAT_ASSIGN_OR_RETURN(norms97, subband_synthesis_norms(dwt::Wavelet::k97, levels));
  }
  if (!(o.base_step_scale > 0) || !std::isfinite(o.base_step_scale))
    return invalid_argument("the base step scale must be a positive number, got " + std::to_string(o.base_step_scale));
  // A resolution's factor divides its subbands' norms: Delta_b = s f_r / norm_b.
  std::vector<double> step_norms = norms97;
  for (size_t r = 0; r < o.resolution_step_scales.size(); ++r) {
    const double f = o.resolution_step_scales[r];
    if (!(f > 0) || !std::isfinite(f))
      return invalid_argument("resolution " + std::to_string(r) + "'s step scale must be a positive number, got " +
                              std::to_string(f));
    if (f != 1.0 && (o.reversible || o.derived_quantization))
      return invalid_argument("a resolution's own step scale needs expounded irreversible steps (-I, E.1.1)");
  }
  for (size_t i = 0; i < step_norms.size(); ++i) {
    // Subband 0 is LL (resolution 0); the others resolution levels - n_b + 1.
    const auto r = static_cast<size_t>(i == 0 ? 0 : levels - quant::subband_level(static_cast<int>(i), levels) + 1);
    if (r < o.resolution_step_scales.size()) step_norms[i] /= o.resolution_step_scales[r];
  }
  auto quant_for = [&](int precision) -> Result<Quantization> {
    Quantization q;
    q.guard_bits = o.guard_bits;
    if (o.reversible) {
      q.style = QuantizationStyle::kNone;
      q.steps = quant::reversible_step_sizes(precision, levels);
    } else if (o.derived_quantization) {
      q.style = QuantizationStyle::kScalarDerived;
      q.steps.resize(1);
      if (!quant::step_for_value(kBaseStep * o.base_step_scale / norms97[0], precision, &q.steps[0]) ||
          q.steps[0].exponent < levels)
        return invalid_argument("no derived step size fits " + std::to_string(precision) + "-bit samples with " +
                                std::to_string(levels) + " levels");
    } else {
      q.style = QuantizationStyle::kScalarExpounded;
      if (!quant::expounded_step_sizes(precision, step_norms, kBaseStep * o.base_step_scale, &q.steps))
        return invalid_argument("step sizes for " + std::to_string(precision) + "-bit samples with " +
                                std::to_string(levels) + " levels do not fit the QCD exponent (0..31)");
    }
    for (const StepSize& st : q.steps) {
      if (quant::magnitude_bitplanes(q.guard_bits, st.exponent) > entropy::kMaxBitPlanes)
        return invalid_argument(std::to_string(precision) + "-bit samples with " + std::to_string(q.guard_bits) +
                                " guard bits need more than 31 magnitude bit-planes (E-2)");
    }
    return q;
  };
  MALLAT_ASSIGN_OR_RETURN(h.qcd, quant_for(image.components[0].precision));
  for (int c = 1; c < image.num_components(); ++c) {
    if (image.components[c].precision != image.components[0].precision) {
      MALLAT_ASSIGN_OR_RETURN(h.qcc[c], quant_for(image.components[c].precision));
    }
  }
  // A.6.3 / Annex H: a whole-component region; its shifted coefficients
  // must still fit Tier-1's bit-planes.
  for (const RegionOfInterest& roi : o.roi) {
    const std::string which = "ROI of component " + std::to_string(roi.component);
    if (roi.component < 0 || roi.component >= image.num_components())
      return invalid_argument(which + ": the image has " + std::to_string(image.num_components()) + " components");
    for (const RegionOfInterest& r : h.rgn)
      if (r.component == roi.component) return invalid_argument(which + " given twice");
    if (roi.shift < 0 || roi.shift > 255) return invalid_argument(which + ": shift must be 0..255 (SPrgn)");
    const Quantization& q = h.qcc.count(roi.component) ? h.qcc.at(roi.component) : h.qcd;
    int top = 0;
    for (const StepSize& st : q.steps) top = std::max(top, quant::magnitude_bitplanes(q.guard_bits, st.exponent));
    if (top + roi.shift > entropy::kMaxBitPlanes)
      return invalid_argument(which + ": shift " + std::to_string(roi.shift) + " over " + std::to_string(top) +
                              " magnitude bit-planes exceeds " + std::to_string(entropy::kMaxBitPlanes));
    if (roi.shift > 0) h.rgn.push_back(roi);
  }
  if (o.style.ht && cod.layers > 1) {
    return invalid_argument("HT code-blocks (-M 64) are written in one quality layer: give one -r, --bpp or -q value");
  }
  if (o.style.ht) {
    // 15444-15 A.3: HT code-blocks are an extended capability: Rsiz bit 14
    // and a CAP with Ccap^15 (every block HT, one HT set each, B the largest
    // Mb of any subband, ROI shift included).
    if (o.style.ht_mixed) return invalid_argument("HTMIXED code-blocks are not written; use HT (-M 64) alone");
    set_ht_capabilities(h, ht_capabilities_of(h));
  }
  if (!o.comment.empty()) {
    Comment com;
    com.registration = 1;
    com.data.assign(o.comment.begin(), o.comment.end());
    h.comments.push_back(com);
  }
  return h;
}

Result<std::map<int, std::vector<ProgressionChange>>> tile_progression_changes(const MainHeader& main,
                                                                               const EncodeOptions& o) {
  const int tiles = static_cast<int>(main.siz.tiles_x() * main.siz.tiles_y());
  const int nc = static_cast<int>(main.siz.components.size());
  const int resolutions = main.cod.component.levels + 1;
  std::map<int, std::vector<ProgressionChange>> out;
  if (!main.poc.empty()) {
    // The main header's changes hold for every tile and must name every
    // packet (B.12.2): checked on the first tile.
    for (const ProgressionChange& p : main.poc) {
      const Status s = check_progression_change(p, nc);
      if (!s.ok()) return invalid_argument("main header progression change: " + s.message());
    }
    std::vector<ComponentCoding> coding(nc, main.cod.component);
    MALLAT_ASSIGN_OR_RETURN(const TileLayout layout, build_tile_layout(main.siz, 0, coding));
    MALLAT_ASSIGN_OR_RETURN(const auto all, packet_order(layout, main.cod.layers, main.cod.order));
    MALLAT_ASSIGN_OR_RETURN(const auto named, packet_order(layout, main.cod.layers, main.cod.order, main.poc));
    if (named.size() != all.size())
      return invalid_argument("the main header's progression changes must name every packet");
  }
  for (const auto& [tile, given] : o.progression_changes) {
    const std::string which = "progression change of tile " + std::to_string(tile) + " (counted from 0)";
    if (tile < 0 || tile >= tiles)
      return invalid_argument(which + ": the image has " + std::to_string(tiles) + " tiles");
    if (given.empty()) continue;
    std::vector<ProgressionChange> changes = given;
    for (const ProgressionChange& p : changes) {
      const Status s = check_progression_change(p, nc);
      if (!s.ok()) return invalid_argument(which + ": " + s.message());
      if (p.resolution_end <= p.resolution_start || p.component_end <= p.component_start || p.layer_end < 1)
        return invalid_argument(which + ": RSpoc < REpoc, CSpoc < CEpoc and LYEpoc >= 1 are needed");
    }
    std::vector<ComponentCoding> coding(nc, main.cod.component);
    MALLAT_ASSIGN_OR_RETURN(const TileLayout layout, build_tile_layout(main.siz, tile, coding));
    MALLAT_ASSIGN_OR_RETURN(const auto all, packet_order(layout, main.cod.layers, main.cod.order));
    MALLAT_ASSIGN_OR_RETURN(const auto named, packet_order(layout, main.cod.layers, main.cod.order, changes));
    if (named.size() < all.size())
      changes.push_back({0, 0, main.cod.layers, resolutions, nc, main.cod.order});
    out[tile] = std::move(changes);
  }
  return out;
}

}  // namespace mallat::codec

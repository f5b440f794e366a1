// The encoder pipeline: Image -> tiles -> DC shift + RCT -> forward DWT ->
// Tier-1 code-blocks (in parallel) -> Tier-2 packets -> codestream or JP2;
// the irreversible path has ICT, 9/7 and dead-zone quantisation instead, and
// rate targets truncate the code-blocks into quality layers (PCRD-opt).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "codec/api/decode.h"
#include "codec/api/encode.h"
#include "codec/stages/component_transform.h"
#include "codec/jp2/jp2_boxes.h"
#include "codec/jp2/jp2_colour.h"
#include "codec/codestream/marker_writer.h"
#include "codec/codestream/params_check.h"
#include "codec/tier2/packet_header.h"
#include "codec/tier2/progression.h"
#include "codec/encoder/rate_control.h"
#include "codec/encoder/step_search.h"
#include "codec/encoder/synthesis_norms.h"
#include "codec/encoder/encode_call.h"
#include "codec/encoder/encode_tiles.h"
#include "codec/encoder/tile_encoder.h"
#include "codec/tier2/tile_parts.h"
#include "codec/tier2/tile_geometry.h"
#include "common/metrics.h"
#include "common/thread_pool.h"
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

// The image area's size on the reference grid (B.2): each component's size
// must be its B-2 extent under its sub-sampling, at -d's origin.
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
    if (with_samples && comp.samples.size() != static_cast<size_t>(comp.width * comp.height))
      return invalid_argument("component " + std::to_string(c) + " has the wrong number of samples");
  }
  return reference_grid_size(image, o.image_x0, o.image_y0);
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

// Builds the main header from the image and the options (A.5, A.6).
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
      if (!quant::expounded_step_sizes(precision, norms97, kBaseStep * o.base_step_scale, &q.steps))
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

// -POC: the changes of each tile, checked (A.6.6) and, where they leave
// packets out, completed by one more change over everything in the COD order
// (B.12.2: a decoder sends only what the changes name).
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

}  // namespace

namespace {

// Per component: the squared-error weight of its errors in the output after
// the inverse colour transform, the sum over outputs of the squared
// coefficient with which the component enters them. G.3 (ICT inverse):
// R = Y + 1.402 Cr, G = Y - 0.344136 Cb - 0.714136 Cr, B = Y + 1.772 Cb.
// G.2 (RCT inverse, linearised): G = Y - (Cb + Cr) / 4, R = G + Cr, B = G + Cb.
std::vector<double> colour_weights(const MainHeader& main) {
  std::vector<double> w(main.siz.components.size(), 1.0);
  if (!main.cod.multiple_component_transform) return w;
  if (main.cod.component.reversible) {
    w[0] = 3.0;
    w[1] = w[2] = 0.0625 + 0.0625 + 0.5625;
  } else {
    w[0] = 3.0;
    w[1] = 0.344136 * 0.344136 + 1.772 * 1.772;
    w[2] = 1.402 * 1.402 + 0.714136 * 0.714136;
  }
  return w;
}

Result<TileCodingSetup> coding_setup(const Image& image, const MainHeader& main, const EncodeOptions& options) {
  TileCodingSetup setup;
  setup.roi_shift.assign(image.num_components(), 0);
  for (const RegionOfInterest& r : main.rgn) setup.roi_shift[r.component] = r.shift;
  MALLAT_ASSIGN_OR_RETURN(setup.tile_progression_changes, tile_progression_changes(main, options));
  setup.image = &image;
  setup.main = &main;
  const int levels = main.cod.component.levels;
  const bool reversible = main.cod.component.reversible;
  MALLAT_ASSIGN_OR_RETURN(std::vector<double> norms,
                          subband_synthesis_norms(reversible ? dwt::Wavelet::k53 : dwt::Wavelet::k97, levels));
  for (int c = 0; c < image.num_components(); ++c) {
    const Quantization& q = main.qcc.count(c) ? main.qcc.at(c) : main.qcd;
    std::vector<StepSize> steps = q.style == QuantizationStyle::kScalarDerived
                                      ? quant::derived_step_sizes(q.steps[0], levels)
                                      : q.steps;
    std::vector<double> step(norms.size(), 1.0), energy(norms.size());
    for (size_t b = 0; b < norms.size(); ++b) {
      energy[b] = norms[b] * norms[b];
      const int rb = image.components[c].precision + quant::log2_subband_gain(quant::subband_orientation(static_cast<int>(b)));
      if (!reversible) step[b] = quant::step_value(steps[b], rb);
    }
    setup.step.push_back(std::move(step));
    setup.energy.push_back(std::move(energy));
  }
  setup.colour_weight = colour_weights(main);
  setup.ht_candidates = main.cod.component.style.ht && (options.rate_kind != EncodeOptions::RateKind::kNone ||
                                                        options.max_file_bytes > 0 || options.max_component_bytes > 0);
  setup.distortions = options.rate_kind != EncodeOptions::RateKind::kNone || options.max_file_bytes > 0 ||
                      options.max_component_bytes > 0;
  return setup;
}

// Samples over all components, each at its own (sub-sampled) size.
double sample_count(const Image& image) {
  double n = 0;
  for (const Component& c : image.components) n += static_cast<double>(c.width) * static_cast<double>(c.height);
  return n;
}

// The layer targets of the options, checked for order. -r counts each
// component's bits at its own size; --bpp the image area's pixels (B.2).
Result<std::vector<LayerTarget>> layer_targets(const Image& image, GridSize grid, const EncodeOptions& o) {
  using Kind = EncodeOptions::RateKind;
  std::vector<LayerTarget> targets;
  // A file limit (the profiles') caps every layer's byte target.
  const double most = o.max_file_bytes ? static_cast<double>(o.max_file_bytes) : 0.0;
  auto capped = [&](LayerTarget t) {
    if (most > 0 && t.kind == LayerTarget::Kind::kEverything) return LayerTarget{LayerTarget::Kind::kBytes, most};
    if (most > 0 && t.kind == LayerTarget::Kind::kBytes) t.value = std::min(t.value, most);
    return t;
  };
  if (most > 0 && o.rate_kind == Kind::kPsnr)
    return invalid_argument("PSNR targets (-q) cannot be combined with a limit on the file's bytes");
  if (o.rate_kind == Kind::kNone) return std::vector<LayerTarget>{capped(LayerTarget{})};
  const double pixels = static_cast<double>(grid.width) * static_cast<double>(grid.height);
  double raw_bits = 0;
  for (const Component& c : image.components)
    raw_bits += c.precision * static_cast<double>(c.width) * static_cast<double>(c.height);
  const double samples = sample_count(image);
  const double peak = std::ldexp(1.0, image.components[0].precision) - 1.0;
  for (size_t l = 0; l < o.rate_values.size(); ++l) {
    const double v = o.rate_values[l];
    const std::string which = "rate target " + std::to_string(l + 1);
    if (!(v >= 0) || !std::isfinite(v)) return invalid_argument(which + " must be a number >= 0");
    if (l > 0) {
      const double before = o.rate_values[l - 1];
      const bool lossless_before = o.rate_kind == Kind::kRatio ? before <= 1 : before == 0;
      const bool ordered = o.rate_kind == Kind::kRatio ? v < before : (v > before || v == 0);
      if (lossless_before || !ordered)
        return invalid_argument(which + " is out of order: ratios must decrease, bpp and PSNR increase, "
                                "and only the last layer may be lossless");
    }
    LayerTarget t;
    switch (o.rate_kind) {
      case Kind::kRatio:
        if (v > 1) t = {LayerTarget::Kind::kBytes, std::floor(raw_bits / 8.0 / v)};
        break;
      case Kind::kBitsPerPixel:
        if (v > 0) t = {LayerTarget::Kind::kBytes, std::floor(v * pixels / 8.0)};
        break;
      case Kind::kPsnr:
        if (v > 0) t = {LayerTarget::Kind::kDistortion, peak * peak * std::pow(10.0, -v / 10.0) * samples};
        break;
      case Kind::kNone:
        break;
    }
    targets.push_back(capped(t));
  }
  return targets;
}

// The bytes of each tile-part's header (SOT to SOD) in a codestream written
// without its packet data, whose Psot then counts the header alone (A.4.2).
std::vector<uint32_t> tile_part_header_bytes(std::span<const uint8_t> s) {
  auto u16 = [&](size_t at) -> uint32_t { return at + 2 <= s.size() ? (uint32_t{s[at]} << 8) | s[at + 1] : 0u; };
  size_t at = 2;   // after SOC: the main header's marker segments up to the first SOT
  while (at + 4 <= s.size() && u16(at) != 0xFF90) at += 2 + u16(at + 2);
  std::vector<uint32_t> out;
  while (at + 10 <= s.size() && u16(at) == 0xFF90) {
    const uint32_t psot = (u16(at + 6) << 16) | u16(at + 8);
    if (psot == 0) break;
    out.push_back(psot);
    at += psot;
  }
  return out;
}

// Assembles the file from the tiles' packets of the chosen layers: tile-parts
// divided as asked, packet headers in place or packed into PPM / PPT, the
// tiles' own progression changes in their first tile-part headers.
class FileAssembler {
 public:
  FileAssembler(const MainHeader& main, const EncodeOptions& options, const TileCodingSetup& setup,
                const Jp2Description& jp2, const std::vector<std::unique_ptr<TileEncoder>>& tiles,
                const std::vector<size_t>& first_block, ThreadPool& pool)
      : main_(main), options_(options), jp2_(jp2), tiles_(tiles), first_block_(first_block), pool_(pool) {
    for (const auto& [tile, changes] : setup.tile_progression_changes) overrides_[tile].poc = changes;
  }

  // Bytes of the whole file for these layers, without copying the packet
  // data; the tiles' packets are sized in parallel.
  Result<uint64_t> size(const LayerPasses& layers) const {
    MALLAT_ASSIGN_OR_RETURN(const LayerBytes b, bytes(layers, false));
    return b.file;
  }

  // The file's bytes and, when `per_component`, each component's: its
  // packets, and the whole of every tile-part that holds it alone (the
  // cinema profiles' limit per colour component).
  Result<LayerBytes> bytes(const LayerPasses& layers, bool per_component) const {
    uint64_t left_out = 0;
    LayerBytes b;
    if (per_component) b.component.assign(main_.siz.components.size(), 0);
    MALLAT_ASSIGN_OR_RETURN(const std::vector<uint8_t> stream,
                            assemble(layers, false, &left_out, per_component ? &b.component : nullptr));
    b.file = stream.size() + left_out + container_overhead();
    return b;
  }

  // The file of file(layers) handed to `sink` in pieces, the packets not
  // gathered anywhere: the tile-part headers come from a pass without the
  // data (which gives their lengths), then each tile's packets are made
  // again straight into the sink, each tile-part's header sent where its
  // packets start (encode_streamed.h).
  Status write(const LayerPasses& layers, const FileSink& sink) const {
    uint64_t left_out = 0;
    MALLAT_ASSIGN_OR_RETURN(const Assembly a, gather(layers, false, &left_out, nullptr));
    MALLAT_ASSIGN_OR_RETURN(const CodestreamPieces pieces,
                            codestream_pieces(a.ppm ? a.with_ppm : main_, a.parts, options_.tlm));
    if (in_jp2_boxes()) {
      MALLAT_ASSIGN_OR_RETURN(const std::vector<uint8_t> before, jp2_before_codestream(main_.siz, pieces.total, jp2_));
      MALLAT_RETURN_IF_ERROR(sink(before));
    }
    MALLAT_RETURN_IF_ERROR(sink(pieces.main));
    size_t part = 0;
    for (size_t t = 0; t < tiles_.size(); ++t) {
      // This tile's parts and where each starts in its packet data.
      std::vector<uint64_t> start;
      uint64_t all = 0;
      for (size_t p = part; p < a.parts.size() && a.parts[p].tile == static_cast<int>(t); ++p) {
        start.push_back(all);
        all += a.parts[p].data_bytes;
      }
      uint64_t written = 0;
      size_t next = 0;
      const auto headers_up_to = [&](uint64_t offset) -> Status {
        for (; next < start.size() && start[next] <= offset; ++next)
          MALLAT_RETURN_IF_ERROR(sink(pieces.part_headers[part + next]));
        return Status::Ok();
      };
      const std::function<Status(std::span<const uint8_t>)> data = [&](std::span<const uint8_t> piece) -> Status {
        MALLAT_RETURN_IF_ERROR(headers_up_to(written));
        written += piece.size();
        return sink(piece);
      };
      PacketOutput out{options_.packed_headers != EncodeOptions::PackedHeaders::kNone, nullptr, nullptr, nullptr};
      out.data_sink = &data;
      MALLAT_RETURN_IF_ERROR(tiles_[t]->packets(layers, first_block_[t], out).status());
      MALLAT_RETURN_IF_ERROR(headers_up_to(UINT64_MAX));
      if (written != all) return internal_error("tile " + std::to_string(t) + ": its packets changed between passes");
      part += start.size();
    }
    return sink(pieces.end);
  }

  Result<std::vector<uint8_t>> file(const LayerPasses& layers) const {
    MALLAT_ASSIGN_OR_RETURN(std::vector<uint8_t> stream, assemble(layers, true, nullptr, nullptr));
    if (in_jp2_boxes()) return write_jp2(main_.siz, stream, jp2_);
    return stream;
  }

 private:
  struct TileOutput {
    std::vector<uint8_t> data, headers;
    std::vector<PacketBytes> packets;
  };

  // The codestream; without the packet data unless with_data, whose bytes
  // then go to *left_out; each component's bytes added to *component_bytes
  // when asked (without the data only).
  // The tiles' packets and the tile-parts over them (spans into `out`),
  // with the main header that carries PPM when asked.
  struct Assembly {
    std::vector<TileOutput> out;
    std::vector<TilePartToWrite> parts;
    std::vector<int> part_component;   // the one component a tile-part holds, or -1
    MainHeader with_ppm;
    bool ppm = false;
  };

  Result<std::vector<uint8_t>> assemble(const LayerPasses& layers, bool with_data, uint64_t* left_out,
                                        std::vector<uint64_t>* component_bytes) const {
    MALLAT_ASSIGN_OR_RETURN(Assembly a, gather(layers, with_data, left_out, component_bytes));
    // Without the data, each Psot counts its header alone (A.4.2 as
    // tile_part_header_bytes reads it), not the data written apart.
    for (TilePartToWrite& part : a.parts) part.data_bytes = 0;
    MALLAT_ASSIGN_OR_RETURN(std::vector<uint8_t> stream,
                            write_codestream(a.ppm ? a.with_ppm : main_, a.parts, options_.tlm));
    if (component_bytes && !with_data) {
      const std::vector<uint32_t> headers = tile_part_header_bytes(stream);
      for (size_t i = 0; i < a.part_component.size() && i < headers.size(); ++i)
        if (a.part_component[i] >= 0) (*component_bytes)[a.part_component[i]] += headers[i];
    }
    return stream;
  }

  Result<Assembly> gather(const LayerPasses& layers, bool with_data, uint64_t* left_out,
                          std::vector<uint64_t>* component_bytes) const {
    using Packed = EncodeOptions::PackedHeaders;
    const bool packed = options_.packed_headers != Packed::kNone;
    Assembly a;
    std::vector<TileOutput>& out = a.out;
    out.resize(tiles_.size());
    MALLAT_RETURN_IF_ERROR(pool_.parallel_for_status(static_cast<int64_t>(tiles_.size()), [&](int64_t t) {
      PacketOutput sink{packed, with_data ? &out[t].data : nullptr, &out[t].headers, &out[t].packets};
      return tiles_[t]->packets(layers, first_block_[t], sink).status();
    }));

    std::vector<TilePartToWrite>& parts = a.parts;
    std::vector<int>& part_component = a.part_component;
    std::vector<std::vector<uint8_t>> ppm;
    for (size_t t = 0; t < tiles_.size(); ++t) {
      const std::vector<PacketBytes>& packets = out[t].packets;
      std::vector<PacketId> ids;
      ids.reserve(packets.size());
      for (const PacketBytes& p : packets) ids.push_back(p.id);
      MALLAT_ASSIGN_OR_RETURN(const std::vector<size_t> starts, tile_part_starts(ids, options_.tile_parts));
      const auto own = overrides_.find(static_cast<int>(t));
      size_t data_at = 0, header_at = 0;
      int ppt_index = 0;
      for (size_t i = 0; i < starts.size(); ++i) {
        const size_t end = i + 1 < starts.size() ? starts[i + 1] : packets.size();
        TilePartToWrite part;
        part.tile = static_cast<int>(t);
        part.part = static_cast<int>(i);
        part.num_parts = static_cast<int>(starts.size());
        if (i == 0 && own != overrides_.end()) part.overrides = &own->second;
        size_t data_bytes = 0, header_bytes = 0;
        int only = end > starts[i] ? packets[starts[i]].id.component : -1;
        for (size_t k = starts[i]; k < end; ++k) {
          data_bytes += packets[k].data;
          header_bytes += packets[k].header;
          if (options_.plt) part.plt.push_back(packets[k].data);
          if (packets[k].id.component != only) only = -1;
          if (component_bytes) (*component_bytes)[packets[k].id.component] += packets[k].data + packets[k].header;
        }
        part_component.push_back(only);
        if (with_data) {
          part.data = std::span<const uint8_t>(out[t].data).subspan(data_at, data_bytes);
        } else {
          *left_out += data_bytes;
          part.data_bytes = data_bytes;
        }
        const auto headers = std::span<const uint8_t>(out[t].headers).subspan(header_at, header_bytes);
        if (options_.packed_headers == Packed::kPpt) {
          part.ppt = headers;
          part.ppt_index = ppt_index;
          ppt_index += static_cast<int>(ppt_segments(headers.size()));
        }
        if (options_.packed_headers == Packed::kPpm) ppm.emplace_back(headers.begin(), headers.end());
        data_at += data_bytes;
        header_at += header_bytes;
        parts.push_back(std::move(part));
      }
    }
    if (options_.packed_headers == Packed::kPpm) {
      a.ppm = true;
      a.with_ppm = main_;
      MALLAT_ASSIGN_OR_RETURN(a.with_ppm.ppm, ppm_payloads(ppm));
    }
    return a;
  }

  uint64_t container_overhead() const {
    if (!in_jp2_boxes()) return 0;
    auto empty = write_jp2(main_.siz, {}, jp2_);
    return empty.ok() ? empty->size() : 0;
  }

  const MainHeader& main_;
  const EncodeOptions& options_;
  bool in_jp2_boxes() const {
    return options_.container == Container::kJp2 || options_.container == Container::kJph;
  }

  const Jp2Description& jp2_;
  const std::vector<std::unique_ptr<TileEncoder>>& tiles_;
  const std::vector<size_t>& first_block_;
  ThreadPool& pool_;
  std::map<int, CodingOverrides> overrides_;
};

// -q: the distortion the allocator estimates misses what the 9/7's
// non-orthogonality, the rounding and the clipping to the sample range do
// (a few tenths of a dB at high PSNR). Decode each layer of what was
// written, and where it misses its target by more than 0.03 dB, scale that
// layer's distortion target by the miss and allocate again; twice at most.
Result<std::vector<uint8_t>> meet_psnr_targets(const Image& image, const EncodeOptions& options,
                                               const FileAssembler& assembler,
                                               std::span<const CodeBlockHull> hulls,
                                               std::vector<LayerTarget> targets, double initial,
                                               LayerPasses layers) {
  const std::vector<LayerTarget> wanted = targets;
  const double samples = sample_count(image);
  MALLAT_ASSIGN_OR_RETURN(std::vector<uint8_t> file, assembler.file(layers));
  for (int round = 0; round < 2; ++round) {
    bool changed = false;
    for (size_t l = 0; l < targets.size(); ++l) {
      if (targets[l].kind != LayerTarget::Kind::kDistortion) continue;
      DecodeOptions d;
      d.layers = static_cast<int>(l) + 1;
      d.threads = options.threads;
      d.dwt_backend = options.dwt_backend;
      d.apply_jp2_header = false;  // the components as encoded, whatever the JP2 header says of them
      MALLAT_ASSIGN_OR_RETURN(const Image decoded, decode(file, d));
      MALLAT_ASSIGN_OR_RETURN(const ImageComparison cmp, compare_images(image, decoded));
      const double real = cmp.overall.mse * samples;
      if (real <= 0) continue;
      if (std::fabs(10.0 * std::log10(real / wanted[l].value)) > 0.03) {
        targets[l].value *= wanted[l].value / real;
        changed = true;
      }
    }
    if (!changed) break;
    MALLAT_ASSIGN_OR_RETURN(layers, allocate_layers(hulls, targets, initial, [&](const LayerPasses& p) {
      return assembler.size(p);
    }));
    MALLAT_ASSIGN_OR_RETURN(file, assembler.file(layers));
  }
  return file;
}

}  // namespace

Result<std::shared_ptr<entropy::BlockEncoder>> block_encoder_for(const CallResources& resources,
                                                                 const dwt::Backend& backend) {
  if (resources.block_encoder) return resources.block_encoder;
  if (backend.name().rfind("cuda", 0) != 0) return std::shared_ptr<entropy::BlockEncoder>();
  // The CUDA DWT has started the device already: the call waits for the
  // coder's start rather than coding its blocks on the CPU alone.
  entropy::DeviceCoderOptions coder;
  coder.wait_for_device = true;
  MALLAT_ASSIGN_OR_RETURN(std::unique_ptr<entropy::BlockEncoder> made, entropy::make_device_block_encoder(coder));
  return std::shared_ptr<entropy::BlockEncoder>(std::move(made));
}

Result<std::vector<uint8_t>> encode_tiles(const Image& image, const EncodeOptions& given,
                                          const CallResources& resources, EncodeReport* report,
                                          const TileCoding& coding) {
  MALLAT_ASSIGN_OR_RETURN(const GridSize grid, check_image(image, given, coding.with_samples));
  // A profile's parameters that depend on the image, and its checks.
  MALLAT_ASSIGN_OR_RETURN(const EncodeOptions options, resolve_profile(image, given));
  if (!coding.with_samples && options.rate_kind == EncodeOptions::RateKind::kPsnr)
    return unsupported("PSNR targets (-q) decode what was written and compare it with the whole image");
  MALLAT_ASSIGN_OR_RETURN(MainHeader main, main_header_for(image, grid, options, report));
  MALLAT_ASSIGN_OR_RETURN(const std::vector<LayerTarget> targets, layer_targets(image, grid, options));
  MALLAT_ASSIGN_OR_RETURN(TileCodingSetup setup, coding_setup(image, main, options));
  setup.stage_times = resources.stage_times;
  MALLAT_ASSIGN_OR_RETURN(const std::shared_ptr<dwt::Backend> backend,
                          dwt::given_or_made_backend(resources.dwt, options.dwt_backend, options.threads));
  MALLAT_ASSIGN_OR_RETURN(const std::shared_ptr<entropy::BlockEncoder> part1_coder,
                          block_encoder_for(resources, *backend));
  setup.part1_coder = part1_coder.get();
  setup.device_tiles = resources.device_tiles.get();
  std::optional<ThreadPool> own_pool;
  if (!resources.pool) own_pool.emplace(options.threads);
  ThreadPool& pool = resources.pool ? *resources.pool : *own_pool;
  const int count = static_cast<int>(main.siz.tiles_x() * main.siz.tiles_y());
  const bool every_pass = options.max_component_bytes == 0 &&
                          std::all_of(targets.begin(), targets.end(), [](const LayerTarget& t) {
                            return t.kind == LayerTarget::Kind::kEverything;
                          });
  // When every pass is sent the allocator reads no pass table, so a
  // streamed encode may keep its coded blocks on disk (coded_spill.h).
  CodedSpill spill;
  if (coding.sink && every_pass && !setup.distortions && !setup.ht_candidates) {
    setup.spill = &spill;
    setup.spill_budget = options.coded_memory_budget;
  }

  // Every tile is transformed and Tier-1 coded first, so the allocator sees
  // all code-blocks of the image at once.
  std::vector<std::unique_ptr<TileEncoder>> tiles;
  std::vector<size_t> first_block;
  size_t blocks = 0;
  for (int t = 0; t < count; ++t) {
    tiles.push_back(std::make_unique<TileEncoder>(setup, pool, *backend));
    MALLAT_RETURN_IF_ERROR(coding.code(*tiles.back(), t, count));
    first_block.push_back(blocks);
    blocks += tiles.back()->blocks().size();
  }
  Jp2Description jp2 = describe_for_jp2(image);
  if (options.container == Container::kJph) jp2.brand = box::kBrandJph;
  FileAssembler assembler(main, options, setup, jp2, tiles, first_block, pool);

  LayerPasses layers;
  if (every_pass) {
    std::vector<int> all;
    for (const auto& tile : tiles)
      for (const CodedBlock& b : tile->blocks()) all.push_back(b.coded.num_passes);
    layers.assign(targets.size(), all);
  } else {
    std::vector<CodeBlockHull> hulls;
    hulls.reserve(blocks);
    // The decoded image is rounded to integers: about 1/12 of a squared
    // sample value more per sample on the irreversible path.
    double initial = main.cod.component.reversible ? 0.0 : sample_count(image) / 12.0;
    for (const auto& tile : tiles) {
      for (const CodedBlock& b : tile->blocks()) {
        hulls.push_back(convex_hull(b.truncation_points(), b.weight));
        initial += b.initial_distortion;
      }
    }
    StageClock clock(stage_sink(resources.stage_times, &StageTimes::rate_allocation_ms), "pcrd");
    ComponentCaps caps;
    if (options.max_component_bytes > 0) {
      caps.max_bytes.assign(image.num_components(), static_cast<double>(options.max_component_bytes));
      for (const auto& tile : tiles)
        for (size_t slot = 0; slot < tile->blocks().size(); ++slot)
          caps.block_component.push_back(tile->component_of(slot));
    }
    auto bytes_of = [&](const LayerPasses& l) { return assembler.bytes(l, !caps.max_bytes.empty()); };
    MALLAT_ASSIGN_OR_RETURN(layers, allocate_layers(hulls, targets, initial, bytes_of, caps));
    if (options.rate_kind == EncodeOptions::RateKind::kPsnr) {
      return meet_psnr_targets(image, options, assembler, hulls, targets, initial, layers);
    }
  }
  StageClock clock(stage_sink(resources.stage_times, &StageTimes::tier2_ms), "tier2");
  if (coding.sink) {
    MALLAT_RETURN_IF_ERROR(assembler.write(layers, *coding.sink));
    if (report) {
      report->spilled_blocks = spill.blocks();
      report->spilled_bytes = spill.bytes();
    }
    return std::vector<uint8_t>();
  }
  return assembler.file(layers);
}

Result<std::vector<uint8_t>> encode(const Image& image, const EncodeOptions& given, const CallResources& resources,
                                    EncodeReport* report) {
  TileCoding coding;
  coding.code = [](TileEncoder& tile, int index, int) { return tile.code(index); };
  MALLAT_ASSIGN_OR_RETURN(const bool search, step_search_wanted(given));
  if (search) {
    return encode_searching_steps(image, given, resources, [&](const EncodeOptions& o, bool first) {
      return encode_tiles(image, o, resources, first ? report : nullptr, coding);
    });
  }
  return encode_tiles(image, given, resources, report, coding);
}

Result<std::vector<uint8_t>> encode(const Image& image, const EncodeOptions& options, EncodeReport* report) {
  CallResources resources;
  if (options.time_stages && report) resources.stage_times = &report->stage_times;
  return encode(image, options, resources, report);
}

}  // namespace mallat::codec

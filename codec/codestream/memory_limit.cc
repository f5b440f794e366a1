#include "codec/codestream/memory_limit.h"

#include <algorithm>
#include <string>

#include "dwt/geometry.h"

namespace mallat::codec {

namespace {

// Saturating arithmetic: a hostile header must not wrap the bound around.
constexpr uint64_t kMax = UINT64_MAX;
uint64_t add(uint64_t a, uint64_t b) { return a > kMax - b ? kMax : a + b; }
uint64_t mul(uint64_t a, uint64_t b) { return a != 0 && b > kMax / a ? kMax : a * b; }

// Bytes per item the decoder keeps, rounded up from the structures in
// tile_geometry.h, packet_header.h and decoder.cc (with vector overheads):
// the bound must stay above the real use, not match it.
constexpr uint64_t kBytesPerSample = 12;      // int32 plane + float plane + known bit-plane
constexpr uint64_t kBytesPerCodeBlock = 256;  // geometry, Tier-2 state, segment lengths
constexpr uint64_t kBytesPerPrecinct = 512;   // bands, tag trees, packet coder
constexpr uint64_t kBytesPerPacket = 32;      // the progression's packet sequence

// The most demanding coding parameters of one component over the main
// header and every tile-part header: most levels, smallest code-blocks and
// precincts. Bounded work: one pass over the markers the stream carries.
struct Worst {
  int levels = 0;
  int xcb = 10, ycb = 10;
  int ppx = 15, ppy = 15;
  int largest_xcb = 0, largest_ycb = 0;  // a region's margin: one code-block of these each side
};

void take(Worst& w, const ComponentCoding& c) {
  w.levels = std::max(w.levels, c.levels);
  w.xcb = std::min(w.xcb, c.xcb);
  w.ycb = std::min(w.ycb, c.ycb);
  w.largest_xcb = std::max(w.largest_xcb, c.xcb);
  w.largest_ycb = std::max(w.largest_ycb, c.ycb);
  for (const auto& pp : c.precinct_exponents) {
    w.ppx = std::min<int>(w.ppx, pp[0]);
    w.ppy = std::min<int>(w.ppy, pp[1]);
  }
}

// Precincts or code-blocks covering `length` samples at `exponent`, plus one
// for a grid that does not start on a multiple (B-16).
uint64_t cells(uint64_t length, int exponent) {
  return length == 0 ? 0 : ((length + (uint64_t{1} << exponent) - 1) >> exponent) + 1;
}

// Samples of the working planes a region decode of one tile-component of
// cw x ch holds, the region being rw x rh of it: at each level its window
// (B-14 scaling) widened by a code-block and the 9/7's 4-sample margin each
// side, clipped to the level's size; four such per level (three subbands'
// buffers and the DWT's window of the level below).
uint64_t region_plane_samples(uint64_t cw, uint64_t ch, uint64_t rw, uint64_t rh, const Worst& w) {
  uint64_t samples = 0;
  for (int l = 0; l <= w.levels; ++l) {
    const uint64_t mx = 2 * ((uint64_t{1} << w.largest_xcb) + 8), my = 2 * ((uint64_t{1} << w.largest_ycb) + 8);
    const uint64_t ww = std::min<uint64_t>(dwt::ceil_div_pow2(cw, l) + 1, dwt::ceil_div_pow2(rw, l) + mx);
    const uint64_t wh = std::min<uint64_t>(dwt::ceil_div_pow2(ch, l) + 1, dwt::ceil_div_pow2(rh, l) + my);
    samples = add(samples, mul(mul(ww, wh), 4));
  }
  return std::min(samples, mul(cw, ch));
}

}  // namespace

uint64_t estimate_decoder_memory(const Codestream& cs, int reduce, uint64_t stream_bytes,
                                 const std::optional<dwt::Rect>& region) {
  const ImageAndTileSize& siz = cs.main.siz;
  const size_t nc = siz.components.size();

  // Worst parameters per component, and the most layers any header sets.
  Worst common;
  take(common, cs.main.cod.component);
  int layers = cs.main.cod.layers;
  std::vector<Worst> worst(nc, common);
  for (const auto& [c, coc] : cs.main.coc)
    if (c >= 0 && static_cast<size_t>(c) < nc) take(worst[c], coc);
  for (const Tile& tile : cs.tiles) {
    const CodingOverrides& o = tile.overrides;
    if (o.cod) {
      layers = std::max(layers, o.cod->layers);
      for (Worst& w : worst) take(w, o.cod->component);
    }
    for (const auto& [c, coc] : o.coc)
      if (c >= 0 && static_cast<size_t>(c) < nc) take(worst[c], coc);
  }

  // The output image at the reduced resolution: the region's part of it
  // when one is asked for (at most the image).
  uint64_t output = 0;
  const uint64_t width = siz.xsiz - siz.xosiz, height = siz.ysiz - siz.yosiz;
  uint64_t region_w = width, region_h = height;
  if (region && region->x1 > region->x0 && region->y1 > region->y0) {
    region_w = std::min<uint64_t>(width, static_cast<uint64_t>(region->x1 - region->x0));
    region_h = std::min<uint64_t>(height, static_cast<uint64_t>(region->y1 - region->y0));
  }
  for (const ComponentSize& c : siz.components) {
    // +1: a region that does not start on a multiple of the sub-sampling.
    const uint64_t w = dwt::ceil_div_pow2((region_w + c.dx - 1) / c.dx + 1, reduce) + 1;
    const uint64_t h = dwt::ceil_div_pow2((region_h + c.dy - 1) / c.dy + 1, reduce) + 1;
    output = add(output, mul(mul(w, h), 4));
  }

  // The largest tile: the nominal tile size, clipped to the image.
  const uint64_t tw = std::min<uint64_t>(siz.xtsiz, width), th = std::min<uint64_t>(siz.ytsiz, height);
  uint64_t tile = 0;
  for (size_t c = 0; c < nc; ++c) {
    const Worst& w = worst[c];
    const uint64_t cw = (tw + siz.components[c].dx - 1) / siz.components[c].dx + 1;
    const uint64_t ch = (th + siz.components[c].dy - 1) / siz.components[c].dy + 1;
    const uint64_t plane_samples =
        region ? region_plane_samples(cw, ch, (region_w + siz.components[c].dx - 1) / siz.components[c].dx + 1,
                                      (region_h + siz.components[c].dy - 1) / siz.components[c].dy + 1, w)
               : mul(cw, ch);
    tile = add(tile, mul(plane_samples, kBytesPerSample));
    uint64_t precincts = 0, blocks = 0;
    for (int r = 0; r <= w.levels; ++r) {
      // B-14: a resolution is 2^(levels - r) times smaller than the tile.
      const uint64_t rw = dwt::ceil_div_pow2(cw, w.levels - r), rh = dwt::ceil_div_pow2(ch, w.levels - r);
      const uint64_t pw = cells(rw, w.ppx), ph = cells(rh, w.ppy);
      precincts = add(precincts, mul(pw, ph));
      // B.7: code-blocks no larger than half a precinct above resolution 0.
      const int xcb = r > 0 ? std::min(w.xcb, std::max(w.ppx - 1, 0)) : std::min(w.xcb, w.ppx);
      const int ycb = r > 0 ? std::min(w.ycb, std::max(w.ppy - 1, 0)) : std::min(w.ycb, w.ppy);
      const uint64_t bw = r > 0 ? (rw + 1) / 2 : rw, bh = r > 0 ? (rh + 1) / 2 : rh;
      const uint64_t per_band = mul(cells(bw, xcb) + pw, cells(bh, ycb) + ph);
      blocks = add(blocks, mul(per_band, r > 0 ? 3 : 1));
    }
    tile = add(tile, mul(blocks, kBytesPerCodeBlock));
    tile = add(tile, mul(precincts, kBytesPerPrecinct));
    tile = add(tile, mul(mul(precincts, static_cast<uint64_t>(std::max(layers, 1))), kBytesPerPacket));
  }
  // The packet data is copied once into each tile's buffer and once into its
  // code-blocks: two copies of every byte of the stream. Packed headers are
  // not copied into code-blocks, but those of PPM are held three times: the
  // main header's payloads, each tile-part's share of them (A.7.4; the reader
  // splits them before this check, into no more bytes than the payloads) and
  // the tile's joined headers in the decoder. So one copy more of those.
  uint64_t ppm_bytes = 0;
  for (const auto& payload : cs.main.ppm) ppm_bytes = add(ppm_bytes, payload.size());
  return add(add(output, tile), add(mul(stream_bytes, 2), ppm_bytes));
}

Status check_decoder_memory(const Codestream& cs, int reduce, uint64_t stream_bytes, uint64_t limit,
                            const std::optional<dwt::Rect>& region) {
  if (limit == 0) limit = default_memory_limit();
  const uint64_t need = estimate_decoder_memory(cs, reduce, stream_bytes, region);
  if (need <= limit) return Status::Ok();
  auto mib = [](uint64_t b) { return std::to_string((b + (1 << 20) - 1) >> 20) + " MiB"; };
  return resource_limit("decoding needs up to " + (need == kMax ? std::string("more than 2^64 bytes") : mib(need)) +
                        ", above the memory limit of " + mib(limit) + " (set it with --max-memory)");
}

}  // namespace mallat::codec

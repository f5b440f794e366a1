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
};

void take(Worst& w, const ComponentCoding& c) {
  w.levels = std::max(w.levels, c.levels);
  w.xcb = std::min(w.xcb, c.xcb);
  w.ycb = std::min(w.ycb, c.ycb);
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

}  // namespace

uint64_t estimate_decoder_memory(const Codestream& cs, int reduce, uint64_t stream_bytes) {
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

  // The output image at the reduced resolution.
  uint64_t output = 0;
  const uint64_t width = siz.xsiz - siz.xosiz, height = siz.ysiz - siz.yosiz;
  for (const ComponentSize& c : siz.components) {
    const uint64_t w = dwt::ceil_div_pow2((width + c.dx - 1) / c.dx, reduce) + 1;
    const uint64_t h = dwt::ceil_div_pow2((height + c.dy - 1) / c.dy, reduce) + 1;
    output = add(output, mul(mul(w, h), 4));
  }

  // The largest tile: the nominal tile size, clipped to the image.
  const uint64_t tw = std::min<uint64_t>(siz.xtsiz, width), th = std::min<uint64_t>(siz.ytsiz, height);
  uint64_t tile = 0;
  for (size_t c = 0; c < nc; ++c) {
    const Worst& w = worst[c];
    const uint64_t cw = (tw + siz.components[c].dx - 1) / siz.components[c].dx + 1;
    const uint64_t ch = (th + siz.components[c].dy - 1) / siz.components[c].dy + 1;
    tile = add(tile, mul(mul(cw, ch), kBytesPerSample));
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

Status check_decoder_memory(const Codestream& cs, int reduce, uint64_t stream_bytes, uint64_t limit) {
  if (limit == 0) limit = default_memory_limit();
  const uint64_t need = estimate_decoder_memory(cs, reduce, stream_bytes);
  if (need <= limit) return Status::Ok();
  auto mib = [](uint64_t b) { return std::to_string((b + (1 << 20) - 1) >> 20) + " MiB"; };
  return resource_limit("decoding needs up to " + (need == kMax ? std::string("more than 2^64 bytes") : mib(need)) +
                        ", above the memory limit of " + mib(limit) + " (set it with --max-memory)");
}

}  // namespace mallat::codec

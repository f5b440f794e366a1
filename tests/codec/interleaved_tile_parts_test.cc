// Tile-parts of different tiles interleaved in the codestream (A.4.2 allows
// any order that keeps each tile's own tile-parts in TPsot order), with the
// packet headers in the packet data, in PPT (A.7.5) or in PPM (A.7.4, where
// the headers follow the order of the tile-parts in the codestream). The
// streams are mallat's own, with the tile-parts moved: each decodes to the
// same samples as the stream in tile order.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "codec/codec.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/codestream/marker_writer.h"
#include "codec/codestream/markers.h"
#include "tests/interop/generated.h"

namespace mallat::codec {
namespace {

using Packed = EncodeOptions::PackedHeaders;
using PartId = std::pair<int, int>;  // (Isot, TPsot)

// A codestream taken apart: the main header without TLM and PPM, the packed
// headers of PPM per tile-part, and the tile-parts (SOT to the end of their
// data; Psot is their length, so each moves whole).
struct Pieces {
  std::vector<uint8_t> main;
  std::map<PartId, std::vector<uint8_t>> ppm;
  std::map<PartId, std::vector<uint8_t>> parts;
  std::vector<PartId> order;  // as they appear in the stream
};

uint16_t be16(std::span<const uint8_t> s, size_t at) { return static_cast<uint16_t>(s[at] << 8 | s[at + 1]); }

Pieces take_apart(std::span<const uint8_t> stream) {
  Pieces p;
  auto cs = parse_codestream(stream);
  EXPECT_TRUE(cs.ok()) << cs.status().to_string();
  if (!cs.ok()) return p;
  // SOC, then every main header segment but TLM (its lengths would be in the
  // old order: dropped) and PPM (rewritten for the new order).
  p.main.assign(stream.begin(), stream.begin() + 2);
  for (size_t at = 2; at < cs->main.end_offset;) {
    const uint16_t code = be16(stream, at);
    const size_t end = at + 2 + be16(stream, at + 2);
    if (code != marker::kTLM && code != marker::kPPM) p.main.insert(p.main.end(), stream.begin() + at, stream.begin() + end);
    at = end;
  }
  std::vector<const TilePartHeader*> parts;
  for (const Tile& t : cs->tiles)
    for (const TilePartHeader& h : t.parts) parts.push_back(&h);
  std::sort(parts.begin(), parts.end(), [](auto* a, auto* b) { return a->sot_offset < b->sot_offset; });
  auto ppm = ppm_tile_part_headers(cs->main);
  EXPECT_TRUE(ppm.ok()) << ppm.status().to_string();
  for (size_t k = 0; k < parts.size(); ++k) {
    const TilePartHeader& h = *parts[k];
    const PartId id{h.tile, h.part};
    EXPECT_NE(h.psot, 0u);
    p.parts[id].assign(stream.begin() + h.sot_offset, stream.begin() + h.data_offset + h.data_length);
    if (ppm.ok() && !cs->main.ppm.empty()) p.ppm[id] = k < ppm->size() ? (*ppm)[k] : std::vector<uint8_t>{};
    p.order.push_back(id);
  }
  return p;
}

// The stream with its tile-parts in `order`, and PPM (if it had one) holding
// their packed headers in that order (A.7.4), less the last `drop` of them,
// then `extra` as a PPM payload of its own.
std::vector<uint8_t> put_together(const Pieces& p, const std::vector<PartId>& order, size_t drop = 0,
                                  const std::vector<uint8_t>& extra = {}) {
  std::vector<uint8_t> out = p.main;
  if (!p.ppm.empty()) {
    std::vector<std::vector<uint8_t>> headers;
    for (const PartId& id : order) headers.push_back(p.ppm.at(id));
    headers.resize(headers.size() - drop);
    auto payloads = ppm_payloads(headers);
    EXPECT_TRUE(payloads.ok()) << payloads.status().to_string();
    if (payloads.ok() && !extra.empty()) payloads->push_back(extra);
    for (size_t z = 0; payloads.ok() && z < payloads->size(); ++z) {
      const std::vector<uint8_t>& b = (*payloads)[z];
      const size_t len = b.size() + 3;  // Lppm, Zppm
      out.insert(out.end(), {0xFF, 0x60, static_cast<uint8_t>(len >> 8), static_cast<uint8_t>(len),
                             static_cast<uint8_t>(z)});
      out.insert(out.end(), b.begin(), b.end());
    }
  }
  for (const PartId& id : order) out.insert(out.end(), p.parts.at(id).begin(), p.parts.at(id).end());
  out.insert(out.end(), {0xFF, 0xD9});
  return out;
}

// Tile order: every tile-part of tile 0, then of tile 1, ...
std::vector<PartId> tile_order(std::vector<PartId> ids) {
  std::sort(ids.begin(), ids.end());
  return ids;
}

// Part 0 of every tile, then part 1 of every tile, ...: t0p0 t1p0 t0p1 t1p1.
std::vector<PartId> round_robin(std::vector<PartId> ids) {
  std::sort(ids.begin(), ids.end(), [](const PartId& a, const PartId& b) {
    return std::pair(a.second, a.first) < std::pair(b.second, b.first);
  });
  return ids;
}

// Each next tile-part from a tile drawn at random (each tile's own in
// TPsot order), the last tile first where they tie.
std::vector<PartId> shuffled(const std::vector<PartId>& ids, uint32_t seed) {
  std::map<int, std::vector<PartId>> left;
  for (const PartId& id : tile_order(ids)) left[id.first].push_back(id);
  for (auto& [t, q] : left) std::reverse(q.begin(), q.end());
  std::mt19937 rng(seed);
  std::vector<PartId> out;
  while (!left.empty()) {
    auto it = std::next(left.begin(), static_cast<long>(rng() % left.size()));
    out.push_back(it->second.back());
    it->second.pop_back();
    if (it->second.empty()) left.erase(it);
  }
  return out;
}

bool interleaves(const std::vector<PartId>& order) {
  for (size_t k = 1; k < order.size(); ++k)
    if (order[k].first < order[k - 1].first) return true;
  return false;
}

std::vector<uint8_t> encoded(const Image& image, TilePartDivision tp, Packed packed, bool layers, bool tlm) {
  EncodeOptions o;
  o.tile_width = 64;
  o.tile_height = 48;
  o.resolutions = 4;
  o.tile_parts = tp;
  o.packed_headers = packed;
  o.tlm = tlm;
  if (layers) {  // the last layer lossless (a ratio of 1)
    o.rate_kind = EncodeOptions::RateKind::kRatio;
    o.rate_values = {30, 8, 1};
  }
  auto bytes = encode(image, o);
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

void expect_same_samples(const Image& a, const Image& b) {
  ASSERT_EQ(a.components.size(), b.components.size());
  for (size_t c = 0; c < a.components.size(); ++c) {
    EXPECT_EQ(a.components[c].width, b.components[c].width);
    EXPECT_EQ(a.components[c].height, b.components[c].height);
    EXPECT_TRUE(a.components[c].samples == b.components[c].samples) << "component " << c;
  }
}

struct Case {
  const char* name;
  TilePartDivision tp;
  Packed packed;
  bool layers;
  bool tlm;
};

class InterleavedTileParts : public ::testing::TestWithParam<Case> {};

TEST_P(InterleavedTileParts, DecodeAsInTileOrder) {
  const Case& c = GetParam();
  // 150 x 110 in 64 x 48 tiles: 3 x 3 tiles, those on the right and bottom
  // edges smaller.
  const Image image = testing::generated_image(150, 110, 3, 8, false, 21);
  const std::vector<uint8_t> original = encoded(image, c.tp, c.packed, c.layers, c.tlm);
  ASSERT_FALSE(original.empty());
  const Pieces pieces = take_apart(original);
  ASSERT_EQ(pieces.order, tile_order(pieces.order));  // the encoder writes tile order
  ASSERT_GT(pieces.order.size(), 9u * 2);
  ASSERT_EQ(pieces.ppm.empty(), c.packed != Packed::kPpm);

  auto reference = decode(original, {});
  ASSERT_TRUE(reference.ok()) << reference.status().to_string();
  expect_same_samples(*reference, image);  // lossless
  const std::vector<uint8_t> in_tile_order = put_together(pieces, tile_order(pieces.order));
  auto rebuilt = decode(in_tile_order, {});
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().to_string();
  expect_same_samples(*rebuilt, *reference);

  for (const auto& [what, order] : {std::pair{"round robin", round_robin(pieces.order)},
                                    std::pair{"shuffled", shuffled(pieces.order, 7)},
                                    std::pair{"shuffled again", shuffled(pieces.order, 8)}}) {
    SCOPED_TRACE(what);
    ASSERT_TRUE(interleaves(order));
    const std::vector<uint8_t> stream = put_together(pieces, order);
    ASSERT_EQ(stream.size(), in_tile_order.size());
    DecodeReport report;
    auto image_back = decode(stream, {}, &report);
    ASSERT_TRUE(image_back.ok()) << image_back.status().to_string();
    EXPECT_TRUE(report.warnings.empty()) << report.warnings.front();
    expect_same_samples(*image_back, *reference);
  }
}

INSTANTIATE_TEST_SUITE_P(
    PackedHeaders, InterleavedTileParts,
    ::testing::Values(Case{"InData_TpR", TilePartDivision::kResolution, Packed::kNone, false, false},
                      Case{"InData_TpL_Tlm", TilePartDivision::kLayer, Packed::kNone, true, true},
                      Case{"Ppt_TpR", TilePartDivision::kResolution, Packed::kPpt, false, false},
                      Case{"Ppt_TpL", TilePartDivision::kLayer, Packed::kPpt, true, true},
                      Case{"Ppm_TpR", TilePartDivision::kResolution, Packed::kPpm, false, false},
                      Case{"Ppm_TpL_Tlm", TilePartDivision::kLayer, Packed::kPpm, true, true}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// The reader splits the PPM once for the stream: each tile-part holds its
// own packed headers, the pair of PPM that its place in the codestream gives
// it, not that of its place in tile order.
TEST(PpmInCodestreamOrder, EachTilePartHoldsItsOwnHeaders) {
  const Image image = testing::generated_image(150, 110, 1, 8, false, 22);
  const Pieces pieces = take_apart(encoded(image, TilePartDivision::kResolution, Packed::kPpm, false, false));
  ASSERT_EQ(pieces.ppm.size(), pieces.order.size());
  for (const auto& order : {tile_order(pieces.order), round_robin(pieces.order), shuffled(pieces.order, 9)}) {
    const std::vector<uint8_t> stream = put_together(pieces, order);
    auto cs = parse_codestream(stream);
    ASSERT_TRUE(cs.ok()) << cs.status().to_string();
    EXPECT_TRUE(cs->warnings.empty()) << cs->warnings.front();
    auto split = ppm_tile_part_headers(cs->main);
    ASSERT_TRUE(split.ok()) << split.status().to_string();
    ASSERT_EQ(split->size(), order.size());
    std::vector<const TilePartHeader*> in_stream;
    for (const Tile& t : cs->tiles) {
      for (const TilePartHeader& h : t.parts) {
        // Its own headers, whatever the order.
        EXPECT_EQ(h.ppm, pieces.ppm.at({h.tile, h.part})) << "tile " << h.tile << " part " << h.part;
        EXPECT_TRUE(h.ppt.empty());
        in_stream.push_back(&h);
      }
    }
    // And the k-th pair of the PPM belongs to the k-th tile-part in the stream.
    std::sort(in_stream.begin(), in_stream.end(), [](auto* a, auto* b) { return a->sot_offset < b->sot_offset; });
    ASSERT_EQ(in_stream.size(), split->size());
    for (size_t k = 0; k < in_stream.size(); ++k) {
      EXPECT_EQ(PartId(in_stream[k]->tile, in_stream[k]->part), order[k]);
      EXPECT_EQ(in_stream[k]->ppm, (*split)[k]) << k;
    }
  }
}

// A PPM with fewer pairs than the stream has tile-parts: those beyond the
// last pair get no headers (the decode reports their packets missing); a
// malformed Nppm, even beyond the last tile-part, is an error.
TEST(PpmInCodestreamOrder, ShortOrMalformed) {
  const Image image = testing::generated_image(150, 110, 1, 8, false, 23);
  const Pieces pieces = take_apart(encoded(image, TilePartDivision::kResolution, Packed::kPpm, false, false));
  const std::vector<PartId> order = round_robin(pieces.order);

  const std::vector<uint8_t> short_ppm = put_together(pieces, order, 2);
  auto cs = parse_codestream(short_ppm);
  ASSERT_TRUE(cs.ok()) << cs.status().to_string();
  ASSERT_EQ(cs->warnings.size(), 1u);
  EXPECT_NE(cs->warnings[0].find("PPM has no packed headers for the last 2 tile-part(s)"), std::string::npos)
      << cs->warnings[0];
  for (size_t k = order.size() - 2; k < order.size(); ++k)
    EXPECT_TRUE(cs->tiles[order[k].first].parts[order[k].second].ppm.empty());
  DecodeReport report;
  EXPECT_TRUE(decode(short_ppm, {}, &report).ok());
  EXPECT_GT(report.warnings.size(), 1u);

  // Nppm 1000 with nothing after it.
  const std::vector<uint8_t> bad = put_together(pieces, order, 0, {0, 0, 0x03, 0xE8});
  auto bad_cs = parse_codestream(bad);
  ASSERT_FALSE(bad_cs.ok());
  EXPECT_EQ(bad_cs.status().code(), ErrorCode::kCorruptData);
  EXPECT_NE(bad_cs.status().message().find("Nppm 1000 runs past the packed headers"), std::string::npos)
      << bad_cs.status().message();
  EXPECT_FALSE(decode(bad, {}).ok());
}

}  // namespace
}  // namespace mallat::codec

// Tier-2 read in two steps (tile_packets.h: open_tile_packets, its
// precincts made on a pool, then read_opened_packets telling how many
// packets are read), as the streamed decoder reads a tile's packets beside
// its first code-blocks: each
// precinct's code-blocks, when all its packets are announced read, hold
// what read_tile_packets gives them, and never change after; the same at the
// end and the same warnings, on whole, cut and damaged streams, over the
// progression orders, layers, precincts, PLT and both block coders. Then
// the streamed decode with its packets read ahead (a pool of several
// threads, blocks decoded ahead) on cut and damaged streams: decode()'s
// samples and warnings, or its error and no rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "codec/api/decode_streamed.h"
#include "codec/codec.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/codestream/effective_params.h"
#include "codec/tier2/tile_geometry.h"
#include "codec/tier2/tile_packets.h"
#include "common/thread_pool.h"
#include "tests/codec/encode_streamed_rows.h"

namespace mallat::codec {
namespace {

struct Case {
  std::string name;
  EncodeOptions encode;
};

std::vector<Case> cases() {
  std::vector<Case> v;
  for (ProgressionOrder order : {ProgressionOrder::kLRCP, ProgressionOrder::kRLCP, ProgressionOrder::kRPCL,
                                 ProgressionOrder::kPCRL, ProgressionOrder::kCPRL}) {
    for (bool ht : {false, true}) {
      Case c;
      c.name = std::string("order ") + std::to_string(static_cast<int>(order)) + (ht ? " HT" : " Part 1");
      c.encode.order = order;
      c.encode.style.ht = ht;
      c.encode.threads = 2;
      c.encode.precincts = {{6, 6}, {5, 5}};
      c.encode.xcb = c.encode.ycb = 4;
      if (!ht) {  // layers, which the HT encoder writes one of
        c.encode.rate_kind = EncodeOptions::RateKind::kRatio;
        c.encode.rate_values = {30, 8, 1};
        c.encode.plt = order == ProgressionOrder::kRPCL;
      }
      v.push_back(std::move(c));
    }
  }
  return v;
}

bool same_segments(const CodeBlockSegments& a, const CodeBlockSegments& b) {
  if (a.passes != b.passes || a.zero_bitplanes != b.zero_bitplanes || a.ht != b.ht) return false;
  if (!std::equal(a.segment_lengths.begin(), a.segment_lengths.end(), b.segment_lengths.begin(),
                  b.segment_lengths.end()))
    return false;
  if (!std::equal(a.passes_by_layer.begin(), a.passes_by_layer.end(), b.passes_by_layer.begin(),
                  b.passes_by_layer.end()))
    return false;
  return std::equal(a.pieces.begin(), a.pieces.end(), b.pieces.begin(), b.pieces.end(),
                    [](std::span<const uint8_t> x, std::span<const uint8_t> y) {
                      return x.data() == y.data() && x.size() == y.size();
                    });
}

// Reads tile 0 of `stream` both ways and compares them (see the file's head).
void expect_two_steps_read_alike(std::span<const uint8_t> stream, int decode_layers, const std::string& name,
                                 bool want_some) {
  auto cs = parse_codestream(stream, ParseLimits{});
  if (!cs.ok() || cs->tiles.empty() || cs->tiles[0].parts.empty()) return;  // nothing to read
  const Tile& tile = cs->tiles[0];
  auto params = tile_coding_parameters(cs->main, &tile.overrides, 0, nullptr);
  ASSERT_TRUE(params.ok()) << name;
  auto layout = build_tile_layout(cs->main.siz, 0, params->components);
  ASSERT_TRUE(layout.ok()) << name;
  const int layers = std::min(decode_layers, params->style.layers);
  auto describe = [](size_t n, size_t pos) { return "packet " + std::to_string(n) + " at " + std::to_string(pos); };
  // Some precincts unwanted (those of resolution 1): with PLT their packets
  // are stepped over, and nothing is told until the end.
  std::function<bool(const PacketId&)> wanted;
  if (want_some) wanted = [](const PacketId& id) { return id.resolution != 1; };

  TilePackets whole;
  std::vector<std::string> whole_warnings;
  ASSERT_TRUE(read_tile_packets(cs->main, tile, stream, *params, *layout, layers, describe, whole, whole_warnings,
                                wanted)
                  .ok())
      << name;

  // Its precincts made on a pool, the whole read's on this thread.
  ThreadPool pool(3);
  TilePackets two;
  ASSERT_TRUE(open_tile_packets(cs->main, tile, stream, *params, *layout, two, &pool).ok()) << name;
  ASSERT_EQ(two.precincts.code_blocks(), whole.segments.size()) << name;
  std::vector<size_t> last(two.precincts.precincts(), SIZE_MAX);  // none named: final at the end
  for (size_t n = 0; n < two.sequence.size(); ++n) {
    const PacketId& id = two.sequence[n];
    last[two.precincts.precinct_index(id.component, id.resolution, id.precinct)] = n + 1;
  }
  std::vector<bool> final_seen(two.precincts.code_blocks(), false);
  size_t told = 0;
  std::vector<std::string> warnings;
  auto check_final = [&](size_t packets) {
    for (size_t slot = 0; slot < final_seen.size(); ++slot) {
      const CodeBlockPlace& at = two.precincts.place(slot);
      if (last[two.precincts.precinct_index(at.component, at.resolution, at.precinct)] > packets) continue;
      final_seen[slot] = true;
      ASSERT_TRUE(same_segments(two.segments[slot], whole.segments[slot]))
          << name << ": slot " << slot << " after " << packets << " packets";
    }
  };
  read_opened_packets(*params, layers, describe, two, warnings, wanted, [&](size_t packets) {
    EXPECT_EQ(packets, told + 1) << name;
    told = packets;
    check_final(packets);
  });
  EXPECT_EQ(warnings, whole_warnings) << name;
  if (wanted && !two.lengths.empty()) {
    EXPECT_EQ(told, 0u) << name << ": told while PLT located the packets";
  }
  ASSERT_EQ(two.segments.size(), whole.segments.size()) << name;
  for (size_t slot = 0; slot < whole.segments.size(); ++slot)
    EXPECT_TRUE(same_segments(two.segments[slot], whole.segments[slot])) << name << ": slot " << slot << " at the end";
  // Told of every packet read: with no damage and no PLT steps, all of them.
  if (whole_warnings.empty() && !(wanted && !two.lengths.empty())) {
    EXPECT_EQ(told, two.sequence.size()) << name;
    EXPECT_TRUE(std::all_of(final_seen.begin(), final_seen.end(), [](bool b) { return b; })) << name;
  }
}

TEST(TilePacketsInTwoSteps, EachPrecinctIsFinalWhenItsPacketsAreTold) {
  const Image image = test_image(150, 110, 3, 8, false, 41);
  for (const Case& c : cases()) {
    auto bytes = encode(image, c.encode);
    ASSERT_TRUE(bytes.ok()) << c.name << ": " << bytes.status().message();
    const std::span<const uint8_t> all(*bytes);
    for (int layers : {1, 2, 99}) {
      for (bool want_some : {false, true}) {
        const std::string name = c.name + ", " + std::to_string(layers) + " layers" + (want_some ? ", some wanted" : "");
        expect_two_steps_read_alike(all, layers, name, want_some);
        // Cut short, and with damage in the packet data: the reading
        // stops where read_tile_packets stops, with its warning.
        for (size_t part : {2u, 3u, 5u}) {
          const std::span<const uint8_t> cut = all.first(all.size() * (part - 1) / part);
          expect_two_steps_read_alike(cut, layers, name + ", cut " + std::to_string(part), want_some);
        }
        std::vector<uint8_t> damaged(all.begin(), all.end());
        std::mt19937 rng(static_cast<uint32_t>(layers * 7 + want_some));
        for (int k = 0; k < 12; ++k) damaged[damaged.size() / 3 + rng() % (damaged.size() / 2)] ^= 0x5A;
        expect_two_steps_read_alike(damaged, layers, name + ", damaged", want_some);
      }
    }
  }
}

// The strips joined; counts begins.
class Collect final : public RowSink {
 public:
  Status begin(const Image& header) override {
    image = header;
    ++begins;
    return Status::Ok();
  }
  Status rows(Image strip, int64_t) override {
    for (size_t c = 0; c < strip.components.size(); ++c) {
      const auto& s = strip.components[c].samples;
      image.components[c].samples.insert(image.components[c].samples.end(), s.begin(), s.end());
    }
    return Status::Ok();
  }
  Image image;
  int begins = 0;
};

// One tile, on pools of 2, 4 and 8 threads (the packets read ahead; from 4,
// the first rows' blocks decoded ahead too, waiting for their packets).
TEST(TilePacketsInTwoSteps, StreamedDecodeReadingAheadGivesDecodesResults) {
  const Image image = test_image(300, 260, 3, 8, false, 42);
  for (const Case& c : cases()) {
    auto bytes = encode(image, c.encode);
    ASSERT_TRUE(bytes.ok()) << c.name;
    std::vector<std::vector<uint8_t>> streams = {*bytes};
    for (size_t part : {2u, 4u}) streams.emplace_back(bytes->begin(), bytes->end() - static_cast<std::ptrdiff_t>(bytes->size() / part));
    std::vector<uint8_t> damaged = *bytes;
    for (size_t k = 0; k < 8; ++k) damaged[damaged.size() / 2 + k * 37] ^= 0xA5;
    streams.push_back(std::move(damaged));
    for (size_t s = 0; s < streams.size(); ++s) {
      for (int threads : {2, 4, 8}) {
        for (bool allow_partial : {true, false}) {
          const std::string name = c.name + ", stream " + std::to_string(s) + ", " + std::to_string(threads) +
                                   " threads" + (allow_partial ? "" : ", strict");
          DecodeOptions options;
          options.threads = threads;
          options.allow_partial = allow_partial;
          DecodeReport whole_report, streamed_report;
          auto whole = decode(streams[s], options, &whole_report);
          Collect sink;
          auto streamed = decode_streamed(streams[s], options, sink, &streamed_report);
          if (!whole.ok()) {
            ASSERT_FALSE(streamed.ok()) << name;
            EXPECT_EQ(streamed.status().message(), whole.status().message()) << name;
            EXPECT_EQ(sink.begins, 0) << name;
            continue;
          }
          ASSERT_TRUE(streamed.ok()) << name << ": " << streamed.status().message();
          ASSERT_TRUE(*streamed) << name;
          EXPECT_EQ(sink.begins, 1) << name;
          ASSERT_EQ(sink.image.components.size(), whole->components.size()) << name;
          for (size_t k = 0; k < whole->components.size(); ++k)
            EXPECT_TRUE(sink.image.components[k].samples == whole->components[k].samples) << name << " component " << k;
          EXPECT_EQ(streamed_report.warnings, whole_report.warnings) << name;
        }
      }
    }
  }
}

}  // namespace
}  // namespace mallat::codec

// The encoder's packet writer and the decoder's packet reader over the one
// TilePrecincts layout: what one writes, the other reads back, for every
// progression order, precincts, code-block styles, SOP/EPH, packed headers,
// fewer decoded layers and truncated data; and the sizing and the data
// written on a pool against the one-thread loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "codec/tier2/packet_reader.h"
#include "codec/tier2/packet_writer.h"
#include "codec/tier2/progression.h"
#include "codec/tier2/tile_precincts.h"
#include "common/thread_pool.h"

namespace mallat::codec {
namespace {

struct Case {
  ProgressionOrder order = ProgressionOrder::kLRCP;
  uint8_t style = 0;      // code-block style byte (Table A.19)
  bool precincts = false;
  bool sop = false, eph = false, packed = false;
  int layers = 3;
};

// A two-component 77x53 tile, 3 levels, 8x8 code-blocks (many of them), with
// optional 16x16 precincts.
struct Tile {
  TileLayout layout;
  std::vector<ComponentCoding> coding;
};

Tile make_tile(const Case& c) {
  ImageAndTileSize siz;
  siz.xsiz = 77;
  siz.ysiz = 53;
  siz.xtsiz = 77;
  siz.ytsiz = 53;
  siz.components = {ComponentSize{}, ComponentSize{}};
  ComponentCoding cc;
  cc.levels = 3;
  cc.xcb = cc.ycb = 3;
  cc.style = CodeBlockStyle::from_byte(c.style);
  if (c.precincts) cc.precinct_exponents.assign(4, {4, 4});
  Tile t;
  t.coding = {cc, cc};
  auto layout = build_tile_layout(siz, 0, t.coding);
  EXPECT_TRUE(layout.ok()) << layout.status().message();
  t.layout = std::move(*layout);
  return t;
}

// Random coded blocks: up to 12 passes each with increasing lengths (some
// passes add no byte), and a random allocation of passes to layers.
struct Coded {
  std::vector<entropy::EncodedCodeBlock> blocks;
  LayerPasses layers;
};

Coded make_coded(size_t count, int layers, uint32_t seed) {
  std::mt19937 rng(seed);
  Coded c;
  c.layers.assign(static_cast<size_t>(layers), std::vector<int>(count, 0));
  for (size_t i = 0; i < count; ++i) {
    entropy::EncodedCodeBlock b;
    b.zero_bitplanes = static_cast<int>(rng() % 9);
    b.num_passes = static_cast<int>(rng() % 13);
    uint32_t length = 0;
    for (int p = 0; p < b.num_passes; ++p) {
      length += rng() % 40;
      entropy::CodingPass pass;
      pass.cumulative_length = length;
      b.passes.push_back(pass);
    }
    for (uint32_t k = 0; k < length; ++k) b.data.push_back(static_cast<uint8_t>(rng() % 0x8F));
    int so_far = 0;
    for (int l = 0; l < layers; ++l) {
      so_far += static_cast<int>(rng() % static_cast<uint32_t>(b.num_passes - so_far + 1));
      if (l == layers - 1 && rng() % 2) so_far = b.num_passes;
      c.layers[l][i] = so_far;
    }
    c.blocks.push_back(std::move(b));
  }
  return c;
}

struct Written {
  std::vector<uint8_t> data, headers;
  std::vector<PacketId> sequence;
  std::vector<uint32_t> lengths;  // each packet's bytes in `data`, as PLT gives them (A.7.3)
};

TilePacketsToWrite to_write(std::span<const PacketId> sequence, const Coded& coded, const Case& c) {
  TilePacketsToWrite what;
  what.sequence = sequence;
  what.layers = &coded.layers;
  what.block = [&coded](size_t slot) -> Result<const entropy::EncodedCodeBlock*> { return &coded.blocks[slot]; };
  what.sop = c.sop;
  what.eph = c.eph;
  return what;
}

Written write(const Tile& tile, const Coded& coded, const Case& c) {
  Written w;
  auto sequence = packet_order(tile.layout, c.layers, c.order);
  EXPECT_TRUE(sequence.ok());
  w.sequence = *sequence;
  auto precincts = TilePrecincts::create(tile.layout, tile.coding);
  EXPECT_TRUE(precincts.ok());
  const TilePacketsToWrite what = to_write(w.sequence, coded, c);
  std::vector<PacketBytes> packets;
  auto total = write_packets(*precincts, what, {c.packed, &w.data, &w.headers, &packets});
  EXPECT_TRUE(total.ok()) << total.status().message();
  EXPECT_EQ(*total, w.data.size() + w.headers.size());
  EXPECT_EQ(packets.size(), w.sequence.size());
  for (const PacketBytes& p : packets) w.lengths.push_back(p.data);
  return w;
}

std::vector<CodeBlockSegments> read(const Tile& tile, const Written& w, const Case& c, int decode_layers,
                                    std::span<const uint8_t> data, std::vector<std::string>& warnings,
                                    std::span<const uint32_t> lengths = {},
                                    const std::function<bool(const PacketId&)>& wanted = nullptr,
                                    bool* read_again = nullptr) {
  auto precincts = TilePrecincts::create(tile.layout, tile.coding);
  EXPECT_TRUE(precincts.ok());
  TilePacketsToRead what;
  what.sequence = w.sequence;
  what.data = data;
  what.headers = w.headers;
  what.packed_headers = c.packed;
  what.sop = c.sop;
  what.decode_layers = decode_layers;
  what.describe = [](size_t n, size_t pos) { return "packet " + std::to_string(n) + " at " + std::to_string(pos); };
  what.lengths = lengths;
  what.wanted = wanted;
  std::vector<CodeBlockSegments> blocks;
  const bool again = read_packets(*precincts, what, blocks, warnings);
  if (read_again) *read_again = again;
  return blocks;
}

// Block `slot` came back with the passes of layers < decode_layers: its
// bytes joined are the prefix those passes need, split into the codeword
// segments of its style (B.10.7.2).
void expect_block(const Coded& coded, const CodeBlockSegments& got, size_t slot, int decode_layers, uint8_t style) {
  const entropy::EncodedCodeBlock& b = coded.blocks[slot];
  const int passes = coded.layers[decode_layers - 1][slot];
  ASSERT_EQ(got.passes, passes) << "slot " << slot;
  const uint32_t length = passes == 0 ? 0 : b.passes[passes - 1].cumulative_length;
  std::vector<uint8_t> joined;
  for (auto piece : got.pieces) joined.insert(joined.end(), piece.begin(), piece.end());
  EXPECT_EQ(joined, std::vector<uint8_t>(b.data.begin(), b.data.begin() + length)) << "slot " << slot;
  if (passes > 0) {
    EXPECT_EQ(got.zero_bitplanes, b.zero_bitplanes) << "slot " << slot;
  }
  // The segments: one per pass that ends one, and one for the last pass.
  size_t segments = 0;
  for (int p = 0; p < passes; ++p)
    segments += pass_ends_codeword_segment(CodeBlockStyle::from_byte(style), p) || p == passes - 1;
  uint64_t sum = 0;
  for (uint32_t s : got.segment_lengths) sum += s;
  EXPECT_EQ(sum, length) << "slot " << slot;
  if (passes > 0) {
    EXPECT_LE(got.segment_lengths.size(), segments) << "slot " << slot;
  }
}

class Tier2Packets : public ::testing::TestWithParam<Case> {};

TEST_P(Tier2Packets, ReaderGetsWhatWriterWrote) {
  const Case c = GetParam();
  const Tile tile = make_tile(c);
  auto precincts = TilePrecincts::create(tile.layout, tile.coding);
  ASSERT_TRUE(precincts.ok());
  ASSERT_GT(precincts->code_blocks(), 40u);
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    const Coded coded = make_coded(precincts->code_blocks(), c.layers, seed);
    const Written w = write(tile, coded, c);
    for (int decode_layers = 1; decode_layers <= c.layers; ++decode_layers) {
      std::vector<std::string> warnings;
      const auto blocks = read(tile, w, c, decode_layers, w.data, warnings);
      EXPECT_TRUE(warnings.empty()) << warnings.front();
      ASSERT_EQ(blocks.size(), coded.blocks.size());
      for (size_t slot = 0; slot < blocks.size(); ++slot) expect_block(coded, blocks[slot], slot, decode_layers, c.style);
    }
  }
}

// With PLT's lengths, the packets of precincts not wanted are stepped over
// unread: their blocks get nothing, the others what a full read gives; a
// length that disagrees with a packet read says so, and read_packets asks
// for the tile to be read again. (With packed headers the lengths are not
// used: every packet is read.)
TEST_P(Tier2Packets, PltLengthsStepOverPrecinctsNotWanted) {
  const Case c = GetParam();
  const Tile tile = make_tile(c);
  auto precincts = TilePrecincts::create(tile.layout, tile.coding);
  ASSERT_TRUE(precincts.ok());
  const Coded coded = make_coded(precincts->code_blocks(), c.layers, 11);
  const Written w = write(tile, coded, c);
  const auto wanted = [](const PacketId& id) { return (id.component + id.resolution + id.precinct) % 2 == 0; };
  std::vector<bool> kept(precincts->code_blocks(), true);
  for (size_t slot = 0; slot < kept.size(); ++slot) {
    const CodeBlockPlace& at = precincts->place(slot);
    kept[slot] = c.packed || wanted(PacketId{0, at.resolution, at.component, at.precinct});
  }
  std::vector<std::string> warnings;
  bool again = true;
  const auto blocks = read(tile, w, c, c.layers, w.data, warnings, w.lengths, wanted, &again);
  EXPECT_FALSE(again);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  size_t stepped = 0;
  for (size_t slot = 0; slot < blocks.size(); ++slot) {
    if (kept[slot]) {
      expect_block(coded, blocks[slot], slot, c.layers, c.style);
    } else {
      EXPECT_EQ(blocks[slot].passes, 0) << "slot " << slot;
      EXPECT_TRUE(blocks[slot].pieces.empty()) << "slot " << slot;
      stepped += coded.blocks[slot].num_passes > 0;
    }
  }
  if (c.packed) return;
  EXPECT_GT(stepped, 0u);
  // One length off: the packet read says so, and reading goes on without PLT.
  std::vector<uint32_t> wrong = w.lengths;
  size_t n = 0;
  while (n < wrong.size() && !wanted(w.sequence[n])) ++n;
  ASSERT_LT(n, wrong.size());
  wrong[n] += 1;
  warnings.clear();
  read(tile, w, c, c.layers, w.data, warnings, wrong, wanted, &again);
  EXPECT_TRUE(again);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("PLT says"), std::string::npos) << warnings[0];
}

TEST_P(Tier2Packets, TruncatedDataStopsWithAWarningAndKeepsWhatCameBefore) {
  const Case c = GetParam();
  const Tile tile = make_tile(c);
  auto precincts = TilePrecincts::create(tile.layout, tile.coding);
  ASSERT_TRUE(precincts.ok());
  const Coded coded = make_coded(precincts->code_blocks(), c.layers, 7);
  const Written w = write(tile, coded, c);
  ASSERT_GT(w.data.size(), 10u);
  std::vector<std::string> warnings;
  const auto blocks = read(tile, w, c, c.layers, std::span<const uint8_t>(w.data).first(w.data.size() / 2), warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("packet"), std::string::npos) << warnings[0];
  // Every piece read is a prefix of its block's bytes.
  for (size_t slot = 0; slot < blocks.size(); ++slot) {
    size_t at = 0;
    for (auto piece : blocks[slot].pieces) {
      ASSERT_LE(at + piece.size(), coded.blocks[slot].data.size());
      EXPECT_TRUE(std::equal(piece.begin(), piece.end(), coded.blocks[slot].data.begin() + at)) << "slot " << slot;
      at += piece.size();
    }
  }
}

std::vector<Case> cases() {
  std::vector<Case> all;
  for (auto order : {ProgressionOrder::kLRCP, ProgressionOrder::kRLCP, ProgressionOrder::kRPCL,
                     ProgressionOrder::kPCRL, ProgressionOrder::kCPRL}) {
    Case c;
    c.order = order;
    c.precincts = true;
    all.push_back(c);
  }
  for (uint8_t style : {uint8_t{1}, uint8_t{4}, uint8_t{5}, uint8_t{0x3F}}) {
    Case c;
    c.style = style;
    all.push_back(c);
  }
  Case sop;
  sop.sop = sop.eph = true;
  all.push_back(sop);
  Case packed = sop;
  packed.packed = true;
  packed.precincts = true;
  all.push_back(packed);
  Case one_layer;
  one_layer.layers = 1;
  one_layer.style = 4;
  all.push_back(one_layer);
  return all;
}

// On a pool (each precinct's packets coded on one thread, the precincts at
// once; the data laid out from the packets' sizes and copied in ranges),
// the packets are what the one-thread loop gives: sized without data, the
// same sizes in the same order, the same packed headers, the same total;
// written with their data, the same bytes after what the vector held. The
// data written from either sizing's kept headers (write_packet_data), on
// one thread or on the pool, is what write_packets writes with the data,
// in one piece or through a sink (on the pool in chunks of at most their
// size, a packet cut anywhere); packets other than the sizing's are
// refused.
TEST_P(Tier2Packets, PacketsOnAPoolAreTheOneThreadPackets) {
  const Case c = GetParam();
  const Tile tile = make_tile(c);
  auto precincts = TilePrecincts::create(tile.layout, tile.coding);
  ASSERT_TRUE(precincts.ok());
  ThreadPool pool(4);
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    const Coded coded = make_coded(precincts->code_blocks(), c.layers, seed);
    const Written w = write(tile, coded, c);
    const TilePacketsToWrite what = to_write(w.sequence, coded, c);
    TilePacketsToWrite pooled = what;
    pooled.pool = &pool;
    pooled.split.least_code_blocks = 0;  // these few blocks on the pool too
    pooled.split.chunk_bytes = 61;
    pooled.split.item_bytes = 7;
    std::vector<uint8_t> plain_headers, pool_headers;
    std::vector<PacketBytes> plain, on_pool;
    KeptHeaders plain_kept, pool_kept;
    auto size = [&](const TilePacketsToWrite& how, std::vector<uint8_t>& headers, std::vector<PacketBytes>& packets,
                    KeptHeaders& kept) {
      TilePrecincts fresh = TilePrecincts::copy_of(*precincts, how.pool);
      PacketOutput out{c.packed, nullptr, &headers, &packets};
      out.kept_headers = &kept;
      auto total = write_packets(fresh, how, out);
      EXPECT_TRUE(total.ok()) << total.status().message();
      EXPECT_EQ(kept.lengths.size(), c.packed ? 0u : packets.size());
      return total.ok() ? *total : 0;
    };
    // The data from a sizing's packets and kept headers, in one piece and
    // through a sink (the two must agree).
    auto data_of = [&](const TilePacketsToWrite& how, std::span<const PacketBytes> packets,
                       const KeptHeaders& kept) -> Result<std::vector<uint8_t>> {
      std::vector<uint8_t> data, sunk;
      MALLAT_RETURN_IF_ERROR(
          write_packet_data(*precincts, how, packets, c.packed ? nullptr : &kept, {c.packed, &data, nullptr, nullptr}));
      const std::function<Status(std::span<const uint8_t>)> sink = [&](std::span<const uint8_t> piece) {
        if (how.pool) {
          EXPECT_LE(piece.size(), how.split.chunk_bytes);
        }
        sunk.insert(sunk.end(), piece.begin(), piece.end());
        return Status::Ok();
      };
      PacketOutput to_sink{c.packed, nullptr, nullptr, nullptr};
      to_sink.data_sink = &sink;
      MALLAT_RETURN_IF_ERROR(write_packet_data(*precincts, how, packets, c.packed ? nullptr : &kept, to_sink));
      EXPECT_EQ(data, sunk);
      return data;
    };
    const uint64_t plain_total = size(what, plain_headers, plain, plain_kept);
    EXPECT_EQ(size(pooled, pool_headers, on_pool, pool_kept), plain_total) << "seed " << seed;
    for (const TilePacketsToWrite* how : std::initializer_list<const TilePacketsToWrite*>{&what, &pooled}) {
      for (const auto& [packets, kept] : {std::pair{&plain, &plain_kept}, std::pair{&on_pool, &pool_kept}}) {
        auto data = data_of(*how, *packets, *kept);
        ASSERT_TRUE(data.ok()) << data.status().message();
        EXPECT_EQ(*data, w.data) << "seed " << seed;
      }
      if (!plain.empty()) {
        std::vector<PacketBytes> other = plain;
        other.front().data += 1;
        EXPECT_FALSE(data_of(*how, other, plain_kept).ok());
        other.pop_back();
        EXPECT_FALSE(data_of(*how, other, plain_kept).ok());
      }
    }
    EXPECT_EQ(plain_total, w.data.size() + w.headers.size()) << "seed " << seed;
    EXPECT_EQ(pool_headers, plain_headers) << "seed " << seed;
    EXPECT_EQ(pool_headers, w.headers) << "seed " << seed;
    ASSERT_EQ(on_pool.size(), plain.size()) << "seed " << seed;
    for (size_t i = 0; i < plain.size(); ++i) {
      EXPECT_EQ(on_pool[i].data, plain[i].data) << "packet " << i;
      EXPECT_EQ(on_pool[i].header, plain[i].header) << "packet " << i;
      EXPECT_EQ(on_pool[i].data, w.lengths[i]) << "packet " << i;
      EXPECT_TRUE(on_pool[i].id == plain[i].id) << "packet " << i;
    }

    TilePrecincts fresh = TilePrecincts::copy_of(*precincts, &pool);
    std::vector<uint8_t> data = {0xA5}, headers;
    std::vector<PacketBytes> packets;
    auto total = write_packets(fresh, pooled, {c.packed, &data, &headers, &packets});
    ASSERT_TRUE(total.ok()) << total.status().message();
    EXPECT_EQ(*total, plain_total) << "seed " << seed;
    ASSERT_EQ(data.size(), w.data.size() + 1) << "seed " << seed;
    EXPECT_EQ(data[0], 0xA5);
    EXPECT_TRUE(std::equal(w.data.begin(), w.data.end(), data.begin() + 1)) << "seed " << seed;
    EXPECT_EQ(headers, w.headers) << "seed " << seed;
    ASSERT_EQ(packets.size(), w.lengths.size()) << "seed " << seed;
    for (size_t i = 0; i < packets.size(); ++i) EXPECT_EQ(packets[i].data, w.lengths[i]) << "packet " << i;
  }
}


// Through a sink on a pool, each of the data's chunks is copied while the
// chunk before is still with the sink (on one of the pool's threads): the
// sink, slow here, is still called once at a time, in order, each chunk's
// bytes unchanged until it returns; a sink's error is what
// write_packet_data gives, and no chunk is sent after it.
TEST_P(Tier2Packets, DataSentInChunksWhileTheNextAreCopied) {
  const Case c = GetParam();
  const Tile tile = make_tile(c);
  auto precincts = TilePrecincts::create(tile.layout, tile.coding);
  ASSERT_TRUE(precincts.ok());
  ThreadPool pool(3);
  const Coded coded = make_coded(precincts->code_blocks(), c.layers, 7);
  const Written w = write(tile, coded, c);
  TilePacketsToWrite pooled = to_write(w.sequence, coded, c);
  pooled.pool = &pool;
  pooled.split.least_code_blocks = 0;
  pooled.split.chunk_bytes = 97;
  pooled.split.item_bytes = 5;
  std::vector<uint8_t> headers;
  std::vector<PacketBytes> packets;
  KeptHeaders kept;
  {
    TilePrecincts fresh = TilePrecincts::copy_of(*precincts, &pool);
    PacketOutput out{c.packed, nullptr, &headers, &packets};
    out.kept_headers = &kept;
    ASSERT_TRUE(write_packets(fresh, pooled, out).ok());
  }
  ASSERT_GT(w.data.size(), 2 * pooled.split.chunk_bytes);
  const size_t chunks = (w.data.size() + pooled.split.chunk_bytes - 1) / pooled.split.chunk_bytes;
  for (const size_t fail_at : {SIZE_MAX, size_t{0}, size_t{1}, chunks - 1}) {
    std::vector<uint8_t> sunk;
    std::atomic<int> in_sink{0};
    size_t calls = 0;
    const std::function<Status(std::span<const uint8_t>)> sink = [&](std::span<const uint8_t> piece) {
      EXPECT_EQ(in_sink.fetch_add(1), 0);
      const std::vector<uint8_t> first(piece.begin(), piece.end());
      std::this_thread::sleep_for(std::chrono::microseconds(300));  // the next chunk's copy runs meanwhile
      EXPECT_TRUE(std::equal(first.begin(), first.end(), piece.begin(), piece.end())) << "chunk " << calls;
      sunk.insert(sunk.end(), piece.begin(), piece.end());
      in_sink.fetch_sub(1);
      return calls++ == fail_at ? io_error("sink full") : Status::Ok();
    };
    PacketOutput to_sink{c.packed, nullptr, nullptr, nullptr};
    to_sink.data_sink = &sink;
    const Status s = write_packet_data(*precincts, pooled, packets, c.packed ? nullptr : &kept, to_sink);
    if (fail_at == SIZE_MAX) {
      ASSERT_TRUE(s.ok()) << s.message();
      EXPECT_EQ(sunk, w.data);
      EXPECT_EQ(calls, chunks);
    } else {
      EXPECT_FALSE(s.ok());
      EXPECT_EQ(s.message(), "sink full");
      EXPECT_EQ(calls, fail_at + 1);
      EXPECT_TRUE(std::equal(sunk.begin(), sunk.end(), w.data.begin()));
    }
  }
}

// A sizing on a pool (each subband's blocks set up and its part of its
// packets coded on one thread) is the one-thread loop's, also where the
// sequence leaves out the packets of some precincts (whose blocks are set
// up all the same) and where it fails: with the error of the first block
// that cannot be set up, else of the first packet in the sequence that
// fails, and in it of a block that cannot be had before a header that
// cannot be coded. Here a block that cannot be had (at its set-up, or when
// a packet wants its passes) and one with more passes in a layer than a
// header can say (B.10.6), anywhere in the tile.
TEST_P(Tier2Packets, SizingsOnAPoolLeavingOutOrFailingAreTheOneThreadSizings) {
  const Case c = GetParam();
  const Tile tile = make_tile(c);
  auto precincts = TilePrecincts::create(tile.layout, tile.coding);
  ASSERT_TRUE(precincts.ok());
  const Written w = write(tile, make_coded(precincts->code_blocks(), c.layers, 3), c);
  ThreadPool pool(4);
  std::mt19937 rng(11);
  for (int iter = 0; iter < 24; ++iter) {
    const int mode = iter % 4;  // 0: none fails; 1: a set-up; 2: a header; 3: a packet's block and a header
    Coded coded = make_coded(precincts->code_blocks(), c.layers, 3);
    const size_t unfetched = mode == 1 || mode == 3 ? rng() % coded.blocks.size() : SIZE_MAX;
    if (mode >= 2) {
      // Too many passes in the last layer of a block.
      const size_t slot = rng() % coded.blocks.size();
      entropy::EncodedCodeBlock& b = coded.blocks[slot];
      b.passes.resize(kMaxPassesPerPacket + 2, b.passes.empty() ? entropy::CodingPass{} : b.passes.back());
      b.num_passes = static_cast<int>(b.passes.size());
      for (int l = 0; l + 1 < c.layers; ++l) coded.layers[static_cast<size_t>(l)][slot] = 0;
      coded.layers.back()[slot] = b.num_passes;
    }
    // Every other round, the packets of one precinct left out.
    std::vector<PacketId> sequence = w.sequence;
    if (iter % 8 >= 4) {
      const PacketId gone = sequence[rng() % sequence.size()];
      std::erase_if(sequence, [&](const PacketId& id) {
        return id.component == gone.component && id.resolution == gone.resolution && id.precinct == gone.precinct;
      });
    }
    std::vector<int> requests(coded.blocks.size(), 0);
    TilePacketsToWrite what = to_write(sequence, coded, c);
    what.block = [&, unfetched, mode](size_t slot) -> Result<const entropy::EncodedCodeBlock*> {
      // Mode 3: the block is had at its set-up, not after.
      if (slot == unfetched && ++requests[slot] >= (mode == 3 ? 2 : 1))
        return io_error("block " + std::to_string(slot) + " not read");
      return &coded.blocks[slot];
    };
    TilePacketsToWrite pooled = what;
    pooled.pool = &pool;
    pooled.split.least_code_blocks = 0;
    struct Sized {
      Result<uint64_t> total = uint64_t{0};
      std::vector<uint8_t> headers;
      std::vector<PacketBytes> packets;
      KeptHeaders kept;
    } sized[2];
    for (const TilePacketsToWrite* how : {&what, &pooled}) {
      std::fill(requests.begin(), requests.end(), 0);
      Sized& s = sized[how == &pooled];
      TilePrecincts fresh = TilePrecincts::copy_of(*precincts, nullptr);
      PacketOutput out{c.packed, nullptr, &s.headers, &s.packets};
      out.kept_headers = &s.kept;
      s.total = write_packets(fresh, *how, out);
    }
    ASSERT_EQ(sized[1].total.ok(), sized[0].total.ok()) << iter;
    if (!sized[0].total.ok()) {
      EXPECT_EQ(sized[1].total.status().message(), sized[0].total.status().message()) << iter;
      continue;
    }
    EXPECT_NE(mode, 1) << iter;
    EXPECT_EQ(*sized[1].total, *sized[0].total) << iter;
    EXPECT_EQ(sized[1].headers, sized[0].headers) << iter;
    EXPECT_EQ(sized[1].kept.bytes, sized[0].kept.bytes) << iter;
    ASSERT_EQ(sized[1].packets.size(), sized[0].packets.size()) << iter;
    for (size_t i = 0; i < sized[0].packets.size(); ++i) {
      EXPECT_EQ(sized[1].packets[i].data, sized[0].packets[i].data) << iter << " packet " << i;
      EXPECT_EQ(sized[1].packets[i].header, sized[0].packets[i].header) << iter << " packet " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, Tier2Packets, ::testing::ValuesIn(cases()));

TEST(TilePrecincts, SlotsRunInPacketOrderAndNameTheirCodeBlocks) {
  Case c;
  c.precincts = true;
  const Tile tile = make_tile(c);
  auto precincts = TilePrecincts::create(tile.layout, tile.coding);
  ASSERT_TRUE(precincts.ok());
  size_t slot = 0;
  for (size_t ci = 0; ci < tile.layout.components.size(); ++ci) {
    const TileComponent& tc = tile.layout.components[ci];
    for (size_t r = 0; r < tc.resolutions.size(); ++r) {
      for (size_t p = 0; p < tc.resolutions[r].precincts.size(); ++p) {
        const int ic = static_cast<int>(ci), ir = static_cast<int>(r), ip = static_cast<int>(p);
        EXPECT_EQ(precincts->first_slot(ic, ir, ip), slot);
        int in_precinct = 0;
        const auto& bands = tc.resolutions[r].precincts[p].bands;
        for (size_t b = 0; b < bands.size(); ++b) {
          for (size_t k = 0; k < bands[b].blocks.size(); ++k, ++slot, ++in_precinct) {
            const CodeBlockPlace& at = precincts->place(slot);
            EXPECT_EQ(at.component, ic);
            EXPECT_EQ(at.resolution, ir);
            EXPECT_EQ(at.precinct, ip);
            EXPECT_EQ(at.band, static_cast<int>(b));
            EXPECT_EQ(at.index, static_cast<int>(k));
            EXPECT_EQ(&code_block_at(tile.layout, at), &bands[b].blocks[k]);
          }
        }
        EXPECT_EQ(precincts->coder(ic, ir, ip).code_blocks(), in_precinct);
      }
    }
  }
  EXPECT_EQ(slot, precincts->code_blocks());
}

}  // namespace
}  // namespace mallat::codec

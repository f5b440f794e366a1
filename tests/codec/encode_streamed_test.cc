// The streamed encoder (codec/api/encode_streamed.h) against encode(): the
// same file byte for byte over the options it takes (5/3 and 9/7, rate
// targets and layers, 1 and 3 components, 8, 12 and 16 bits, signed, odd
// sizes, image offsets, 0..7 levels, precincts, HT, sub-sampled
// components, JP2, markers), its refusals, a read error mid-image, and the
// coded blocks kept on disk past a memory budget (coded_spill.h), and HT
// blocks' indices kept for rate control by estimates (kept_indices.h).
#include "codec/api/encode_streamed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "codec/api/encode.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/encoder/encode_call.h"
#include "codec/encoder/kept_indices.h"
#include "codec/encoder/packed_indices.h"
#include "codec/tier2/packet_writer.h"
#include "common/image.h"
#include "common/job_thread.h"
#include "common/thread_pool.h"
#include "tests/codec/encode_streamed_rows.h"

namespace mallat::codec {
namespace {

TEST(EncodeStreamed, SameBytesAsEncodeForEveryKindOfImage) {
  struct Shape {
    int64_t w, h;
    int components, precision;
    bool is_signed;
    int chroma;
  };
  const Shape shapes[] = {{67, 45, 3, 8, false, 1},  {1, 1, 1, 8, false, 1},   {1, 37, 1, 8, false, 1},
                          {53, 1, 3, 8, false, 1},   {130, 97, 1, 16, false, 1}, {99, 150, 3, 12, true, 1},
                          {101, 77, 3, 10, false, 2}, {200, 131, 4, 8, false, 1}};
  uint32_t seed = 1;
  for (const Shape& s : shapes) {
    const Image image = test_image(s.w, s.h, s.components, s.precision, s.is_signed, seed++, s.chroma);
    const std::string shape = std::to_string(s.w) + "x" + std::to_string(s.h) + "x" + std::to_string(s.components) +
                              " " + std::to_string(s.precision) + "-bit";
    for (bool reversible : {true, false}) {
      EncodeOptions o = options();
      o.reversible = reversible;
      expect_same(image, o, shape + (reversible ? " 5/3" : " 9/7"));
      o.rate_kind = EncodeOptions::RateKind::kRatio;
      o.rate_values = {20};
      expect_same(image, o, shape + (reversible ? " 5/3" : " 9/7") + " -r 20");
    }
  }
}

// A source that reads every component's rows together has them converted
// in bands of rows on the pool: the same bytes for strips of any height
// (one row, a strip and a row, odd last strips), 1, 2, 3 and 4 components,
// with and without the colour transform.
TEST(EncodeStreamed, RowsReadTogetherGiveTheSameBytes) {
  struct Shape {
    int64_t w, h;
    int components;
  };
  const Shape shapes[] = {{37, 1, 3}, {45, 129, 1}, {29, 261, 2}, {33, 131, 3}, {19, 300, 4}};
  uint32_t seed = 11;
  for (const Shape& s : shapes) {
    const Image image = test_image(s.w, s.h, s.components, 8, false, seed++);
    for (bool reversible : {true, false}) {
      EncodeOptions o = options(3);
      o.reversible = reversible;
      const std::string what = std::to_string(s.w) + "x" + std::to_string(s.h) + "x" +
                               std::to_string(s.components) + (reversible ? " 5/3" : " 9/7");
      auto whole = encode(image, o);
      ASSERT_TRUE(whole.ok()) << what << ": " << whole.status().message();
      auto together = streamed(image, o, nullptr, true);
      ASSERT_TRUE(together.ok()) << what << ": " << together.status().message();
      EXPECT_TRUE(*whole == *together) << what;
    }
  }
}

TEST(EncodeStreamed, SameBytesAsEncodeForEveryOption) {
  const Image rgb = test_image(157, 139, 3, 8, false, 7);
  const Image grey16 = test_image(141, 163, 1, 16, false, 8);
  struct Case {
    std::string what;
    std::function<void(EncodeOptions&)> set;
  };
  const std::vector<Case> cases = {
      {"levels 0", [](EncodeOptions& o) { o.resolutions = 1; }},
      {"levels 1", [](EncodeOptions& o) { o.resolutions = 2; }},
      {"levels 7", [](EncodeOptions& o) { o.resolutions = 8; }},
      {"offset -d 3,5", [](EncodeOptions& o) { o.image_x0 = 3; o.image_y0 = 5; }},
      {"offset -d 1,2 -T 1,0 9/7", [](EncodeOptions& o) { o.image_x0 = 1; o.image_y0 = 2; o.tile_x0 = 1; o.reversible = false; }},
      {"precincts", [](EncodeOptions& o) { o.precincts = {{5, 5}, {4, 4}}; o.xcb = o.ycb = 4; }},
      {"code-blocks 32x16", [](EncodeOptions& o) { o.xcb = 5; o.ycb = 4; }},
      {"HT", [](EncodeOptions& o) { o.style.ht = true; }},
      {"HT -r 20 --ht-rate full", [](EncodeOptions& o) {
         o.style.ht = true;
         o.rate_kind = EncodeOptions::RateKind::kRatio;
         o.rate_values = {20};
         o.ht_rate = EncodeOptions::HtRate::kEveryPlane;
       }},
      {"HT -r 20 (by estimates)", [](EncodeOptions& o) {
         o.style.ht = true;
         o.rate_kind = EncodeOptions::RateKind::kRatio;
         o.rate_values = {20};
       }},
      {"HT 9/7 --bpp 1 (by estimates)", [](EncodeOptions& o) {
         o.style.ht = true;
         o.reversible = false;
         o.rate_kind = EncodeOptions::RateKind::kBitsPerPixel;
         o.rate_values = {1};
       }},
      {"layers -r 40,20,10", [](EncodeOptions& o) { o.rate_kind = EncodeOptions::RateKind::kRatio; o.rate_values = {40, 20, 10}; }},
      {"9/7 --bpp 0.5,2", [](EncodeOptions& o) { o.reversible = false; o.rate_kind = EncodeOptions::RateKind::kBitsPerPixel; o.rate_values = {0.5, 2}; }},
      {"RPCL SOP EPH TLM PLT", [](EncodeOptions& o) { o.order = ProgressionOrder::kRPCL; o.sop = o.eph = o.tlm = o.plt = true; }},
      {"PPM, tile-parts by resolution", [](EncodeOptions& o) { o.packed_headers = EncodeOptions::PackedHeaders::kPpm; o.tile_parts = TilePartDivision::kResolution; }},
      {"PPT, tile-parts by layer", [](EncodeOptions& o) { o.packed_headers = EncodeOptions::PackedHeaders::kPpt; o.tile_parts = TilePartDivision::kLayer; o.rate_kind = EncodeOptions::RateKind::kRatio; o.rate_values = {30, 10}; }},
      {"ROI", [](EncodeOptions& o) { o.roi = {{0, 4}}; }},
      {"JP2", [](EncodeOptions& o) { o.container = Container::kJp2; }},
      {"a tile larger than the image", [](EncodeOptions& o) { o.tile_width = 512; o.tile_height = 512; }},
  };
  for (const Case& c : cases) {
    EncodeOptions o = options();
    c.set(o);
    expect_same(rgb, o, "RGB " + c.what);
    expect_same(grey16, o, "16-bit grey " + c.what);
  }
}

TEST(EncodeStreamed, RefusesWhatNeedsTheWholeImage) {
  const Image image = test_image(64, 48, 3, 8, false, 3);
  EncodeOptions psnr = options();
  psnr.rate_kind = EncodeOptions::RateKind::kPsnr;
  psnr.rate_values = {40};
  EncodeOptions profile = options();
  profile.profile.kind = ProfileKind::kCinema2K;
  for (const EncodeOptions& o : {psnr, profile}) {
    EXPECT_NE(why_not_streamed(image, o), "");
    auto r = streamed(image, o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kUnsupported);
    EXPECT_NE(r.status().message().find("streamed"), std::string::npos) << r.status().message();
  }
}

// What a device runner would be fed whole: one tile, every component of
// the image's size. Without a runner in the call (none here) a source that
// can rewind is read once, by rows, the same file.
TEST(EncodeStreamed, OnlyOneTileOfFullSizeComponentsIsFedAndNeverWithoutADevice) {
  const Image image = test_image(96, 80, 3, 8, false, 5);
  EncodeOptions tiles = options();
  tiles.tile_width = tiles.tile_height = 64;
  EXPECT_TRUE(streamed_encode_feeds_device(image, options()));
  EXPECT_FALSE(streamed_encode_feeds_device(image, tiles));
  EXPECT_FALSE(streamed_encode_feeds_device(test_image(96, 80, 3, 8, false, 5, 2), options()));
  // HT under a target: read whole for the runner instead (its blocks are
  // coded again after quantisation).
  EncodeOptions ht_target = options();
  ht_target.style.ht = true;
  ht_target.reversible = false;
  ht_target.rate_kind = EncodeOptions::RateKind::kRatio;
  ht_target.rate_values = {20};
  EXPECT_FALSE(streamed_encode_feeds_device(image, ht_target));
  ht_target.rate_kind = EncodeOptions::RateKind::kNone;
  ht_target.rate_values.clear();
  EXPECT_TRUE(streamed_encode_feeds_device(image, ht_target));
  ImageRows rows{image, {}, true};
  RowSource source = rows.source();
  int rewinds = 0;
  source.rewind = [&] {
    ++rewinds;
    return Status::Ok();
  };
  std::vector<uint8_t> file;
  const FileSink sink = [&](std::span<const uint8_t> piece) {
    file.insert(file.end(), piece.begin(), piece.end());
    return Status::Ok();
  };
  ASSERT_TRUE(encode_streamed(source, options(), sink).ok());
  const auto want = encode(image, options());
  ASSERT_TRUE(want.ok());
  EXPECT_TRUE(*want == file);
  EXPECT_EQ(rewinds, 0);
  EXPECT_GT(rows.conversions.load(), 0);
}

TEST(EncodeStreamed, ReadAndSinkErrorsStopIt) {
  const Image image = test_image(80, 300, 3, 8, false, 4);
  EncodeOptions tiles = options();  // read a row of tiles at a time (tile_row_store.h)
  tiles.tile_width = tiles.tile_height = 64;
  for (const EncodeOptions& o : {options(), tiles}) {
    ImageRows rows{image, {}};
    RowSource source = rows.source();
    const auto read = source.read_rows;
    source.read_rows = [&](int c, int64_t n, int32_t* out) -> Status {
      if (rows.next[c] + n > 200) return corrupt_data("in.ppm: row 200 is missing");
      return read(c, n, out);
    };
    size_t written = 0;
    const FileSink sink = [&](std::span<const uint8_t> piece) {
      written += piece.size();
      return Status::Ok();
    };
    const Status s = encode_streamed(source, o, sink);
    EXPECT_EQ(s.message(), "in.ppm: row 200 is missing");
    EXPECT_EQ(written, 0u);  // nothing written before every row was coded
  }

  ImageRows again{image, {}};
  const FileSink full = [](std::span<const uint8_t>) { return io_error("out.j2k: the disk is full"); };
  EXPECT_EQ(encode_streamed(again.source(), options(), full).message(), "out.j2k: the disk is full");
}

// Past EncodeOptions::coded_memory_budget the coded blocks wait on disk for
// Tier-2: the same bytes, and the report says how many blocks went there.
TEST(EncodeStreamed, CodedBlocksOnDiskPastTheBudgetGiveTheSameBytes) {
  const Image image = test_image(300, 260, 3, 8, false, 11);
  struct Case {
    std::string what;
    std::function<void(EncodeOptions&)> set;
  };
  const std::vector<Case> cases = {
      {"5/3", [](EncodeOptions&) {}},
      {"9/7", [](EncodeOptions& o) { o.reversible = false; }},
      {"code-blocks 16x16, RPCL, SOP, EPH, PLT", [](EncodeOptions& o) {
         o.xcb = o.ycb = 4;
         o.order = ProgressionOrder::kRPCL;
         o.sop = o.eph = o.plt = true;
       }},
      {"TERMALL and BYPASS", [](EncodeOptions& o) { o.style.termall = o.style.bypass = true; }},
      {"PPM", [](EncodeOptions& o) { o.packed_headers = EncodeOptions::PackedHeaders::kPpm; }},
      {"HT", [](EncodeOptions& o) { o.style.ht = true; }},
  };
  for (const Case& c : cases) {
    EncodeOptions o = options();
    c.set(o);
    auto whole = encode(image, o);
    ASSERT_TRUE(whole.ok()) << c.what << ": " << whole.status().message();
    EncodeReport held;
    auto in_memory = streamed(image, o, &held);
    ASSERT_TRUE(in_memory.ok()) << c.what << ": " << in_memory.status().message();
    EXPECT_EQ(held.spilled_blocks, 0u) << c.what;
    // A budget of a few blocks: the first stay in memory, the rest go to disk.
    for (uint64_t budget : {uint64_t{0}, uint64_t{4000}}) {
      o.coded_memory_budget = budget;
      EncodeReport report;
      auto spilled = streamed(image, o, &report);
      ASSERT_TRUE(spilled.ok()) << c.what << ": " << spilled.status().message();
      EXPECT_TRUE(*spilled == *whole) << c.what << " budget " << budget;
      EXPECT_GT(report.spilled_blocks, 10u) << c.what << " budget " << budget;
      EXPECT_GT(report.spilled_bytes, whole->size() / 4) << c.what << " budget " << budget;
    }
  }
}

// HT rate control by estimates keeps each block's indices until every
// block's estimate is in: as they are where they fit half the budget
// (int16, or int32 for the 16-bit image's), packed in memory past that,
// packed on disk past the budget; the same bytes each way, so a block the
// store hands back wrong shows.
// On the 9/7 path at the rates given, rate control with
// HtRate::kEstimatedSteps takes the finer steps at some (finer_steps.h),
// whose indices are taken there as they are read
// back: the indices packed as zeros must be those that code as zeros at
// either step.
TEST(EncodeStreamed, HtIndicesKeptAnyWayGiveTheSameBytes) {
  const Image images[] = {test_image(300, 260, 3, 8, false, 14), test_image(150, 140, 1, 16, false, 15)};
  int finer_taken = 0;
  for (const Image& image : images) {
    for (bool reversible : {false, true}) {
      for (double bpp : {1.0, 4.0, 16.0}) {
        EncodeOptions o = options();
        o.style.ht = true;
        o.ht_rate = EncodeOptions::HtRate::kEstimatedSteps;
        o.reversible = reversible;
        o.rate_kind = EncodeOptions::RateKind::kBitsPerPixel;
        o.rate_values = {bpp};
        auto whole = encode(image, o);
        ASSERT_TRUE(whole.ok()) << whole.status().message();
        // 600000: the 8-bit image's indices packed in memory, not as they are.
        for (uint64_t budget : {uint64_t{0}, uint64_t{20000}, uint64_t{600000}, uint64_t{1} << 30}) {
          o.coded_memory_budget = budget;
          auto lines = streamed(image, o);
          ASSERT_TRUE(lines.ok()) << lines.status().message();
          EXPECT_TRUE(*lines == *whole) << image.components[0].precision << "-bit " << (reversible ? "5/3" : "9/7")
                                        << " --bpp " << bpp << " budget " << budget;
        }
        if (reversible) continue;
        o.ht_rate = EncodeOptions::HtRate::kEveryPlane;
        auto nominal = encode(image, o);
        ASSERT_TRUE(nominal.ok()) << nominal.status().message();
        auto q = parse_main_header(*whole), qn = parse_main_header(*nominal);
        ASSERT_TRUE(q.ok() && qn.ok());
        finer_taken += q->qcd.steps != qn->qcd.steps ? 1 : 0;
      }
    }
  }
  EXPECT_GT(finer_taken, 0);
}

// An HT encode under a size target codes its kept blocks, lists their
// points, sizes its packets and writes them on the pool: the same file on
// one thread as on several, for the markers and packed headers that change
// how the packets are written.
TEST(EncodeStreamed, HtUnderASizeTargetIsTheSameOnAnyThreads) {
  const Image image = test_image(1200, 900, 3, 8, false, 21);
  struct Case {
    std::string what;
    std::function<void(EncodeOptions&)> set;
  };
  const std::vector<Case> cases = {
      {"-r 20", [](EncodeOptions&) {}},
      {"9/7 --bpp 1", [](EncodeOptions& o) {
         o.reversible = false;
         o.rate_kind = EncodeOptions::RateKind::kBitsPerPixel;
         o.rate_values = {1};
       }},
      {"9/7 -r 20 SOP EPH PLT", [](EncodeOptions& o) { o.reversible = false; o.sop = o.eph = o.plt = true; }},
      {"9/7 -r 20 PPT", [](EncodeOptions& o) {
         o.reversible = false;
         o.packed_headers = EncodeOptions::PackedHeaders::kPpt;
       }},
      {"9/7 -r 20 PPM, precincts", [](EncodeOptions& o) {
         o.reversible = false;
         o.packed_headers = EncodeOptions::PackedHeaders::kPpm;
         o.precincts = {{6, 6}};
       }},
  };
  for (const Case& c : cases) {
    EncodeOptions o = options();
    o.style.ht = true;
    o.rate_kind = EncodeOptions::RateKind::kRatio;
    o.rate_values = {20};
    c.set(o);
    o.threads = 1;
    auto one = streamed(image, o);
    ASSERT_TRUE(one.ok()) << c.what << ": " << one.status().message();
    for (int threads : {3, 8}) {
      o.threads = threads;
      auto many = streamed(image, o);
      ASSERT_TRUE(many.ok()) << c.what << ": " << many.status().message();
      EXPECT_TRUE(*one == *many) << c.what << ", " << threads << " threads";
    }
  }
}

// A tile of PacketPoolSplit::kLeastCodeBlocks or more has its packets coded
// and written on the pool (each precinct's packets on a thread, the data
// copied in ranges, in chunks to the sink): the same file as on one thread,
// whole and streamed, for the markers, packed headers, tile-parts,
// progressions, layers and rate targets that change how the packets are
// laid out.
TEST(EncodeStreamed, LargeTilesPacketsOnThePoolAreTheOneThreadFile) {
  // A ramp under 7 bits of noise, in 16x16 code-blocks: 40 x 30 of them in
  // each component's full resolution.
  static_assert(40 * 30 * 3 >= PacketPoolSplit::kLeastCodeBlocks);
  Image image;
  image.x1 = 640;
  image.y1 = 480;
  image.color_space = ColorSpace::kRgb;
  std::mt19937 rng(23);
  for (int c = 0; c < 3; ++c) {
    Component comp;
    comp.width = image.x1;
    comp.height = image.y1;
    for (int64_t y = 0; y < comp.height; ++y)
      for (int64_t x = 0; x < comp.width; ++x)
        comp.samples.push_back(static_cast<int32_t>((x + y * (c + 1) + rng() % 128) % 256));
    image.components.push_back(std::move(comp));
  }
  struct Case {
    std::string what;
    std::function<void(EncodeOptions&)> set;
  };
  const std::vector<Case> cases = {
      {"5/3", [](EncodeOptions&) {}},
      {"RPCL SOP EPH TLM PLT", [](EncodeOptions& o) { o.order = ProgressionOrder::kRPCL; o.sop = o.eph = o.tlm = o.plt = true; }},
      {"CPRL precincts, tile-parts by component", [](EncodeOptions& o) {
         o.order = ProgressionOrder::kCPRL;
         o.precincts = {{7, 7}, {6, 6}};
         o.tile_parts = TilePartDivision::kComponent;
       }},
      {"PPM, tile-parts by resolution", [](EncodeOptions& o) { o.packed_headers = EncodeOptions::PackedHeaders::kPpm; o.tile_parts = TilePartDivision::kResolution; }},
      {"PPT, layers -r 4,2,1 by layer", [](EncodeOptions& o) {
         o.packed_headers = EncodeOptions::PackedHeaders::kPpt;
         o.tile_parts = TilePartDivision::kLayer;
         o.rate_kind = EncodeOptions::RateKind::kRatio;
         o.rate_values = {4, 2, 1};
       }},
      {"HT PCRL SOP", [](EncodeOptions& o) { o.style.ht = true; o.order = ProgressionOrder::kPCRL; o.sop = true; o.precincts = {{8, 8}}; }},
      {"HT 9/7 -r 3", [](EncodeOptions& o) {
         o.style.ht = true;
         o.reversible = false;
         o.rate_kind = EncodeOptions::RateKind::kRatio;
         o.rate_values = {3};
       }},
      {"two tiles, JP2", [](EncodeOptions& o) { o.tile_width = 512; o.container = Container::kJp2; }},
  };
  for (const Case& c : cases) {
    EncodeOptions o = options();
    o.reversible = true;
    o.xcb = o.ycb = 4;
    c.set(o);
    o.threads = 1;
    auto one = encode(image, o);
    ASSERT_TRUE(one.ok()) << c.what << ": " << one.status().message();
    o.threads = 4;
    auto whole = encode(image, o);
    ASSERT_TRUE(whole.ok()) << c.what << ": " << whole.status().message();
    EXPECT_TRUE(*one == *whole) << c.what << ": whole";
    auto lines = streamed(image, o);
    ASSERT_TRUE(lines.ok()) << c.what << ": " << lines.status().message();
    EXPECT_TRUE(*one == *lines) << c.what << ": streamed";
  }
}

// The store itself: each block back as it was kept (those below 2^F in
// magnitude as 0), packed, in memory up to the budget and on disk past it.
TEST(KeptIndexStore, GivesBackEachBlockInMemoryAndOnDisk) {
  std::mt19937 rng(5);
  const int32_t ranges[] = {100, 30000, 1 << 28};
  std::vector<std::vector<int32_t>> blocks;
  for (int k = 0; k < 12; ++k) {
    std::uniform_int_distribution<int32_t> v(-ranges[k % 3], ranges[k % 3]);
    std::vector<int32_t> b(static_cast<size_t>(37 * 23));
    for (int32_t& x : b) x = v(rng);
    blocks.push_back(std::move(b));
  }
  for (uint64_t budget : {uint64_t{0}, uint64_t{20000}, uint64_t{1} << 20}) {
    KeptIndexStore store(budget);
    std::vector<KeptIndices> kept;
    for (size_t k = 0; k < blocks.size(); ++k) {
      const std::vector<int32_t>& b = blocks[k];
      // A block inside a wider plane: its rows 40 apart.
      std::vector<int32_t> plane(static_cast<size_t>(40 * 23), 7);
      for (int y = 0; y < 23; ++y) std::copy_n(b.data() + y * 37, 37, plane.data() + y * 40);
      auto at = store.keep({plane.data(), 37, 23, 40}, static_cast<int>(k % 2) * 3);
      ASSERT_TRUE(at.ok()) << at.status().message();
      kept.push_back(*at);
    }
    for (size_t k = 0; k < blocks.size(); ++k) {
      // Indices below 2^7 (with the sign, 8 bits) in at most 9 bits each.
      if (k % 3 == 0) {
        EXPECT_LE(kept[k].bytes, 37u * 23u * 9u / 8u + 23u * 5u);
      }
      std::vector<int32_t> back(blocks[k].size()), want = blocks[k];
      if (k % 2 == 1)
        for (int32_t& v : want) v = std::abs(v) < 8 ? 0 : v;
      ASSERT_TRUE(store.read(kept[k], {back.data(), 37, 23, 37}).ok());
      EXPECT_TRUE(back == want) << "block " << k << " budget " << budget;
    }
    EXPECT_LE(store.bytes_in_memory(), budget);
    EXPECT_EQ(store.bytes_on_disk() > 0, budget < (uint64_t{1} << 20)) << budget;
  }
}

// A batch lane's memory for indices kept as they are, reused from file to
// file (CallResources::kept_indices): the same bytes for a small file, a
// larger one (the memory grows), the small one again in the larger memory
// (what the larger left there is not read), and a file of four tiles (the
// first tile's room from the lane, the others the call's own).
TEST(EncodeStreamed, HtIndicesInALanesReusedMemoryGiveTheSameBytes) {
  const Image small = test_image(200, 150, 3, 8, false, 31), large = test_image(330, 260, 3, 8, false, 32);
  CallResources resources;
  resources.kept_indices = std::make_shared<KeptIndexMemory>();
  EncodeOptions o = options();
  o.style.ht = true;
  o.reversible = false;
  o.rate_kind = EncodeOptions::RateKind::kRatio;
  o.rate_values = {20};
  const std::pair<const Image*, uint32_t> files[] = {{&small, 0}, {&large, 0}, {&small, 0}, {&large, 128}};
  uint64_t size = 0;
  for (const auto& [image, tile] : files) {
    o.tile_width = o.tile_height = tile;
    auto whole = encode(*image, o);
    ASSERT_TRUE(whole.ok()) << whole.status().message();
    ImageRows rows{*image, {}};
    std::vector<uint8_t> file;
    const FileSink sink = [&](std::span<const uint8_t> piece) {
      file.insert(file.end(), piece.begin(), piece.end());
      return Status::Ok();
    };
    ASSERT_TRUE(encode_streamed(rows.source(), o, resources, sink, nullptr).ok());
    EXPECT_TRUE(file == *whole) << image->width() << "x" << image->height() << " tiles " << tile;
    EXPECT_GE(resources.kept_indices->size, size);
    size = resources.kept_indices->size;
    EXPECT_GT(size, 0u);
  }
}

// A caller's release thread (CallResources::release), as an engine lane
// keeps one: a streamed encode on several threads hands it the last tile's
// strips and band buffers once coded and the coded blocks once the file is
// written, and waits for what an earlier call handed it before it starts.
// The same file as on one thread, call after call on the same thread and
// pool, for one tile and several, and every job done without an error.
TEST(EncodeStreamed, BuffersFreedOnTheCallersReleaseThread) {
  const Image image = test_image(330, 260, 3, 8, false, 35);
  ThreadPool pool(4);
  JobThread release;
  CallResources resources;
  resources.pool = &pool;
  resources.release = &release;
  for (const uint32_t tile : {0u, 128u, 0u}) {
    EncodeOptions o = options();
    o.style.ht = true;
    o.tile_width = o.tile_height = tile;
    o.threads = 1;
    auto one = streamed(image, o);
    ASSERT_TRUE(one.ok()) << one.status().message();
    ImageRows rows{image, {}};
    std::vector<uint8_t> file;
    const FileSink sink = [&](std::span<const uint8_t> piece) {
      file.insert(file.end(), piece.begin(), piece.end());
      return Status::Ok();
    };
    ASSERT_TRUE(encode_streamed(rows.source(), o, resources, sink, nullptr).ok());
    EXPECT_TRUE(file == *one) << "tiles " << tile;
  }
  EXPECT_TRUE(release.wait().ok());
}

// Indices kept as they are: each block back exactly (none zeroed) from
// int8, int16 and int32, rows of any width, each in the bytes its largest
// magnitude needs; a block that needs more than its room's bytes refused
// (the caller packs it); the room only within half the budget.
TEST(KeptIndexStore, GivesBackEachBlockAsItIs) {
  std::mt19937 rng(7);
  KeptIndexStore store(uint64_t{1} << 21);
  EXPECT_EQ(store.raw_room((uint64_t{1} << 20) + 1), nullptr);
  KeptRoom room;
  // 36 blocks of at most 64 x 64 x 4 bytes.
  room.size = uint64_t{36} << 14;
  room.memory = store.raw_room(room.size);
  ASSERT_NE(room.memory, nullptr);
  EXPECT_EQ(store.raw_room(uint64_t{1} << 19), nullptr);
  for (int k = 0; k < 36; ++k) {
    const int64_t w = 1 + static_cast<int64_t>(rng() % 64), h = 1 + static_cast<int64_t>(rng() % 64);
    const int magnitude_bits = k % 3 == 0 ? 7 : k % 3 == 1 ? 15 : 30;
    const int32_t range = (int32_t{1} << magnitude_bits) - 1;
    std::uniform_int_distribution<int32_t> v(-range, range);
    std::vector<int32_t> plane(static_cast<size_t>((w + 5) * h), 7);
    std::vector<int32_t> want;
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) want.push_back(plane[static_cast<size_t>(y * (w + 5) + x)] = v(rng));
    const PlaneView<const int32_t> block{plane.data(), w, h, w + 5};
    // Room at fewer bytes than the block needs: refused.
    if (magnitude_bits > 7) {
      EXPECT_FALSE(KeptIndexStore::keep_raw(block, magnitude_bits, 1, room).has_value());
    }
    const std::optional<KeptIndices> kept = KeptIndexStore::keep_raw(block, magnitude_bits, 4, room);
    ASSERT_TRUE(kept.has_value()) << "block " << k;
    EXPECT_EQ(kept->index_bytes, kept_index_bytes(magnitude_bits));
    EXPECT_EQ(kept->bytes, static_cast<uint32_t>(w * h * kept_index_bytes(magnitude_bits)));
    std::vector<int32_t> back(want.size(), -1);
    ASSERT_TRUE(store.read(*kept, {back.data(), w, h, w}).ok());
    EXPECT_TRUE(back == want) << "block " << k << " " << w << "x" << h << " " << magnitude_bits << " bits";
    // Read as a block of another size: refused.
    EXPECT_FALSE(store.read(*kept, {back.data(), w, h + 1, w}).ok());
  }
  EXPECT_LE(room.used.load(), room.size);
}

// The packer (packed_indices.h) against its plain reference: the same bytes
// from blocks of every width (groups cut at the row's end), magnitude and
// number of fraction bits, runs of groups of zeros short and past the
// longest, both unpackers giving the block back (those below 2^F as 0),
// and bytes that end early or run on refused.
TEST(PackedIndices, TheFastPackerWritesTheReferencesBytes) {
  std::mt19937 rng(9);
  for (int t = 0; t < 200; ++t) {
    const int64_t w = 1 + static_cast<int64_t>(rng() % 64), h = 1 + static_cast<int64_t>(rng() % 64);
    // Laplacian-like: most groups need few bits, some all 32.
    const int shift = static_cast<int>(rng() % 32);
    const int fraction_bits = static_cast<int>(rng() % 4);
    // Some blocks mostly zeros, a few all zeros (runs past the longest).
    const uint32_t zeros = t % 4 == 0 ? 97 : t % 4 == 1 ? 100 : 20;
    std::vector<int32_t> v(static_cast<size_t>((w + 3) * h));
    for (int32_t& x : v) {
      x = static_cast<int32_t>(rng()) >> shift;
      if (rng() % 97 == 0) x = std::numeric_limits<int32_t>::min();
      if (rng() % 100 < zeros) x = 0;
    }
    // Rows `w + 3` apart.
    const PlaneView<const int32_t> block{v.data(), w, h, w + 3};
    std::vector<uint8_t> plain(packed_indices_bound(block.width, block.height)), fast(plain.size());
    const size_t n = pack_indices_reference(block, fraction_bits, plain.data());
    ASSERT_EQ(pack_indices(block, fraction_bits, fast.data()), n) << t;
    ASSERT_TRUE(std::equal(plain.begin(), plain.begin() + static_cast<ptrdiff_t>(n), fast.begin())) << t;
    std::vector<int32_t> a(static_cast<size_t>(block.width * block.height)), b(a.size());
    ASSERT_TRUE(unpack_indices_reference(plain.data(), n, {a.data(), block.width, block.height, block.width}));
    ASSERT_TRUE(unpack_indices(plain.data(), n, {b.data(), block.width, block.height, block.width}));
    for (int64_t y = 0; y < block.height; ++y) {
      for (int64_t x = 0; x < block.width; ++x) {
        const int32_t q = block.row(y)[x];
        const uint32_t magnitude = q < 0 ? 0u - static_cast<uint32_t>(q) : static_cast<uint32_t>(q);
        const int32_t want = (magnitude >> fraction_bits) != 0 ? q : 0;
        ASSERT_EQ(a[static_cast<size_t>(y * block.width + x)], want) << t;
        ASSERT_EQ(b[static_cast<size_t>(y * block.width + x)], want) << t;
      }
    }
    const PlaneView<int32_t> out{a.data(), block.width, block.height, block.width};
    EXPECT_FALSE(unpack_indices(plain.data(), n - 1, out)) << t;
    EXPECT_FALSE(unpack_indices_reference(plain.data(), n - 1, out)) << t;
    plain[n] = 0;
    EXPECT_FALSE(unpack_indices(plain.data(), n + 1, out)) << t;
    EXPECT_FALSE(unpack_indices_reference(plain.data(), n + 1, out)) << t;
  }
}

// Under a rate target the allocator reads every pass table: nothing spills.
TEST(EncodeStreamed, RateTargetsKeepTheCodedBlocksInMemory) {
  const Image image = test_image(200, 150, 3, 8, false, 12);
  EncodeOptions o = options();
  o.coded_memory_budget = 0;
  o.rate_kind = EncodeOptions::RateKind::kRatio;
  o.rate_values = {20};
  EncodeReport report;
  auto lines = streamed(image, o, &report);
  ASSERT_TRUE(lines.ok()) << lines.status().message();
  EXPECT_EQ(report.spilled_blocks, 0u);
  auto whole = encode(image, o);
  ASSERT_TRUE(whole.ok());
  EXPECT_TRUE(*whole == *lines);
}

// A store that cannot be made says where.
TEST(EncodeStreamed, AnUnwritableSpillFolderIsAClearError) {
  const Image image = test_image(120, 90, 3, 8, false, 13);
  EncodeOptions o = options();
  o.coded_memory_budget = 0;
  const char* old = std::getenv("TMPDIR");
  const std::string kept = old ? old : "";
  ::setenv("TMPDIR", "/nonexistent-mallat-folder", 1);
  auto r = streamed(image, o);
  if (old) ::setenv("TMPDIR", kept.c_str(), 1); else ::unsetenv("TMPDIR");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kIoError);
  EXPECT_NE(r.status().message().find("/nonexistent-mallat-folder"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace mallat::codec

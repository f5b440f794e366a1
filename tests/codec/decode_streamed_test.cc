// codec::decode_streamed against codec::decode: the same samples, geometry,
// colour and warnings, strip by strip, over wavelets, block coders,
// component counts, precincts, odd sizes, offsets, sub-sampling, tiles,
// precincts, -r, -c, layers and JP2, to a sink of samples and one of bytes;
// and false (nothing given to the sink)
// where the whole image is needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "codec/api/decode_streamed.h"
#include "codec/decoder/decode_call.h"
#include "codec/codec.h"
#include "tests/codec/codec_test_util.h"
#include "tests/codec/joined_strips.h"
#include "tests/testdata.h"

namespace mallat::codec {
namespace {

// Named apart from tests/codec/encode_streamed_rows.h's test_image: in the unity build both
// are visible, and an int seed given to that one would bind to this one's dx.
Image ramp_test_image(int64_t w, int64_t h, int components, int precision, bool is_signed, int dx = 1, int dy = 1) {
  Image image;
  std::mt19937 rng(static_cast<uint32_t>(w * 131 + h * 7 + components + precision));
  const int32_t lo = is_signed ? -(1 << (precision - 1)) : 0, hi = is_signed ? (1 << (precision - 1)) - 1 : (1 << precision) - 1;
  std::uniform_int_distribution<int32_t> noise(-(hi - lo) / 16, (hi - lo) / 16);
  for (int c = 0; c < components; ++c) {
    Component comp;
    comp.width = (w + dx - 1) / dx;
    comp.height = (h + dy - 1) / dy;
    comp.precision = precision;
    comp.is_signed = is_signed;
    comp.dx = dx;
    comp.dy = dy;
    for (int64_t y = 0; y < comp.height; ++y)
      for (int64_t x = 0; x < comp.width; ++x) {
        const int32_t v = lo + static_cast<int32_t>((x * 7 + y * 3 + c * 50) * (hi - lo) / (7 * comp.width + 3 * comp.height + 150)) + noise(rng);
        comp.samples.push_back(std::clamp(v, lo, hi));
      }
    image.components.push_back(std::move(comp));
  }
  image.color_space = components >= 3 ? ColorSpace::kRgb : ColorSpace::kGray;
  return image;
}

void expect_same_image(const Image& a, const Image& b, const std::string& what) {
  EXPECT_EQ(a.x0, b.x0) << what;
  EXPECT_EQ(a.y0, b.y0) << what;
  EXPECT_EQ(a.x1, b.x1) << what;
  EXPECT_EQ(a.y1, b.y1) << what;
  EXPECT_EQ(a.color_space, b.color_space) << what;
  EXPECT_EQ(a.icc_profile, b.icc_profile) << what;
  ASSERT_EQ(a.components.size(), b.components.size()) << what;
  for (size_t c = 0; c < a.components.size(); ++c) {
    const Component &x = a.components[c], &y = b.components[c];
    EXPECT_EQ(x.width, y.width) << what << " component " << c;
    EXPECT_EQ(x.height, y.height) << what << " component " << c;
    EXPECT_EQ(x.precision, y.precision) << what;
    EXPECT_EQ(x.is_signed, y.is_signed) << what;
    EXPECT_EQ(x.dx, y.dx) << what;
    EXPECT_EQ(x.dy, y.dy) << what;
    EXPECT_EQ(x.role, y.role) << what;
    EXPECT_TRUE(x.samples == y.samples) << what << " component " << c;
  }
}

struct Case {
  std::string name;
  Image image;
  EncodeOptions encode;
  DecodeOptions decode;
};

std::vector<Case> cases() {
  std::vector<Case> v;
  auto add = [&](std::string name, Image image, auto set_encode, auto set_decode) {
    Case c{std::move(name), std::move(image), {}, {}};
    c.encode.threads = 2;
    c.decode.threads = 2;
    set_encode(c.encode);
    set_decode(c.decode);
    v.push_back(std::move(c));
  };
  auto none = [](auto&) {};
  add("5/3 RGB 8-bit odd size", ramp_test_image(157, 203, 3, 8, false), none, none);
  add("9/7 RGB 8-bit", ramp_test_image(130, 97, 3, 8, false), [](EncodeOptions& e) { e.reversible = false; }, none);
  add("HT 5/3 RGB", ramp_test_image(141, 77, 3, 8, false), [](EncodeOptions& e) { e.style.ht = true; }, none);
  add("HT 9/7 grey", ramp_test_image(99, 141, 1, 8, false),
      [](EncodeOptions& e) { e.style.ht = true; e.reversible = false; }, none);
  add("5/3 grey 16-bit", ramp_test_image(120, 65, 1, 16, false), none, none);
  add("9/7 4 components 12-bit signed", ramp_test_image(77, 51, 4, 12, true), [](EncodeOptions& e) { e.reversible = false; },
      none);
  add("one column", ramp_test_image(1, 70, 1, 8, false), none, none);
  add("one row", ramp_test_image(90, 1, 3, 8, false), [](EncodeOptions& e) { e.reversible = false; }, none);
  add("image offset 3,5", ramp_test_image(100, 80, 3, 8, false), [](EncodeOptions& e) { e.image_x0 = 3; e.image_y0 = 5; },
      none);
  add("9/7 image offset 1,1", ramp_test_image(64, 64, 1, 8, false),
      [](EncodeOptions& e) { e.image_x0 = 1; e.image_y0 = 1; e.reversible = false; }, none);
  add("sub-sampled 2x2 all", ramp_test_image(101, 75, 3, 8, false, 2, 2), [](EncodeOptions& e) { e.mct = 0; }, none);
  add("precincts, 32x32 blocks, RPCL", ramp_test_image(150, 120, 3, 8, false),
      [](EncodeOptions& e) {
        e.precincts = {{6, 6}, {5, 5}};
        e.xcb = e.ycb = 5;
        e.order = ProgressionOrder::kRPCL;
      },
      none);
  add("-r 1", ramp_test_image(150, 101, 3, 8, false), none, [](DecodeOptions& d) { d.reduce = 1; });
  add("-r 2, 9/7", ramp_test_image(150, 101, 3, 8, false), [](EncodeOptions& e) { e.reversible = false; },
      [](DecodeOptions& d) { d.reduce = 2; });
  add("-c 2,0", ramp_test_image(90, 60, 3, 8, false), none, [](DecodeOptions& d) { d.components = {2, 0}; });
  add("-c 3 of 4", ramp_test_image(90, 60, 4, 8, false), none, [](DecodeOptions& d) { d.components = {3}; });
  add("layers: 3 written, 1 decoded", ramp_test_image(128, 128, 3, 8, false),
      [](EncodeOptions& e) {
        e.reversible = false;
        e.rate_kind = EncodeOptions::RateKind::kRatio;
        e.rate_values = {40, 10, 2};
      },
      [](DecodeOptions& d) { d.layers = 1; });
  add("no decomposition", ramp_test_image(70, 33, 3, 8, false), [](EncodeOptions& e) { e.resolutions = 1; }, none);
  add("JP2, 9/7", ramp_test_image(80, 90, 3, 8, false),
      [](EncodeOptions& e) { e.container = Container::kJp2; e.reversible = false; }, none);
  add("tiles 64x48", ramp_test_image(150, 101, 3, 8, false), [](EncodeOptions& e) { e.tile_width = 64; e.tile_height = 48; },
      none);
  add("9/7 tiles, tile and image origins, -r 1", ramp_test_image(130, 140, 3, 8, false),
      [](EncodeOptions& e) {
        e.reversible = false;
        e.image_x0 = 5;
        e.image_y0 = 9;
        e.tile_x0 = 3;
        e.tile_y0 = 2;
        e.tile_width = 40;
        e.tile_height = 37;
        e.resolutions = 4;
      },
      [](DecodeOptions& d) { d.reduce = 1; });
  add("HT tiles, -c 1", ramp_test_image(100, 100, 3, 8, false),
      [](EncodeOptions& e) { e.style.ht = true; e.tile_width = e.tile_height = 32; e.resolutions = 3; },
      [](DecodeOptions& d) { d.components = {1}; });
  add("tall strips: 3 levels, 4096 rows", ramp_test_image(8, 4096, 1, 8, false), [](EncodeOptions& e) { e.resolutions = 4; },
      none);
  return v;
}

// On one thread (each code-block row decoded as its subband asks), two
// (rows decoded ahead in batches) and four (the batches decoded on a job of
// their own while the inverse DWT goes on); to a sink of samples and to one that
// takes bytes, which gets them for every case of unsigned components of up
// to 8 bits, all of them decoded.
TEST(DecodeStreamed, EqualsWholeImageDecode) {
  for (const Case& c : cases()) {
    auto bytes = encode(c.image, c.encode);
    ASSERT_TRUE(bytes.ok()) << c.name << ": " << bytes.status().message();
    for (int threads : {1, 2, 4}) {
      for (bool take_bytes : {false, true}) {
        const std::string name =
            c.name + ", " + std::to_string(threads) + " threads" + (take_bytes ? ", sink takes bytes" : "");
        DecodeOptions options = c.decode;
        options.threads = threads;
        DecodeReport whole_report, streamed_report;
        auto whole = decode(*bytes, options, &whole_report);
        ASSERT_TRUE(whole.ok()) << name << ": " << whole.status().message();
        CheckedStrips sink(take_bytes);
        auto streamed = decode_streamed(*bytes, options, sink, &streamed_report);
        ASSERT_TRUE(streamed.ok()) << name << ": " << streamed.status().message();
        ASSERT_TRUE(*streamed) << name << ": not streamed";
        EXPECT_EQ(sink.begins, 1) << name;
        EXPECT_EQ(sink.next_row, whole->height()) << name;
        expect_same_image(sink.image, *whole, name);
        EXPECT_EQ(streamed_report.warnings, whole_report.warnings) << name;
        const bool fits = options.components.empty() &&
                          std::all_of(whole->components.begin(), whole->components.end(), [&](const Component& k) {
                            return !k.is_signed && k.precision <= 8 && k.width == whole->components[0].width;
                          });
        EXPECT_EQ(sink.byte_strips > 0, take_bytes && fits) << name;
        EXPECT_EQ(sink.strips > 0, !(take_bytes && fits)) << name;
      }
    }
  }
}

// A thread keeps its last tile's band buffers for a next tile of the same
// shape (streamed_tile.cc): decoded one after the other on one thread,
// images of one size, one of them flat (its code-blocks without passes,
// zero-filled), each equal its whole-image decode, nothing of the one before.
TEST(DecodeStreamed, BandBuffersKeptForTheNextImageHoldNothingOfTheLast) {
  const Image busy = ramp_test_image(96, 80, 3, 8, false);
  Image flat = busy;
  for (Component& c : flat.components) std::fill(c.samples.begin(), c.samples.end(), 128);
  EncodeOptions e;
  e.style.ht = true;
  const Image* const order[] = {&busy, &flat, &busy};
  for (const Image* image : order) {
    auto bytes = encode(*image, e);
    ASSERT_TRUE(bytes.ok());
    DecodeOptions options;
    options.threads = 1;
    auto whole = decode(*bytes, options);
    ASSERT_TRUE(whole.ok());
    CheckedStrips sink;
    auto streamed = decode_streamed(*bytes, options, sink);
    ASSERT_TRUE(streamed.ok() && *streamed);
    expect_same_image(sink.image, *whole, image == &flat ? "flat" : "busy");
    ASSERT_EQ(sink.image.components.size(), image->components.size());
    for (size_t c = 0; c < image->components.size(); ++c)
      EXPECT_TRUE(sink.image.components[c].samples == image->components[c].samples) << c;
  }
}

TEST(DecodeStreamed, StripsOfAWideImageAreFewRows) {
  // 2^17 samples per strip: a 4096-wide image comes in strips of 32 rows.
  const Image image = ramp_test_image(4096, 600, 1, 8, false);
  EncodeOptions e;
  e.threads = 2;
  auto bytes = encode(image, e);
  ASSERT_TRUE(bytes.ok());
  CheckedStrips sink;
  auto streamed = decode_streamed(*bytes, DecodeOptions{}, sink);
  ASSERT_TRUE(streamed.ok() && *streamed);
  EXPECT_EQ(sink.strips, (600 + 31) / 32);
  EXPECT_TRUE(sink.image.components[0].samples == image.components[0].samples);
}

// Several strips: with four threads or more and several planes the strips
// take turns (StreamedTile::keeps_two_strips), each one's output stage and
// its bytes' hand-over on a thread of their own while the next is made, the
// output stage's bands shared with one thread more at 8 threads and three
// more at 16; the same image as decode() and as one thread, where rows go
// through the output stage one at a time. Odd heights (a short last strip),
// sub-sampled components, -r and the 9/7.
TEST(DecodeStreamed, StripsThroughTheOutputStageBesideTheNextEqualDecode) {
  struct Several {
    const char* name;
    Image image;
    EncodeOptions encode;
    DecodeOptions decode;
  };
  EncodeOptions ht;
  ht.style.ht = true;
  EncodeOptions ht_97 = ht;
  ht_97.reversible = false;
  EncodeOptions ht_no_mct = ht;
  ht_no_mct.mct = 0;
  DecodeOptions reduce_1;
  reduce_1.reduce = 1;
  const Several cases[] = {
      {"HT 5/3 RGB 600x451", ramp_test_image(600, 451, 3, 8, false), ht, {}},
      {"HT 9/7 RGB 600x451", ramp_test_image(600, 451, 3, 8, false), ht_97, {}},
      {"HT 5/3 RGB 1100x501, -r 1", ramp_test_image(1100, 501, 3, 8, false), ht, reduce_1},
      {"HT sub-sampled 2x2 801x703", ramp_test_image(801, 703, 3, 8, false, 2, 2), ht_no_mct, {}},
  };
  for (const Several& c : cases) {
    auto bytes = encode(c.image, c.encode);
    ASSERT_TRUE(bytes.ok()) << c.name << ": " << bytes.status().message();
    DecodeOptions options = c.decode;
    options.threads = 1;
    auto whole = decode(*bytes, options);
    ASSERT_TRUE(whole.ok()) << c.name;
    for (int threads : {1, 4, 8, 16}) {
      const std::string name = std::string(c.name) + ", " + std::to_string(threads) + " threads";
      options.threads = threads;
      CheckedStrips sink(/*bytes=*/true);
      auto streamed = decode_streamed(*bytes, options, sink);
      ASSERT_TRUE(streamed.ok() && *streamed) << name;
      EXPECT_GE(sink.byte_strips, 2) << name;
      expect_same_image(sink.image, *whole, name);
      EXPECT_EQ(sink.strips_handed_beside > 0, threads >= 4) << name;
    }
    // A sink's error at the second strip, handed over beside: the decode's.
    options.threads = 4;
    CheckedStrips failing(/*bytes=*/true);
    failing.fail_at_strip = 1;
    auto stopped = decode_streamed(*bytes, options, failing);
    ASSERT_FALSE(stopped.ok()) << c.name;
    EXPECT_EQ(stopped.status().message(), "the sink stops at a strip") << c.name;
  }
}

TEST(DecodeStreamed, WholeImageCasesAreLeftToDecode) {
  const Image image = ramp_test_image(100, 100, 3, 8, false);
  DecodeOptions region;
  region.region = dwt::Rect{10, 10, 50, 50};
  DecodeOptions one_tile;
  one_tile.tile = 0;
  Image mixed = ramp_test_image(100, 100, 3, 8, false);
  mixed.components[1] = ramp_test_image(100, 100, 1, 8, false, 2, 2).components[0];
  EncodeOptions no_mct;
  no_mct.mct = 0;
  const struct {
    const char* name;
    const Image& image;
    EncodeOptions encode;
    DecodeOptions decode;
  } cases[] = {{"a region", image, {}, region},
               {"-t", image, {}, one_tile},
               {"components of different sizes", mixed, no_mct, {}}};
  for (const auto& c : cases) {
    auto bytes = encode(c.image, c.encode);
    ASSERT_TRUE(bytes.ok()) << c.name << ": " << bytes.status().message();
    CheckedStrips sink;
    auto streamed = decode_streamed(*bytes, c.decode, sink);
    ASSERT_TRUE(streamed.ok()) << c.name << ": " << streamed.status().message();
    EXPECT_FALSE(*streamed) << c.name;
    EXPECT_EQ(sink.begins, 0) << c.name;
  }
}

TEST(DecodeStreamed, DamagedStreamGivesDecodesWarningsAndErrors) {
  const Image image = ramp_test_image(200, 150, 3, 8, false);
  EncodeOptions e;
  e.threads = 2;
  auto bytes = encode(image, e);
  ASSERT_TRUE(bytes.ok());
  // Cut short: the packets that are left decode, with decode's warnings.
  std::vector<uint8_t> cut(bytes->begin(), bytes->begin() + static_cast<std::ptrdiff_t>(bytes->size() * 2 / 3));
  DecodeReport whole_report, streamed_report;
  auto whole = decode(cut, DecodeOptions{}, &whole_report);
  ASSERT_TRUE(whole.ok());
  CheckedStrips sink;
  auto streamed = decode_streamed(cut, DecodeOptions{}, sink, &streamed_report);
  ASSERT_TRUE(streamed.ok() && *streamed);
  expect_same_image(sink.image, *whole, "cut short");
  EXPECT_FALSE(whole_report.warnings.empty());
  EXPECT_EQ(streamed_report.warnings, whole_report.warnings);
  // Refused without -allow-partial: the same error, and no rows.
  DecodeOptions strict;
  strict.allow_partial = false;
  auto whole_error = decode(cut, strict);
  CheckedStrips none;
  auto streamed_error = decode_streamed(cut, strict, none);
  ASSERT_FALSE(whole_error.ok());
  ASSERT_FALSE(streamed_error.ok());
  EXPECT_EQ(streamed_error.status().message(), whole_error.status().message());
  EXPECT_EQ(none.begins, 0);
}

// The shared conformance streams (Part 1 and HT) that the streamed path
// takes give decode()'s images, which the conformance tests hold to the
// reference decodes; the others are left to decode() untouched.
// A sink that stops the decode at its first call.
class Refuse final : public RowSink {
 public:
  Status begin(const Image&) override { return io_error("the sink stops here"); }
  Status rows(Image, int64_t) override { return io_error("the sink stops here"); }
};

// Above 2^31 samples decode() refuses the stream at SIZ
// (ParseLimits::max_samples); the streamed path, which holds strips, is
// bounded by its memory check alone.
TEST(DecodeStreamed, ImagesAboveTheParseLimitAreBoundedByTheMemoryCheck) {
  auto bytes = encode(ramp_test_image(64, 64, 3, 8, false), EncodeOptions{});
  ASSERT_TRUE(bytes.ok());
  // A.5.1: SIZ follows SOC; Xsiz, Ysiz at bytes 8 and 12, XTsiz, YTsiz at
  // 24 and 28. 27000 x 27000 x 3 = 2,187,000,000 samples, one tile.
  std::vector<uint8_t> big = *bytes;
  ASSERT_EQ(big[2], 0xFF);
  ASSERT_EQ(big[3], 0x51);
  for (size_t at : {8u, 12u, 24u, 28u}) {
    const uint32_t v = 27000;
    for (int i = 0; i < 4; ++i) big[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (24 - 8 * i));
  }
  auto whole = decode(big, DecodeOptions{});
  ASSERT_FALSE(whole.ok());
  EXPECT_NE(whole.status().message().find("2187000000 samples, above the limit 2147483648"), std::string::npos)
      << whole.status().message();
  DecodeOptions small;
  small.max_memory = uint64_t{64} << 20;
  Refuse sink;
  auto refused = decode_streamed(big, small, sink);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kResourceLimit);
  EXPECT_NE(refused.status().message().find("above the memory limit of 64 MiB"), std::string::npos)
      << refused.status().message();
  // Within 2 GiB the header is taken and the tile's packets are read: the
  // sink is reached.
  DecodeOptions enough;
  enough.max_memory = uint64_t{2} << 30;
  auto reached = decode_streamed(big, enough, sink);
  ASSERT_FALSE(reached.ok());
  EXPECT_EQ(reached.status().message(), "the sink stops here");
}

TEST(DecodeStreamed, ConformanceStreamsEqualTheWholeImageDecode) {
  MALLAT_REQUIRE_TESTDATA("conformance");
  const auto dir = mallat::testing::testdata_dir() / "conformance";
  std::vector<std::filesystem::path> files;
  for (const char* ext : {".j2k", ".jp2"})
    for (const auto& f : testing::files_with_extension(dir, ext)) files.push_back(f);
  if (std::filesystem::exists(dir / "htj2k"))
    for (const auto& f : testing::files_with_extension(dir / "htj2k", ".j2k")) files.push_back(f);
  int streamed_count = 0;
  for (const auto& file : files) {
    const std::vector<uint8_t> bytes = testing::read_bytes(file);
    DecodeOptions options;
    options.threads = 2;
    DecodeReport whole_report, streamed_report;
    auto whole = decode(bytes, options, &whole_report);
    CheckedStrips sink;
    auto streamed = decode_streamed(bytes, options, sink, &streamed_report);
    ASSERT_EQ(streamed.ok(), whole.ok()) << file;
    if (!streamed.ok() || !*streamed) {
      EXPECT_EQ(sink.begins, 0) << file;
      continue;
    }
    ++streamed_count;
    expect_same_image(sink.image, *whole, file.filename().string());
    EXPECT_EQ(streamed_report.warnings, whole_report.warnings) << file;
  }
  std::printf("%d of %zu conformance streams decoded strip by strip\n", streamed_count, files.size());
  EXPECT_GE(streamed_count, 10);
}

// Without device tiles the decode from a device raster is left to the
// streamed decode: false, the sink untouched.
TEST(DecodeStreamed, ADeviceRasterDecodeWithoutDeviceTilesIsLeftToOthers) {
  const auto bytes = encode(ramp_test_image(64, 48, 3, 8, false), EncodeOptions{});
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  CheckedStrips sink(/*bytes=*/true);
  const Result<bool> sent = decode_from_device_raster(*bytes, DecodeOptions{}, CallResources{}, sink, nullptr);
  ASSERT_TRUE(sent.ok()) << sent.status().message();
  EXPECT_FALSE(*sent);
  EXPECT_EQ(sink.begins, 0);
}
}  // namespace
}  // namespace mallat::codec

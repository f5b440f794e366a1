// The decoder's memory bound (codec/codestream/memory_limit.h): above what a decode
// really holds, not absurdly so, and refusing hostile headers before any
// allocation.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "codec/codec.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/codestream/memory_limit.h"
#include "tests/testdata.h"

namespace mallat::codec {
namespace {

std::vector<uint8_t> read(const std::string& sub) {
  std::ifstream in(testing::testdata_dir() / sub, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), {});
}

TEST(MemoryLimit, BoundsARealStream) {
  MALLAT_REQUIRE_TESTDATA("conformance/p0_01.j2k");
  const std::vector<uint8_t> bytes = read("conformance/p0_01.j2k");
  auto cs = parse_codestream(bytes);
  ASSERT_TRUE(cs.ok()) << cs.status().message();
  const ImageAndTileSize& siz = cs->main.siz;
  uint64_t samples = 0;
  for (const ComponentSize& c : siz.components)
    samples += uint64_t{(siz.xsiz - siz.xosiz + c.dx - 1) / c.dx} * ((siz.ysiz - siz.yosiz + c.dy - 1) / c.dy);
  const uint64_t estimate = estimate_decoder_memory(*cs, 0, bytes.size());
  // At least the output image and one working plane, and within a small
  // factor of that for an ordinary stream.
  EXPECT_GE(estimate, samples * 8);
  EXPECT_LE(estimate, samples * 64 + (1u << 20));
  // Reducing the resolution shrinks the output part.
  EXPECT_LT(estimate_decoder_memory(*cs, 2, bytes.size()), estimate);
}

// A region decode holds the region's windows, not the image: its bound is
// far smaller, and a limit that refuses the whole image lets a region through.
TEST(MemoryLimit, ARegionNeedsLessThanTheImage) {
  Image image;
  image.components.resize(3);
  for (int c = 0; c < 3; ++c) {
    Component& comp = image.components[c];
    comp.width = 1024;
    comp.height = 768;
    comp.precision = 8;
    comp.samples.resize(1024 * 768);
    for (size_t i = 0; i < comp.samples.size(); ++i) comp.samples[i] = static_cast<int32_t>((i * 7 + c * 31) % 251);
  }
  auto bytes = encode(image, EncodeOptions{});
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  auto cs = parse_codestream(*bytes);
  ASSERT_TRUE(cs.ok());
  const uint64_t whole = estimate_decoder_memory(*cs, 0, bytes->size());
  const dwt::Rect region{400, 300, 464, 364};
  const uint64_t part = estimate_decoder_memory(*cs, 0, bytes->size(), region);
  EXPECT_LT(part, whole) << part << " " << whole;
  // Still above what the region's output and one plane of its windows take.
  EXPECT_GE(part, uint64_t{64} * 64 * 3 * 8);
  // The same headers for a 15360x8192 image in one tile: the whole decode's
  // planes are gigabytes, a 1024x1024 region's windows and the tile's code-block state a few hundred MB.
  Codestream large = *cs;
  large.main.siz.xsiz = large.main.siz.xtsiz = 15360;
  large.main.siz.ysiz = large.main.siz.ytsiz = 8192;
  const uint64_t large_whole = estimate_decoder_memory(large, 0, 0);
  const uint64_t large_part = estimate_decoder_memory(large, 0, 0, dwt::Rect{4096, 2048, 5120, 3072});
  EXPECT_GT(large_whole, uint64_t{15360} * 8192 * 3 * 12);
  EXPECT_GE(large_part, uint64_t{1024} * 1024 * 3 * 16);  // the region's output and its full-resolution windows
  EXPECT_LT(large_part * 10, large_whole) << large_part << " " << large_whole;

  DecodeOptions options;
  options.max_memory = (part + whole) / 2;
  auto refused = decode(*bytes, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kResourceLimit);
  options.region = region;
  auto decoded = decode(*bytes, options);
  ASSERT_TRUE(decoded.ok()) << decoded.status().to_string();
  EXPECT_EQ(decoded->width(), 64);
  EXPECT_EQ(decoded->components[1].samples[0], image.components[1].samples[300 * 1024 + 400]);
}

TEST(MemoryLimit, RefusesAHugeImageBeforeAllocating) {
  // malformed/broken.jpc: a 203 x 2097304 RGB image in 13799 tiles, 5 GB of
  // samples for a 20 kB file.
  MALLAT_REQUIRE_TESTDATA("malformed/broken.jpc");
  const std::vector<uint8_t> bytes = read("malformed/broken.jpc");
  DecodeOptions options;
  options.max_memory = uint64_t{1} << 30;
  auto image = decode(bytes, options);
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.status().code(), ErrorCode::kResourceLimit);
  EXPECT_NE(image.status().message().find("--max-memory"), std::string::npos) << image.status().message();
}

TEST(MemoryLimit, LimitIsTheOptionWhenGiven) {
  MALLAT_REQUIRE_TESTDATA("conformance/p0_01.j2k");
  const std::vector<uint8_t> bytes = read("conformance/p0_01.j2k");
  DecodeOptions options;
  options.max_memory = 1024;  // far too little for any image
  auto image = decode(bytes, options);
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.status().code(), ErrorCode::kResourceLimit);
  options.max_memory = uint64_t{1} << 30;
  EXPECT_TRUE(decode(bytes, options).ok());
}

TEST(MemoryLimit, DefaultComesFromTheMachine) {
  const uint64_t limit = default_memory_limit();
  EXPECT_GT(limit, uint64_t{64} << 20);
  EXPECT_LT(limit, uint64_t{1} << 50);
}

}  // namespace
}  // namespace mallat::codec

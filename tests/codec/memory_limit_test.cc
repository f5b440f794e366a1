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

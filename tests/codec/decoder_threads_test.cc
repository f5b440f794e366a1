// The decoder's output does not depend on the thread count: Tier-1, the
// allocation of the output image and the tile output stage (colour
// transform, DC shift, clamp, placement) all run on the pool. Odd sizes,
// several tiles with offsets, sub-sampled components, truncated streams.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "codec/codec.h"
#include "tests/codec/codec_test_util.h"
#include "tests/interop/generated.h"
#include "tests/testdata.h"

namespace mallat::codec {
namespace {

constexpr int kThreadCounts[] = {2, 3, 7};

Result<Image> decode_with(std::span<const uint8_t> stream, int threads, int reduce = 0) {
  DecodeOptions o;
  o.threads = threads;
  o.reduce = reduce;
  o.dwt_backend = dwt::BackendKind::kCpu;
  return decode(stream, o);
}

void expect_same_images(const Image& a, const Image& b, const std::string& what) {
  ASSERT_EQ(a.num_components(), b.num_components()) << what;
  for (int c = 0; c < a.num_components(); ++c) {
    EXPECT_EQ(a.components[c].width, b.components[c].width) << what;
    EXPECT_EQ(a.components[c].height, b.components[c].height) << what;
    ASSERT_EQ(a.components[c].samples, b.components[c].samples) << what << ", component " << c;
  }
}

// Decodes at 1 thread and at each of kThreadCounts, and expects one image.
void expect_thread_independent(std::span<const uint8_t> stream, const std::string& what, int reduce = 0) {
  Result<Image> one = decode_with(stream, 1, reduce);
  ASSERT_TRUE(one.ok()) << what << ": " << one.status().to_string();
  for (int threads : kThreadCounts) {
    Result<Image> many = decode_with(stream, threads, reduce);
    ASSERT_TRUE(many.ok()) << what << ": " << many.status().to_string();
    expect_same_images(*one, *many, what + ", " + std::to_string(threads) + " threads");
  }
}

EncodeOptions tiled(bool reversible) { return testing::cut_tiles(reversible); }

TEST(DecoderThreads, GeneratedStreams) {
  struct Case {
    int components, precision;
    bool is_signed, reversible;
  };
  for (const Case& k : {Case{3, 8, false, true}, Case{3, 8, false, false}, Case{1, 12, true, true},
                        Case{4, 16, false, false}, Case{2, 5, false, true}}) {
    const Image image = mallat::testing::generated_image(203, 117, k.components, k.precision, k.is_signed, 5);
    const std::string what = std::to_string(k.components) + " x " + std::to_string(k.precision) + " bits" +
                             (k.reversible ? ", 5/3" : ", 9/7");
    for (const bool one_tile : {true, false}) {
      EncodeOptions o = tiled(k.reversible);
      if (one_tile) o.tile_width = o.tile_height = o.tile_x0 = o.tile_y0 = o.image_x0 = o.image_y0 = 0;
      Result<std::vector<uint8_t>> stream = encode(image, o);
      ASSERT_TRUE(stream.ok()) << stream.status().to_string();
      const std::string w = what + (one_tile ? ", one tile" : ", tiles");
      expect_thread_independent(*stream, w);
      expect_thread_independent(*stream, w + ", reduced", 1);
      if (k.reversible) {
        Result<Image> back = decode_with(*stream, 2);
        ASSERT_TRUE(back.ok());
        expect_same_images(*back, image, w + ": lossless");
      }
    }
  }
}

TEST(DecoderThreads, TruncatedStreams) {
  // Cut streams leave tiles or code-blocks without data: zeros there, the
  // same for any thread count.
  for (const bool reversible : {true, false}) {
    const Image image = mallat::testing::generated_image(150, 100, 3, 8, false, 8);
    Result<std::vector<uint8_t>> stream = encode(image, tiled(reversible));
    ASSERT_TRUE(stream.ok());
    for (const size_t percent : {20, 45, 70, 95}) {
      const std::span<const uint8_t> cut(stream->data(), stream->size() * percent / 100);
      expect_thread_independent(cut, std::to_string(percent) + "% of the stream" + (reversible ? ", 5/3" : ", 9/7"));
    }
  }
}

TEST(DecoderThreads, ConformanceStreams) {
  MALLAT_REQUIRE_TESTDATA("conformance");
  // Sub-sampled components (p0_05, p0_06, p0_10, p1_03, p1_07), many tiles
  // (p1_04, p1_05), odd sizes (p0_02, p0_09, p0_12).
  for (const char* name : {"p0_02", "p0_05", "p0_06", "p0_09", "p0_10", "p0_12", "p1_03", "p1_04", "p1_05", "p1_07"}) {
    const auto bytes = testing::read_bytes(mallat::testing::testdata_dir() / "conformance" / (std::string(name) + ".j2k"));
    ASSERT_FALSE(bytes.empty()) << name;
    expect_thread_independent(bytes, name);
  }
}

}  // namespace
}  // namespace mallat::codec

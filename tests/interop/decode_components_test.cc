// DecodeOptions::components (-c): the components asked for, in the order
// asked, equal the same components of a whole decode; against
// opj_decompress -c on streams without the colour transform; the errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "io/image_io.h"
#include "tests/codec/codec_test_util.h"
#include "tests/interop/generated.h"
#include "tests/testdata.h"

namespace mallat::codec {
namespace {

using mallat::codec::testing::read_bytes;

// Generated images: a gradient plus noise, offset per component, so that a
// component put in another's place shows.
Image pattern(int components, int64_t width, int64_t height) {
  return mallat::testing::generated_image(width, height, components, 8, false, 12345);
}

std::vector<uint8_t> encoded(const Image& image, const EncodeOptions& options) {
  auto bytes = encode(image, options);
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

void expect_same_component(const Component& a, const Component& b, const std::string& what) {
  EXPECT_EQ(a.width, b.width) << what;
  EXPECT_EQ(a.height, b.height) << what;
  EXPECT_EQ(a.precision, b.precision) << what;
  EXPECT_EQ(a.is_signed, b.is_signed) << what;
  EXPECT_EQ(a.dx, b.dx) << what;
  EXPECT_EQ(a.dy, b.dy) << what;
  EXPECT_TRUE(a.samples == b.samples) << what;
}

// Every list in `lists`, decoded with `options`, against a whole decode with
// the same options.
void expect_components_of_whole(std::span<const uint8_t> bytes, DecodeOptions options,
                                const std::vector<std::vector<int>>& lists, const std::string& what) {
  options.components.clear();
  const auto whole = decode(bytes, options);
  ASSERT_TRUE(whole.ok()) << what << ": " << whole.status().to_string();
  for (const std::vector<int>& asked : lists) {
    options.components = asked;
    std::string name = what + ", -c";
    for (int c : asked) name.append(1, ' ').append(std::to_string(c));
    const auto part = decode(bytes, options);
    ASSERT_TRUE(part.ok()) << name << ": " << part.status().to_string();
    ASSERT_EQ(part->components.size(), asked.size()) << name;
    for (size_t i = 0; i < asked.size(); ++i)
      expect_same_component(part->components[i], whole->components[static_cast<size_t>(asked[i])],
                            name + ", output " + std::to_string(i));
    EXPECT_EQ(part->x0, whole->x0) << name;
    EXPECT_EQ(part->y1, whole->y1) << name;
  }
}

TEST(DecodeComponents, RgbWithAndWithoutColourTransform) {
  const Image image = pattern(3, 61, 45);
  const std::vector<std::vector<int>> lists = {{0}, {1}, {2}, {2, 0}, {1, 2}, {2, 1, 0}, {0, 1, 2}};
  for (int mct : {0, 1})
    for (bool reversible : {true, false}) {
      EncodeOptions options;
      options.mct = mct;
      options.reversible = reversible;
      options.resolutions = 4;
      if (!reversible) {
        options.rate_kind = EncodeOptions::RateKind::kBitsPerPixel;
        options.rate_values = {3.0};
      }
      const std::string what = std::string(reversible ? "5/3" : "9/7") + (mct ? " with" : " without") + " MCT";
      expect_components_of_whole(encoded(image, options), DecodeOptions{}, lists, what);
    }
}

TEST(DecodeComponents, FourComponentsTilesLayersAndReduce) {
  // Component 3 lies outside the colour transform: asked alone, components
  // 0..2 are not decoded; asked with one of them, all four are.
  const Image image = pattern(4, 70, 53);
  EncodeOptions options;
  options.tile_width = 32;
  options.tile_height = 24;
  options.resolutions = 3;
  options.order = ProgressionOrder::kCPRL;
  options.rate_kind = EncodeOptions::RateKind::kBitsPerPixel;
  options.rate_values = {1.0, 3.0, 8.0};
  const std::vector<uint8_t> bytes = encoded(image, options);
  const std::vector<std::vector<int>> lists = {{3}, {3, 1}, {0, 3}, {2}, {3, 2, 1, 0}};
  for (int reduce : {0, 1, 2})
    for (int layers : {0, 2}) {
      DecodeOptions d;
      d.reduce = reduce;
      d.layers = layers;
      expect_components_of_whole(bytes, d, lists,
                                 "reduce " + std::to_string(reduce) + ", layers " + std::to_string(layers));
    }
  DecodeOptions one_tile;
  one_tile.tile = 4;
  expect_components_of_whole(bytes, one_tile, lists, "tile 4");
}

TEST(DecodeComponents, SubSampledComponents) {
  // p0_06: 4 components sub-sampled 1x1, 2x1, 1x2, 2x2; its HT version;
  // p1_07: 2 components, 4x1 and 1x1.
  for (const char* name : {"conformance/p0_06.j2k", "conformance/htj2k/ds0_ht_06_b18.j2k", "conformance/p1_07.j2k"}) {
    MALLAT_REQUIRE_TESTDATA(name);
    const std::vector<uint8_t> bytes = read_bytes(mallat::testing::testdata_dir() / name);
    std::vector<std::vector<int>> lists = {{0}, {1}, {1, 0}};
    if (std::string(name).find("p1_07") == std::string::npos) lists.push_back({3, 1});
    for (int reduce : {0, 1}) {
      DecodeOptions d;
      d.reduce = reduce;
      expect_components_of_whole(bytes, d, lists, std::string(name) + " reduce " + std::to_string(reduce));
    }
  }
}

TEST(DecodeComponents, Jp2HeaderOnlyForAWholeDecode) {
  // file9.jp2: one component indexing a palette of three columns. Asked for
  // alone it is the palette indices, the header not applied (opj_decompress
  // -c bypasses pclr, cmap and cdef too); asked as "every component in
  // order" it is the whole decode, palette applied.
  MALLAT_REQUIRE_TESTDATA("conformance/file9.jp2");
  const std::vector<uint8_t> bytes = read_bytes(mallat::testing::testdata_dir() / "conformance/file9.jp2");
  DecodeOptions raw;
  raw.apply_jp2_header = false;
  const auto indices = decode(bytes, raw);
  ASSERT_TRUE(indices.ok()) << indices.status().to_string();
  ASSERT_EQ(indices->components.size(), 1u);
  const auto whole = decode(bytes, DecodeOptions{});
  ASSERT_TRUE(whole.ok());
  ASSERT_EQ(whole->components.size(), 3u);
  DecodeOptions all;
  all.components = {0};
  const auto listed = decode(bytes, all);
  ASSERT_TRUE(listed.ok());
  // {0} is every component of this file in order: the whole decode.
  ASSERT_EQ(listed->components.size(), 3u);
  for (size_t c = 0; c < 3; ++c) expect_same_component(listed->components[c], whole->components[c], "palette");

  // file2.jp2: cdef reorders its three channels. Picked out, the components
  // are the codestream's, as apply_jp2_header = false gives them, grey.
  MALLAT_REQUIRE_TESTDATA("conformance/file2.jp2");
  const std::vector<uint8_t> file2 = read_bytes(mallat::testing::testdata_dir() / "conformance/file2.jp2");
  const auto coded = decode(file2, raw);
  ASSERT_TRUE(coded.ok());
  DecodeOptions two;
  two.components = {2, 0};
  const auto picked = decode(file2, two);
  ASSERT_TRUE(picked.ok()) << picked.status().to_string();
  ASSERT_EQ(picked->components.size(), 2u);
  expect_same_component(picked->components[0], coded->components[2], "file2 -c 2,0: output 0");
  expect_same_component(picked->components[1], coded->components[0], "file2 -c 2,0: output 1");
  EXPECT_EQ(picked->color_space, ColorSpace::kGray);
}

TEST(DecodeComponents, BadIndicesAreRefusedByName) {
  const std::vector<uint8_t> bytes = encoded(pattern(3, 16, 16), EncodeOptions{});
  struct Case {
    std::vector<int> asked;
    std::string message;
  };
  for (const Case& c : {Case{{3}, "component 3 does not exist (the image has 3 components, 0..2)"},
                        Case{{0, -1}, "component -1 does not exist"},
                        Case{{1, 2, 1}, "component 1 is asked for twice"}}) {
    DecodeOptions d;
    d.components = c.asked;
    const auto image = decode(bytes, d);
    ASSERT_FALSE(image.ok());
    EXPECT_EQ(image.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(image.status().message().find(c.message), std::string::npos) << image.status().message();
  }
}

// prefix + n + suffix (built by append: GCC 12 warns falsely, -Wrestrict, on
// "literal" + std::to_string(n)).
std::string numbered(std::string prefix, size_t n, const char* suffix) {
  return prefix.append(std::to_string(n)).append(suffix);
}

// opj_decompress -c on streams without the colour transform (with it,
// opj_decompress skips the transform and writes Y, Cb, Cr: TOLERANCE.md).
TEST(DecodeComponents, AsOpjDecompress) {
  ASSERT_EQ(std::system("command -v opj_compress > /dev/null 2>&1 && command -v opj_decompress > /dev/null 2>&1"),
            0)
      << "opj_compress / opj_decompress are not installed (tools/quickstart.sh installs them)";
  MALLAT_REQUIRE_TESTDATA("images/Bretagne1.ppm");
  const std::filesystem::path dir = mallat::testing::make_temp_dir("decode-components");
  const std::string in = (mallat::testing::testdata_dir() / "images/Bretagne1.ppm").string();
  struct Case {
    std::string compress, decompress;
    std::vector<int> asked;
    int reduce;
  };
  // 5/3 streams (cut to rates): opj_decompress's 9/7 differs from ours by up
  // to 1 in whole decodes too, so equality is tested on the 5/3.
  const std::vector<Case> cases = {{"-mct 0 -n 4 -r 10,1", "-c 2,0", {2, 0}, 0},
                                   {"-mct 0 -r 20 -t 256,256", "-c 1 -r 1", {1}, 1},
                                   {"-mct 0 -p RLCP -r 30,10", "-c 0,2,1", {0, 2, 1}, 0}};
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const std::filesystem::path stream = dir / numbered("s", i, ".j2k");
    const std::filesystem::path out = dir / numbered("o", i, ".pgx");
    const std::string compress = "opj_compress -i '" + in + "' -o '" + stream.string() + "' " + c.compress +
                                 " > /dev/null 2>&1";
    ASSERT_EQ(std::system(compress.c_str()), 0) << compress;
    const std::string decompress = "opj_decompress -i '" + stream.string() + "' -o '" + out.string() + "' " +
                                   c.decompress + " > /dev/null 2>&1";
    ASSERT_EQ(std::system(decompress.c_str()), 0) << decompress;
    DecodeOptions d;
    d.components = c.asked;
    d.reduce = c.reduce;
    const auto ours = decode(read_bytes(stream), d);
    ASSERT_TRUE(ours.ok()) << ours.status().to_string();
    ASSERT_EQ(ours->components.size(), c.asked.size());
    // opj_decompress writes PGX as one file per output component, _0 first.
    for (size_t k = 0; k < c.asked.size(); ++k) {
      const std::filesystem::path pgx = dir / numbered(numbered("o", i, "_"), k, ".pgx");
      const auto theirs = io::read_image(pgx);
      ASSERT_TRUE(theirs.ok()) << pgx << ": " << theirs.status().to_string();
      ASSERT_EQ(theirs->components.size(), 1u);
      const Component& a = ours->components[k];
      const Component& b = theirs->components[0];
      EXPECT_EQ(a.width, b.width) << c.decompress << ", output " << k;
      EXPECT_EQ(a.height, b.height) << c.decompress << ", output " << k;
      EXPECT_TRUE(a.samples == b.samples) << c.decompress << ", output " << k;
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mallat::codec

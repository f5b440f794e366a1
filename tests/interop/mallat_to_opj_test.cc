// mallat encode -> opj_decompress -> bit-exact: mallat's lossless files (the
// shared images, generated sizes, depths and signs, JP2 and coding options)
// decode with OpenJPEG to the original samples.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "codec/codec.h"
#include "common/metrics.h"
#include "io/file.h"
#include "io/image_io.h"
#include "tests/interop/generated.h"
#include "tests/interop/opj.h"
#include "tests/testdata.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;
using testing::generated_image;

// Encodes in-process, decodes with OpenJPEG, and expects every sample back.
void expect_opj_decodes_exactly(const Image& image, const codec::EncodeOptions& options,
                                const std::string& name) {
  ASSERT_TRUE(testing::have_program("opj_decompress")) << "opj_decompress is not installed";
  auto bytes = codec::encode(image, options);
  ASSERT_TRUE(bytes.ok()) << name << ": " << bytes.status().to_string();
  const fs::path dir = testing::make_temp_dir("m2o");
  const fs::path stream =
      dir / (options.container == codec::Container::kJp2 ? "x.jp2" : "x.j2k");
  ASSERT_TRUE(io::write_file_atomically(stream, *bytes).ok());
  const fs::path log = dir / "log.txt";
  ASSERT_EQ(testing::run_command("opj_decompress -i " + stream.string() + " -o " +
                                     (dir / "out.pgx").string(), log), 0)
      << name << ": opj_decompress failed; see " << log;
  auto decoded = testing::read_pgx_components(dir, "out", image.num_components());
  ASSERT_TRUE(decoded.ok()) << name << ": " << decoded.status().to_string();
  for (int c = 0; c < image.num_components(); ++c) {
    const Component& a = image.components[c];
    const Component& b = decoded->components[c];
    ASSERT_EQ(a.width, b.width) << name << " component " << c;
    ASSERT_EQ(a.height, b.height) << name << " component " << c;
    ASSERT_EQ(a.precision, b.precision) << name << " component " << c;
    ASSERT_EQ(a.is_signed, b.is_signed) << name << " component " << c;
    ASSERT_TRUE(a.samples == b.samples) << name << " component " << c << " differs";
  }
  fs::remove_all(dir);
}

TEST(MallatToOpj, SharedImages) {
  MALLAT_REQUIRE_TESTDATA("images");
  int count = 0;
  for (const auto& dir : {testing::testdata_dir() / "images", testing::testdata_dir() / "images/pngsuite"}) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".ppm" && ext != ".bmp" && ext != ".tif" && ext != ".png") continue;
      auto image = io::read_image(entry.path());
      ASSERT_TRUE(image.ok()) << image.status().to_string();
      codec::EncodeOptions options;
      expect_opj_decodes_exactly(*image, options, entry.path().filename().string());
      ++count;
    }
  }
  EXPECT_GT(count, 60);
}

TEST(MallatToOpj, GeneratedOddSizesDepthsAndSigns) {
  struct Case { int64_t w, h; int comps, bits; bool is_signed; };
  const Case cases[] = {
      {1, 1, 1, 8, false},   {17, 3, 1, 8, false},   {3, 17, 2, 12, false},
      {33, 65, 3, 8, false}, {65, 33, 3, 12, true},  {127, 129, 4, 16, false},
      {100, 7, 3, 16, true}, {64, 64, 2, 8, true},   {129, 61, 1, 12, true},
  };
  for (const Case& c : cases) {
    Image image = generated_image(c.w, c.h, c.comps, c.bits, c.is_signed);
    codec::EncodeOptions options;
    const std::string name = std::to_string(c.w) + "x" + std::to_string(c.h) + "x" +
                             std::to_string(c.comps) + " " + std::to_string(c.bits) +
                             (c.is_signed ? " signed" : " unsigned");
    expect_opj_decodes_exactly(image, options, name);
  }
}

TEST(MallatToOpj, Jp2AndCodingOptions) {
  Image image = generated_image(200, 150, 3, 8, false, 5);
  codec::EncodeOptions jp2;
  jp2.container = codec::Container::kJp2;
  expect_opj_decodes_exactly(image, jp2, "jp2");
  for (int order = 0; order < 5; ++order) {
    codec::EncodeOptions o;
    o.order = static_cast<codec::ProgressionOrder>(order);
    o.tile_width = 64;
    o.tile_height = 48;
    o.precincts = {{6, 6}, {5, 5}};
    o.sop = o.eph = true;
    o.xcb = 4;
    o.ycb = 5;
    expect_opj_decodes_exactly(image, o, "order " + std::to_string(order) + " with tiles");
  }
  for (int bits : {1, 4, 5, 63}) {  // BYPASS, TERMALL, both, every switch
    codec::EncodeOptions o;
    o.style = codec::CodeBlockStyle::from_byte(static_cast<uint8_t>(bits));
    expect_opj_decodes_exactly(image, o, "mode switches " + std::to_string(bits));
  }
}

}  // namespace
}  // namespace mallat

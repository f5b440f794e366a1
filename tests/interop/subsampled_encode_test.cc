// The encoder takes sub-sampled components (B.2, A.5.1). SIZ
// carries each XRsiz, YRsiz and the image area; a lossless stream decodes to
// the input exactly, by mallat and by opj_decompress sample for sample; the
// colour transform is coded only where components 0..2 share size and
// sub-sampling (G.2, G.3); rate targets count each component at its size.
//
// opj_decompress takes a 3-component stream whose component 1 has XRsiz > 1
// to be sYCC and converts it to RGB for every output format, so the streams
// compared with it here are of 2 or 4 components, or have XRsiz 1 on
// component 1.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "codec/codec.h"
#include "codec/codestream/codestream_reader.h"
#include "common/metrics.h"
#include "io/file.h"
#include "tests/interop/opj.h"
#include "tests/testdata.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct Plane {
  int dx, dy;
};

// An image area of w x h at (x0, y0) whose components have these factors,
// each of its B-2 size, filled with smooth content plus noise.
Image subsampled_image(int64_t w, int64_t h, int64_t x0, int64_t y0, std::vector<Plane> planes, int bits,
                       bool is_signed, uint32_t seed) {
  Image image;
  std::mt19937 rng(seed);
  for (size_t c = 0; c < planes.size(); ++c) {
    Component comp;
    comp.dx = planes[c].dx;
    comp.dy = planes[c].dy;
    comp.width = ceil_div(x0 + w, comp.dx) - ceil_div(x0, comp.dx);
    comp.height = ceil_div(y0 + h, comp.dy) - ceil_div(y0, comp.dy);
    comp.precision = bits;
    comp.is_signed = is_signed;
    std::uniform_int_distribution<int32_t> noise(-3, 3);
    const int32_t lo = comp.min_value(), hi = comp.max_value();
    for (int64_t y = 0; y < comp.height; ++y)
      for (int64_t x = 0; x < comp.width; ++x) {
        const int64_t v = lo + ((x * 37 + y * 23 + static_cast<int64_t>(c) * 101) * (hi - lo) / 997) % (hi - lo + 1);
        comp.samples.push_back(static_cast<int32_t>(std::clamp<int64_t>(v + noise(rng), lo, hi)));
      }
    image.components.push_back(std::move(comp));
  }
  image.x0 = x0;
  image.y0 = y0;
  image.x1 = x0 + w;
  image.y1 = y0 + h;
  return image;
}

// Decodes `stream` with opj_decompress to PGX, one file per component.
Result<Image> opj_decode(const std::vector<uint8_t>& stream, int components, const fs::path& dir) {
  if (!io::write_file_atomically(dir / "s.j2k", stream).ok()) return io_error("cannot write the stream");
  if (testing::run_command("opj_decompress -i " + (dir / "s.j2k").string() + " -o " + (dir / "o.pgx").string(),
                           dir / "opj.log") != 0)
    return io_error("opj_decompress failed");
  return testing::read_pgx_components(dir, "o", components);
}

TEST(SubsampledEncode, LosslessExactAgainstSizAndOpenJpeg) {
  ASSERT_TRUE(testing::have_program("opj_decompress")) << "opj_decompress is not installed";
  const fs::path dir = testing::make_temp_dir("subenc");
  struct Case {
    const char* name;
    int64_t w, h, x0, y0;
    std::vector<Plane> planes;
    int bits;
    bool is_signed;
    codec::EncodeOptions options;
  };
  std::vector<Case> cases;
  cases.push_back({"4:2:0 + alpha, 8 bits", 64, 48, 0, 0, {{1, 1}, {2, 2}, {2, 2}, {1, 1}}, 8, false, {}});
  cases.push_back({"4:2:2 odd size, 12 bits", 67, 45, 0, 0, {{1, 1}, {2, 1}, {2, 1}, {1, 1}}, 12, false, {}});
  cases.push_back({"two planes, 16-bit signed", 33, 29, 0, 0, {{1, 1}, {3, 2}}, 16, true, {}});
  cases.push_back({"1x1 1x2 2x1", 40, 31, 0, 0, {{1, 1}, {1, 2}, {2, 1}}, 10, false, {}});
  Case tiled{"4:2:0 + alpha, tiles at an odd origin", 61, 53, 5, 3, {{1, 1}, {2, 2}, {2, 2}, {4, 3}}, 8, false, {}};
  tiled.options.image_x0 = 5;
  tiled.options.image_y0 = 3;
  tiled.options.tile_x0 = 1;
  tiled.options.tile_y0 = 2;
  tiled.options.tile_width = 24;
  tiled.options.tile_height = 20;
  cases.push_back(tiled);
  for (auto order : {codec::ProgressionOrder::kRLCP, codec::ProgressionOrder::kRPCL, codec::ProgressionOrder::kPCRL,
                     codec::ProgressionOrder::kCPRL}) {
    Case c{"progression with precincts", 50, 38, 0, 0, {{1, 1}, {2, 2}, {2, 2}, {1, 1}}, 8, false, {}};
    c.options.order = order;
    c.options.precincts = {{4, 4}, {3, 3}};
    c.options.tile_width = c.options.tile_height = 32;
    cases.push_back(c);
  }
  Case ht{"HT code-blocks", 64, 48, 0, 0, {{1, 1}, {2, 2}, {2, 2}, {1, 1}}, 12, false, {}};
  ht.options.style = codec::CodeBlockStyle::from_byte(64);
  cases.push_back(ht);

  uint32_t seed = 1;
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Image image = subsampled_image(c.w, c.h, c.x0, c.y0, c.planes, c.bits, c.is_signed, ++seed);
    auto stream = codec::encode(image, c.options);
    ASSERT_TRUE(stream.ok()) << stream.status().to_string();
    auto parsed = codec::parse_codestream(*stream);
    ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
    const auto& siz = parsed->main.siz;
    EXPECT_EQ(siz.xosiz, c.x0);
    EXPECT_EQ(siz.yosiz, c.y0);
    EXPECT_EQ(siz.xsiz, c.x0 + c.w);
    EXPECT_EQ(siz.ysiz, c.y0 + c.h);
    ASSERT_EQ(siz.components.size(), c.planes.size());
    for (size_t k = 0; k < c.planes.size(); ++k) {
      EXPECT_EQ(siz.components[k].dx, c.planes[k].dx) << k;
      EXPECT_EQ(siz.components[k].dy, c.planes[k].dy) << k;
      EXPECT_EQ(siz.components[k].precision, c.bits);
      EXPECT_EQ(siz.components[k].is_signed, c.is_signed);
    }
    EXPECT_FALSE(parsed->main.cod.multiple_component_transform);

    auto ours = codec::decode(*stream, {});
    ASSERT_TRUE(ours.ok()) << ours.status().to_string();
    ASSERT_EQ(ours->num_components(), image.num_components());
    for (int k = 0; k < image.num_components(); ++k) {
      EXPECT_EQ(ours->components[k].width, image.components[k].width) << k;
      EXPECT_EQ(ours->components[k].height, image.components[k].height) << k;
      EXPECT_TRUE(ours->components[k].samples == image.components[k].samples) << "component " << k;
    }
    auto opj = opj_decode(*stream, image.num_components(), dir);
    ASSERT_TRUE(opj.ok()) << opj.status().to_string();
    for (int k = 0; k < image.num_components(); ++k)
      EXPECT_TRUE(opj->components[k].samples == ours->components[k].samples) << "opj_decompress, component " << k;
  }
  fs::remove_all(dir);
}

TEST(SubsampledEncode, ColourTransformOnlyWhereComponentsShareSize) {
  const Image yuv = subsampled_image(32, 24, 0, 0, {{1, 1}, {2, 2}, {2, 2}}, 8, false, 3);
  // Default: off, with a note that says why.
  codec::EncodeReport report;
  auto stream = codec::encode(yuv, {}, &report);
  ASSERT_TRUE(stream.ok()) << stream.status().to_string();
  auto parsed = codec::parse_codestream(*stream);
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(parsed->main.cod.multiple_component_transform);
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_NE(report.notes[0].find("no colour transform"), std::string::npos) << report.notes[0];
  // Asked for: refused, naming the components' sizes.
  codec::EncodeOptions on;
  on.mct = 1;
  auto refused = codec::encode(yuv, on);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("-mct 1"), std::string::npos);
  EXPECT_NE(refused.status().message().find("16x12 sub-sampled 2x2"), std::string::npos) << refused.status().message();
  // Components 0..2 alike and a sub-sampled fourth: the transform is coded,
  // and the stream is still lossless, for us and for opj_decompress.
  ASSERT_TRUE(testing::have_program("opj_decompress")) << "opj_decompress is not installed";
  const fs::path dir = testing::make_temp_dir("subenc-mct");
  const Image rgba = subsampled_image(32, 24, 0, 0, {{1, 1}, {1, 1}, {1, 1}, {2, 2}}, 8, false, 4);
  for (bool reversible : {true, false}) {
    codec::EncodeOptions o;
    o.reversible = reversible;
    codec::EncodeReport quiet;
    stream = codec::encode(rgba, o, &quiet);
    ASSERT_TRUE(stream.ok()) << stream.status().to_string();
    EXPECT_TRUE(quiet.notes.empty());
    parsed = codec::parse_codestream(*stream);
    ASSERT_TRUE(parsed.ok());
    EXPECT_TRUE(parsed->main.cod.multiple_component_transform);
    EXPECT_EQ(parsed->main.siz.components[3].dx, 2);
    auto ours = codec::decode(*stream, {});
    ASSERT_TRUE(ours.ok());
    auto opj = opj_decode(*stream, 4, dir);
    ASSERT_TRUE(opj.ok()) << opj.status().to_string();
    for (int k = 0; k < 4; ++k) {
      if (reversible) {
        EXPECT_TRUE(ours->components[k].samples == rgba.components[k].samples) << k;
      }
      // The 9/7 path: both decoders round alike but for a last unit.
      int64_t worst = 0;
      for (size_t i = 0; i < ours->components[k].samples.size(); ++i)
        worst = std::max<int64_t>(worst, std::abs(ours->components[k].samples[i] - opj->components[k].samples[i]));
      EXPECT_LE(worst, reversible ? 0 : 1) << k;
    }
  }
  fs::remove_all(dir);
}

TEST(SubsampledEncode, RateTargetsCountEachComponentAtItsSize) {
  const Image image = subsampled_image(96, 64, 0, 0, {{1, 1}, {2, 2}, {2, 2}}, 8, false, 5);
  const double raw_bytes = 8.0 * (96 * 64 + 2 * 48 * 32) / 8;
  for (double ratio : {8.0, 20.0}) {
    codec::EncodeOptions o;
    o.reversible = false;
    o.rate_kind = codec::EncodeOptions::RateKind::kRatio;
    o.rate_values = {ratio};
    auto stream = codec::encode(image, o);
    ASSERT_TRUE(stream.ok()) << stream.status().to_string();
    EXPECT_LE(static_cast<double>(stream->size()), raw_bytes / ratio);
    EXPECT_GE(static_cast<double>(stream->size()), 0.85 * raw_bytes / ratio) << "the target is used";
  }
  // -q: the PSNR over all samples, each component at its size.
  codec::EncodeOptions q;
  q.reversible = false;
  q.rate_kind = codec::EncodeOptions::RateKind::kPsnr;
  q.rate_values = {32};
  auto stream = codec::encode(image, q);
  ASSERT_TRUE(stream.ok()) << stream.status().to_string();
  auto decoded = codec::decode(*stream, {});
  ASSERT_TRUE(decoded.ok());
  auto cmp = compare_images(image, *decoded);
  ASSERT_TRUE(cmp.ok()) << cmp.status().to_string();
  EXPECT_NEAR(cmp->overall.psnr, 32.0, 0.3);
}

TEST(SubsampledEncode, SizesThatFitNoImageAreRefused) {
  Image image = subsampled_image(32, 24, 0, 0, {{1, 1}, {2, 2}, {2, 2}}, 8, false, 6);
  image.x1 = image.y1 = 0;
  image.components[2].width = 15;  // ceil(32 / 2) is 16
  image.components[2].samples.resize(15 * 12);
  auto stream = codec::encode(image, {});
  ASSERT_FALSE(stream.ok());
  EXPECT_NE(stream.status().message().find("component 2's width fits no image width"), std::string::npos)
      << stream.status().message();
  // An image origin moves the extents (B-2): sizes made for origin 0 do not
  // fit origin 1 with 2x2 sub-sampling of an odd width (16 columns at 0, 15 at 1).
  Image at_zero = subsampled_image(31, 24, 0, 0, {{1, 1}, {2, 2}}, 8, false, 7);
  codec::EncodeOptions moved;
  moved.image_x0 = 1;
  at_zero.x1 = at_zero.y1 = 0;
  stream = codec::encode(at_zero, moved);
  ASSERT_FALSE(stream.ok());
  EXPECT_NE(stream.status().message().find("origin 1,0"), std::string::npos) << stream.status().message();
}

}  // namespace
}  // namespace mallat

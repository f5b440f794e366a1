// A component sub-sampled 5x3 at an odd image origin, in
// small tiles (B.2, B.3), made by opj_compress. Its size follows B-2, its
// samples are opj_decompress's, and upsampled it covers the image area
// (Xsiz - XOsiz by Ysiz - YOsiz) with sample floor(x / XRsiz) - ceil(XOsiz /
// XRsiz) at grid column x (clamped: the columns and rows before the first
// sample take it, where opj_decompress writes zeros).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "codec/codec.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/jp2/output_conversions.h"
#include "io/file.h"
#include "io/image_io.h"
#include "tests/interop/opj.h"
#include "tests/testdata.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

TEST(SubsampledGeometry, OddOriginSmallTilesAgainstB2AndOpenJpeg) {
  ASSERT_TRUE(testing::have_program("opj_compress")) << "opj_compress is not installed";
  const fs::path dir = testing::make_temp_dir("subgeo");
  auto image = make_image(31, 40, 1, 8, false);
  ASSERT_TRUE(image.ok());
  for (int64_t i = 0; i < 31 * 40; ++i) image->components[0].samples[i] = static_cast<int32_t>((i % 31) * 7 + (i / 31) * 3) % 256;
  ASSERT_TRUE(io::write_image(*image, dir / "in.pgm").ok());
  ASSERT_EQ(testing::run_command("opj_compress -i " + (dir / "in.pgm").string() + " -o " + (dir / "s.j2k").string() +
                                     " -s 5,3 -d 3,1 -t 7,5 -n 2", dir / "log"), 0);
  auto bytes = io::read_file(dir / "s.j2k");
  ASSERT_TRUE(bytes.ok());
  auto cs = codec::parse_codestream(*bytes);
  ASSERT_TRUE(cs.ok());
  const auto& siz = cs->main.siz;
  ASSERT_EQ(siz.components[0].dx, 5);
  ASSERT_EQ(siz.xosiz % 5 != 0 && siz.yosiz % 3 != 0, true) << "an odd origin";

  codec::DecodeReport report;
  auto decoded = codec::decode(*bytes, {}, &report);
  ASSERT_TRUE(decoded.ok()) << decoded.status().to_string();
  EXPECT_TRUE(report.warnings.empty()) << report.warnings.front();
  const Component& comp = decoded->components[0];
  // B-2: the component's extent.
  EXPECT_EQ(comp.width, ceil_div(siz.xsiz, 5) - ceil_div(siz.xosiz, 5));
  EXPECT_EQ(comp.height, ceil_div(siz.ysiz, 3) - ceil_div(siz.yosiz, 3));
  ASSERT_EQ(testing::run_command("opj_decompress -i " + (dir / "s.j2k").string() + " -o " + (dir / "o.pgx").string(),
                                 dir / "log"), 0);
  auto opj = testing::read_pgx_components(dir, "o", 1);
  ASSERT_TRUE(opj.ok()) << opj.status().to_string();
  EXPECT_TRUE(opj->components[0].samples == comp.samples);

  // Upsampled: the image area, each grid point the sample B.2 puts there.
  Image up = *decoded;
  ASSERT_TRUE(codec::upsample_components(up, 0).ok());
  ASSERT_EQ(up.width(), static_cast<int64_t>(siz.xsiz - siz.xosiz));
  ASSERT_EQ(up.height(), static_cast<int64_t>(siz.ysiz - siz.yosiz));
  const int64_t cx0 = ceil_div(siz.xosiz, 5), cy0 = ceil_div(siz.yosiz, 3);
  for (int64_t y = 0; y < up.height(); ++y)
    for (int64_t x = 0; x < up.width(); ++x) {
      const int64_t sx = std::clamp<int64_t>((siz.xosiz + x) / 5 - cx0, 0, comp.width - 1);
      const int64_t sy = std::clamp<int64_t>((siz.yosiz + y) / 3 - cy0, 0, comp.height - 1);
      ASSERT_EQ(up.components[0].samples[y * up.width() + x], comp.samples[sy * comp.width + sx]) << x << "," << y;
    }
  // Reduced by one level: B-14 on the image area.
  codec::DecodeOptions reduced;
  reduced.reduce = 1;
  auto half = codec::decode(*bytes, reduced);
  ASSERT_TRUE(half.ok());
  ASSERT_TRUE(codec::upsample_components(*half, 1).ok());
  EXPECT_EQ(half->width(), ceil_div(siz.xsiz, 2) - ceil_div(siz.xosiz, 2));
  EXPECT_EQ(half->height(), ceil_div(siz.ysiz, 2) - ceil_div(siz.yosiz, 2));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat

// PAM (Netpbm P7): any number of channels, written and read back; headers
// other writers produce (comments, keyword order, no TUPLTYPE); bad headers
// give messages, never a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "io/file.h"
#include "io/image_io.h"
#include "tests/testdata.h"

namespace mallat::io {
namespace {

namespace fs = std::filesystem;

TEST(Pam, RoundTripsAnyChannelCountAndDepth) {
  const fs::path dir = testing::make_temp_dir("pam");
  for (int n : {1, 2, 3, 4, 5, 9}) {
    for (int bits : {1, 8, 12, 16}) {
      auto image = make_image(11, 3, n, bits, false);
      ASSERT_TRUE(image.ok());
      image->has_alpha = n == 2 || n == 4;
      image->color_space = n >= 3 ? ColorSpace::kRgb : ColorSpace::kGray;
      for (int c = 0; c < n; ++c)
        for (size_t i = 0; i < image->components[c].samples.size(); ++i)
          image->components[c].samples[i] = static_cast<int32_t>((i * 7919 + c * 31) % (1u << bits));
      const fs::path path = dir / "x.pam";
      ASSERT_TRUE(write_image(*image, path).ok()) << n << " channels, " << bits << " bits";
      auto back = read_image(path);
      ASSERT_TRUE(back.ok()) << back.status().to_string();
      ASSERT_EQ(back->num_components(), n);
      EXPECT_EQ(back->has_alpha, n == 2 || n == 4);
      for (int c = 0; c < n; ++c) {
        EXPECT_EQ(back->components[c].precision, bits);
        EXPECT_TRUE(back->components[c].samples == image->components[c].samples) << n << "/" << bits << "/" << c;
      }
    }
  }
  fs::remove_all(dir);
}

TEST(Pam, ReadsOtherWritersHeadersAndRefusesBadOnes) {
  const fs::path dir = testing::make_temp_dir("pam-read");
  auto write = [&](const std::string& header, size_t raster) {
    std::vector<uint8_t> bytes(header.begin(), header.end());
    for (size_t i = 0; i < raster; ++i) bytes.push_back(static_cast<uint8_t>(i));
    EXPECT_TRUE(write_file_atomically(dir / "h.pam", bytes).ok());
    return read_image(dir / "h.pam");
  };
  auto ok = write("P7\n# a comment\nMAXVAL 255\nDEPTH 2\nHEIGHT 2\nWIDTH 3\nENDHDR\n", 12);
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  EXPECT_EQ(ok->num_components(), 2);
  EXPECT_TRUE(ok->has_alpha);  // two channels without TUPLTYPE: grey + alpha, as PNG
  EXPECT_EQ(ok->components[1].samples[2], 5);
  auto typed = write("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 2\nMAXVAL 255\nTUPLTYPE GRAYSCALE\nENDHDR\n", 2);
  ASSERT_TRUE(typed.ok());
  EXPECT_FALSE(typed->has_alpha);
  for (const std::string& bad : {std::string("P7\nWIDTH 3\nHEIGHT 2\nDEPTH 1\nENDHDR\n"),  // no MAXVAL
                                 std::string("P7\nWIDTH 3\nHEIGHT 2\nDEPTH 1\nMAXVAL 255\n"),  // no ENDHDR
                                 std::string("P7\nWIDTH 3\nHEIGHT 2\nDEPTH 1\nMAXVAL 255\nCOLOUR 1\nENDHDR\n"),
                                 std::string("P7\nWIDTH 3\nHEIGHT 2\nDEPTH 99999\nMAXVAL 255\nENDHDR\n"),
                                 std::string("P7\nWIDTH 3\nHEIGHT 2\nDEPTH 1\nMAXVAL 255\nENDHDR\n")}) {  // raster short
    auto r = write(bad, 3);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("PAM"), std::string::npos) << r.status().message();
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat::io

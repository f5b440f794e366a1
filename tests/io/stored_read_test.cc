// Samples read at their stored width (io::SampleForm::kStoredWhereCheap,
// Component::stored): the binary PNM and PAM reader gives them for grey,
// RGB and four channels, one and two bytes a sample, and widened they are
// the int32 read's samples; a sample above maxval is refused as the int32
// read refuses it; other formats come as int32. (split_stored's fast path
// against its plain loop: deinterleave_test.cc.)
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "common/image.h"
#include "io/image_io.h"
#include "tests/io/io_test_util.h"

namespace mallat::io {
namespace {

using testing::random_image;
using testing::TempDirTest;

class StoredRead : public TempDirTest {};

// Reads `path` both ways and checks that the stored form widens to the
// int32 form; returns the stored read.
Image read_both_ways(const std::filesystem::path& path) {
  Result<Image> ints = read_image(path);
  Result<Image> stored = read_image(path, 0, SampleForm::kStoredWhereCheap);
  EXPECT_TRUE(ints.ok()) << ints.status().message();
  EXPECT_TRUE(stored.ok()) << stored.status().message();
  if (!ints.ok() || !stored.ok()) return Image();
  Image widened = with_int32_samples(*stored);
  EXPECT_FALSE(has_stored_samples(widened));
  EXPECT_EQ(widened.color_space, ints->color_space);
  EXPECT_EQ(widened.has_alpha, ints->has_alpha);
  EXPECT_EQ(widened.num_components(), ints->num_components());
  for (int c = 0; c < ints->num_components() && c < widened.num_components(); ++c) {
    EXPECT_EQ(widened.components[c].precision, ints->components[c].precision);
    EXPECT_EQ(widened.components[c].samples, ints->components[c].samples) << path << " component " << c;
  }
  return std::move(*stored);
}

TEST_F(StoredRead, BinaryPnmAndPamComeAtTheirStoredWidth) {
  struct Case {
    const char* name;
    int components;
    int precision;
  };
  for (const Case& k : {Case{"grey.pgm", 1, 8}, Case{"rgb.ppm", 3, 8}, Case{"rgb16.ppm", 3, 16}, Case{"grey12.pgm", 1, 12},
                        Case{"rgb7.ppm", 3, 7}, Case{"rgba.pam", 4, 8}, Case{"rgba16.pam", 4, 16}}) {
    // Odd sizes, more pixels than one block of the conversion.
    const Image original = random_image(4099, 3, k.components, k.precision, false, 11);
    const std::filesystem::path path = dir_ / k.name;
    ASSERT_TRUE(write_image(original, path).ok()) << k.name;
    const Image stored = read_both_ways(path);
    ASSERT_EQ(stored.num_components(), k.components) << k.name;
    for (const Component& c : stored.components) {
      EXPECT_TRUE(c.samples.empty()) << k.name;
      EXPECT_EQ(c.stored.size(), static_cast<size_t>(c.width * c.height * stored_bytes(c.precision))) << k.name;
    }
    const Image widened = with_int32_samples(stored);
    for (int c = 0; c < k.components; ++c) EXPECT_EQ(widened.components[c].samples, original.components[c].samples);
  }
}

TEST_F(StoredRead, ASampleAboveMaxvalIsRefusedAsInTheInt32Read) {
  // P5, maxval 100, one sample of 200.
  const std::filesystem::path path = dir_ / "over.pgm";
  {
    std::ofstream out(path, std::ios::binary);
    out << "P5\n4 1\n100\n";
    out.put(static_cast<char>(1)).put(static_cast<char>(200)).put(static_cast<char>(3)).put(static_cast<char>(4));
  }
  const Result<Image> ints = read_image(path);
  const Result<Image> stored = read_image(path, 0, SampleForm::kStoredWhereCheap);
  ASSERT_FALSE(ints.ok());
  ASSERT_FALSE(stored.ok());
  EXPECT_EQ(stored.status().message(), ints.status().message());
}

TEST_F(StoredRead, OtherFormatsComeAsInt32) {
  const Image original = random_image(33, 17, 3, 8, false, 5);
  const std::filesystem::path path = dir_ / "rgb.png";
  ASSERT_TRUE(write_image(original, path).ok());
  const Result<Image> stored = read_image(path, 0, SampleForm::kStoredWhereCheap);
  ASSERT_TRUE(stored.ok()) << stored.status().message();
  EXPECT_FALSE(has_stored_samples(*stored));
  for (int c = 0; c < 3; ++c) EXPECT_EQ(stored->components[c].samples, original.components[c].samples);
}

}  // namespace
}  // namespace mallat::io

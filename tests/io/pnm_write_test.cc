// The PNM writer converts rows in chunks on a thread pool and writes each
// chunk as it is done: the file must be byte for byte what one plain loop
// over all samples makes, for any thread count and chunk boundary, and a
// sample out of range must fail with check_interleavable's message and
// leave no file.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/file.h"
#include "io/image_io.h"
#include "tests/io/io_test_util.h"

namespace mallat::io {
namespace {

namespace fs = std::filesystem;
using testing::random_image;

// The plain encoding: header, then every pixel's samples in order,
// big-endian when maxval exceeds 255.
std::vector<uint8_t> plain_pnm(const Image& image) {
  const int n = image.num_components();
  const uint32_t maxval = (1u << image.components[0].precision) - 1;
  const std::string header = std::string(n == 1 ? "P5" : "P6") + "\n" + std::to_string(image.width()) +
                             " " + std::to_string(image.height()) + "\n" + std::to_string(maxval) + "\n";
  std::vector<uint8_t> out(header.begin(), header.end());
  for (int64_t i = 0; i < image.width() * image.height(); ++i) {
    for (int c = 0; c < n; ++c) {
      const auto v = static_cast<uint32_t>(image.components[c].samples[i]);
      if (maxval > 255) out.push_back(static_cast<uint8_t>(v >> 8));
      out.push_back(static_cast<uint8_t>(v));
    }
  }
  return out;
}

class PnmWrite : public testing::TempDirTest {};

TEST_F(PnmWrite, ChunkedParallelOutputIsThePlainEncoding) {
  // 3 x 1501 x 997 bytes and 2 x 3 x 803 x 911 bytes are past one 4 MiB
  // chunk and end in a partial one; odd widths, few rows per part.
  const Image images[] = {random_image(1501, 997, 3, 8, false, 1), random_image(803, 911, 3, 16, false, 2),
                          random_image(37, 5, 1, 12, false, 3), random_image(1, 1, 1, 1, false, 4)};
  for (const Image& image : images) {
    const std::vector<uint8_t> expected = plain_pnm(image);
    for (int threads : {1, 2, 3, 7}) {
      const fs::path path = dir_ / (image.num_components() == 1 ? "x.pgm" : "x.ppm");
      ASSERT_TRUE(write_image(image, path, {.threads = threads}).ok());
      Result<std::vector<uint8_t>> back = read_file(path);
      ASSERT_TRUE(back.ok());
      ASSERT_EQ(*back, expected) << image.width() << "x" << image.height() << ", " << threads << " threads";
    }
  }
}

TEST_F(PnmWrite, SampleOutOfRangeFailsAndLeavesNoFile) {
  Image image = random_image(1501, 997, 3, 8, false, 5);
  // In the last chunk, and in the last component, so that earlier chunks are
  // already written when it is found.
  image.components[2].samples.back() = 256;
  image.components[1].samples[image.components[1].samples.size() - 2] = -1;
  const fs::path path = dir_ / "bad.ppm";
  for (int threads : {1, 3}) {
    Status s = write_image(image, path, {.threads = threads});
    ASSERT_FALSE(s.ok());
    // The first bad sample in check_interleavable's order: component 1.
    EXPECT_NE(s.message().find("sample -1 is outside 0..255 for 8 bits"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("bad.ppm (PNM)"), std::string::npos) << s.message();
    EXPECT_TRUE(fs::is_empty(dir_));
  }
}

}  // namespace
}  // namespace mallat::io

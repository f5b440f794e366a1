#include "common/metrics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace mallat {
namespace {

TEST(Metrics, KnownErrors) {
  Image a = make_image(2, 2, 2, 8, false).value();
  Image b = a;
  // Component 0: errors 0, 1, 2, 3 -> MSE (0+1+4+9)/4 = 3.5, peak 3.
  for (int i = 0; i < 4; ++i) b.components[0].samples[i] = i;
  auto r = compare_images(a, b);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->components[0].mse, 3.5);
  EXPECT_EQ(r->components[0].peak_error, 3);
  EXPECT_NEAR(r->components[0].psnr, 10 * std::log10(255.0 * 255.0 / 3.5), 1e-12);
  EXPECT_TRUE(std::isinf(r->components[1].psnr));
  EXPECT_DOUBLE_EQ(r->overall.mse, 14.0 / 8.0);
  EXPECT_EQ(r->overall.peak_error, 3);
}

TEST(Metrics, SizeMismatchIsAnError) {
  Image a = make_image(2, 2, 1, 8, false).value();
  Image b = make_image(3, 2, 1, 8, false).value();
  EXPECT_EQ(compare_images(a, b).status().code(), ErrorCode::kInvalidArgument);
  Image c = make_image(2, 2, 3, 8, false).value();
  EXPECT_EQ(compare_images(a, c).status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace mallat

#include "common/image.h"

#include <gtest/gtest.h>

namespace mallat {
namespace {

TEST(Image, MakeImage) {
  auto image = make_image(5, 3, 3, 12, true);
  ASSERT_TRUE(image.ok());
  EXPECT_EQ(image->width(), 5);
  EXPECT_EQ(image->height(), 3);
  ASSERT_EQ(image->num_components(), 3);
  EXPECT_EQ(image->components[1].samples.size(), 15u);
  EXPECT_EQ(image->components[0].min_value(), -2048);
  EXPECT_EQ(image->components[0].max_value(), 2047);
}

TEST(Image, RejectsBadSizes) {
  EXPECT_EQ(make_image(0, 3, 1, 8, false).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(make_image(3, 3, 0, 8, false).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(make_image(3, 3, 1, 40, false).status().code(), ErrorCode::kUnsupported);
  EXPECT_EQ(make_image(int64_t{1} << 40, int64_t{1} << 40, 1, 8, false).status().code(),
            ErrorCode::kResourceLimit);
}

}  // namespace
}  // namespace mallat

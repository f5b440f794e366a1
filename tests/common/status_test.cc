#include "common/status.h"

#include <gtest/gtest.h>

namespace mallat {
namespace {

Result<int> half(int x) {
  if (x % 2) return invalid_argument("odd: " + std::to_string(x));
  return x / 2;
}

Status quarter(int x, int* out) {
  MALLAT_ASSIGN_OR_RETURN(int h, half(x));
  MALLAT_ASSIGN_OR_RETURN(int q, half(h));
  *out = q;
  return Status::Ok();
}

TEST(Status, OkAndError) {
  EXPECT_TRUE(Status::Ok().ok());
  Status s = corrupt_data("truncated");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kCorruptData);
  EXPECT_EQ(s.to_string(), "corrupt data: truncated");
  EXPECT_EQ(s.with_context("a.pgx").message(), "a.pgx: truncated");
}

TEST(Result, PropagatesErrors) {
  int out = 0;
  EXPECT_TRUE(quarter(8, &out).ok());
  EXPECT_EQ(out, 2);
  Status s = quarter(6, &out);
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "odd: 3");
}

}  // namespace
}  // namespace mallat

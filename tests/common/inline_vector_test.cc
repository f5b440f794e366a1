// common/inline_vector.h against std::vector: the same elements through
// push_back, resize, copies and moves, held in place up to N and on the
// heap beyond.
#include "common/inline_vector.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <utility>
#include <vector>

namespace mallat {
namespace {

template <typename V>
std::vector<uint32_t> items(const V& v) {
  return std::vector<uint32_t>(v.begin(), v.end());
}

TEST(InlineVector, FollowsStdVectorThroughRandomEdits) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    InlineVector<uint32_t, 2> v;
    std::vector<uint32_t> ref;
    for (int step = 0; step < 30; ++step) {
      switch (rng() % 6) {
        case 0:
        case 1:
        case 2: {
          const uint32_t x = rng();
          v.push_back(x);
          ref.push_back(x);
          break;
        }
        case 3: {
          const size_t n = rng() % 6;
          const uint32_t fill = rng();
          v.resize(n, fill);
          ref.resize(n, fill);
          break;
        }
        case 4: {
          InlineVector<uint32_t, 2> copy = v;
          v = InlineVector<uint32_t, 2>();
          EXPECT_TRUE(v.empty());
          v = std::move(copy);
          EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): left empty, as documented
          break;
        }
        default: {
          InlineVector<uint32_t, 2> moved(std::move(v));
          v = moved;
          EXPECT_EQ(items(moved), ref);
          break;
        }
      }
      ASSERT_EQ(items(v), ref) << "round " << round << " step " << step;
      ASSERT_EQ(v.size(), ref.size());
      if (!ref.empty()) {
        EXPECT_EQ(v.back(), ref.back());
      }
    }
  }
}

TEST(InlineVector, ViewedAsASpan) {
  InlineVector<int, 1> v;
  v.push_back(3);
  std::span<const int> one = v;
  EXPECT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0], 3);
  v.push_back(4);
  v.push_back(5);
  std::span<const int> three = v;
  EXPECT_EQ(std::vector<int>(three.begin(), three.end()), (std::vector<int>{3, 4, 5}));
  v.clear();
  EXPECT_TRUE(v.empty());
  v.push_back(6);
  EXPECT_EQ(v[0], 6);
}

}  // namespace
}  // namespace mallat

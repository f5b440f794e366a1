// sort_on_pool against std::sort: the same order, element for element,
// under a strict total order, for lists cut into any number of runs (odd
// counts leave a run without a pair in some merge rounds).
#include "common/sort_on_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "common/thread_pool.h"

namespace mallat {
namespace {

struct Keyed {
  double key;
  uint32_t index;
};

bool before(const Keyed& a, const Keyed& b) {
  if (a.key != b.key) return a.key > b.key;
  return a.index < b.index;
}

TEST(SortOnPool, IsStdSortUnderATotalOrder) {
  std::mt19937 random(5);
  for (int threads : {1, 2, 3, 5, 16}) {
    ThreadPool pool(threads);
    for (size_t n : {size_t{0}, size_t{1}, size_t{4095}, size_t{40000}, size_t{100003}}) {
      std::vector<Keyed> items(n);
      // Few distinct keys: ties broken by index alone.
      for (size_t i = 0; i < n; ++i) items[i] = {static_cast<double>(random() % 97), static_cast<uint32_t>(i)};
      std::shuffle(items.begin(), items.end(), random);
      std::vector<Keyed> expected = items;
      std::sort(expected.begin(), expected.end(), before);
      sort_on_pool(items, before, &pool, 0);
      ASSERT_EQ(items.size(), expected.size());
      bool same = true;
      for (size_t i = 0; i < n; ++i) same = same && items[i].key == expected[i].key && items[i].index == expected[i].index;
      EXPECT_TRUE(same) << threads << " threads, " << n << " items";
    }
  }
}

}  // namespace
}  // namespace mallat

#include "common/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace mallat {
namespace {

TEST(ThreadPool, RunsEveryItemOnce) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.size(), threads);
    for (int round = 0; round < 20; ++round) {
      std::vector<std::atomic<int>> hits(1000);
      pool.parallel_for(1000, [&](int64_t i) { hits[i]++; });
      for (auto& h : hits) ASSERT_EQ(h.load(), 1);
    }
  }
}

TEST(ThreadPool, EmptyAndSingle) {
  ThreadPool pool(3);
  int calls = 0;
  pool.parallel_for(0, [&](int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
  pool.parallel_for(1, [&](int64_t) { ++calls; });
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace mallat

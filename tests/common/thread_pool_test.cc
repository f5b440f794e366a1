#include "common/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
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

// In pieces: every item once, for counts that pieces divide, do not divide,
// or that are smaller than a piece, and none for a count of 0.
TEST(ThreadPool, InPiecesRunsEveryItemOnce) {
  for (int threads : {1, 3}) {
    ThreadPool pool(threads);
    for (const int64_t count : {0, 1, 7, 64, 1000}) {
      for (const int64_t at_once : {1, 8, 256}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(count));
        pool.parallel_for_in_pieces(count, at_once, [&](int64_t i) { hits[static_cast<size_t>(i)]++; });
        for (auto& h : hits) ASSERT_EQ(h.load(), 1) << count << " items, " << at_once << " at once";
      }
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

// Callers on several threads share one pool: each call runs every one of
// its items once.
TEST(ThreadPool, CallsFromSeveralThreadsEachRunEveryItem) {
  ThreadPool pool(3);
  std::vector<std::vector<std::atomic<int>>> hits(4);
  for (auto& h : hits) h = std::vector<std::atomic<int>>(500);
  std::vector<std::thread> callers;
  for (size_t t = 0; t < hits.size(); ++t)
    callers.emplace_back([&, t] {
      for (int round = 0; round < 10; ++round) pool.parallel_for(500, [&](int64_t i) { hits[t][i]++; });
    });
  for (std::thread& c : callers) c.join();
  for (auto& h : hits)
    for (auto& n : h) ASSERT_EQ(n.load(), 10);
}

TEST(ThreadPool, StatusVariantReturnsTheLowestIndexError) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    for (int round = 0; round < 20; ++round) {
      std::vector<std::atomic<int>> hits(500);
      // Items 7, 123 and 400 fail; the high ones finish first when they can
      // (the low one waits), yet 7's error is the one returned.
      const Status s = pool.parallel_for_status(500, [&](int64_t i) {
        hits[i]++;
        if (i == 7) {
          for (int spin = 0; spin < 2000 && hits[400].load() == 0; ++spin) std::this_thread::yield();
          return corrupt_data("item 7");
        }
        if (i == 123 || i == 400) return invalid_argument("item " + std::to_string(i));
        return Status::Ok();
      });
      EXPECT_EQ(s.code(), ErrorCode::kCorruptData) << threads;
      EXPECT_EQ(s.message(), "item 7") << threads;
      // Every item ran, also those after the failures.
      for (auto& h : hits) ASSERT_EQ(h.load(), 1);
    }
  }
}

TEST(ThreadPool, StatusVariantOkWhenAllSucceed) {
  ThreadPool pool(3);
  int64_t calls = 0;
  std::mutex m;
  EXPECT_TRUE(pool.parallel_for_status(0, [&](int64_t) { return internal_error("never runs"); }).ok());
  EXPECT_TRUE(pool.parallel_for_status(100, [&](int64_t) {
                    std::lock_guard<std::mutex> lock(m);
                    ++calls;
                    return Status::Ok();
                  }).ok());
  EXPECT_EQ(calls, 100);
}

// The threads this process has now (Linux: its tasks); 0 where unknown.
int threads_now() {
  std::error_code ec;
  int n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++n;
  return ec ? 0 : n;
}

// A pool on demand starts no thread until it is first asked for, says the
// size its pool will have, and gives every caller the one pool, however
// many ask at once.
TEST(PoolOnDemand, StartsItsThreadsOnFirstUse) {
  for (int threads : {0, 1, 3}) {
    const int before = threads_now();
    PoolOnDemand lazy(threads);
    EXPECT_FALSE(lazy.started());
    EXPECT_EQ(threads_now(), before);
    const int size = lazy.size();
    EXPECT_EQ(size, ThreadPool(threads).size());
    std::vector<ThreadPool*> seen(4, nullptr);
    std::vector<std::thread> callers;
    for (size_t i = 0; i < seen.size(); ++i) callers.emplace_back([&, i] { seen[i] = &lazy.get(); });
    for (std::thread& t : callers) t.join();
    EXPECT_TRUE(lazy.started());
    for (ThreadPool* p : seen) EXPECT_EQ(p, &lazy.get());
    EXPECT_EQ(lazy.get().size(), size);
    if (before > 0) {
      EXPECT_EQ(threads_now(), before + size - 1);
    }
    std::atomic<int> items{0};
    lazy.get().parallel_for(100, [&](int64_t) { ++items; });
    EXPECT_EQ(items.load(), 100);
  }
}

}  // namespace
}  // namespace mallat

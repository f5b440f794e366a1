// HelpBoard (common/help_board.h): a pool of one thread helped by threads
// with nothing else to do runs each item of each call once, takes help only
// while fewer than the board's threads code, gets a helper's exception, and
// runs a call from within an item on its own.
#include "common/help_board.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/thread_pool.h"
#include "tests/common/helped_pool.h"

namespace mallat {
namespace {

using testing::HelpedPool;

void slow_item() { std::this_thread::sleep_for(std::chrono::microseconds(200)); }

TEST(HelpBoard, HelpedCallsRunEveryItemOnceAndHelpersTakeSome) {
  HelpedPool helped(4, 3);
  ThreadPool second(1);
  second.take_help_from(&helped.board);
  std::vector<std::thread> callers;
  for (ThreadPool* pool : {&helped.pool, &second})
    callers.emplace_back([pool] {
      for (int round = 0; round < 20; ++round) {
        std::vector<std::atomic<int>> hits(50);
        pool->parallel_for(50, [&](int64_t i) {
          slow_item();
          hits[static_cast<size_t>(i)]++;
        });
        for (auto& h : hits) ASSERT_EQ(h.load(), 1);
      }
    });
  for (std::thread& t : callers) t.join();
  second.take_help_from(nullptr);
  EXPECT_GT(helped.board.items_helped(), 0);
}

// With as many threads coding as the board allows, helpers take nothing.
TEST(HelpBoard, HelpersWaitWhileEveryThreadCodes) {
  HelpedPool helped(1, 2);
  helped.board.coding_begins();
  std::atomic<int> hits{0};
  helped.pool.parallel_for(40, [&](int64_t) {
    slow_item();
    hits++;
  });
  helped.board.coding_ends();
  EXPECT_EQ(hits.load(), 40);
  EXPECT_EQ(helped.board.items_helped(), 0);
}

// What an item throws on a helper is thrown to the caller once every other
// item has ended; the pool then runs calls as before.
TEST(HelpBoard, AHelpersExceptionReachesTheCaller) {
  HelpedPool helped(3, 2);
  const std::thread::id caller = std::this_thread::get_id();
  std::string thrown;
  try {
    helped.pool.parallel_for(200, [&](int64_t) {
      slow_item();
      if (std::this_thread::get_id() != caller) throw std::runtime_error("on a helper");
    });
  } catch (const std::runtime_error& e) {
    thrown = e.what();
  }
  EXPECT_EQ(thrown, helped.board.items_helped() > 0 ? "on a helper" : "");
  std::vector<std::atomic<int>> hits(30);
  helped.pool.parallel_for(30, [&](int64_t i) { hits[static_cast<size_t>(i)]++; });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
}

// A call from within an item of the same pool runs on the item's thread.
TEST(HelpBoard, ACallFromWithinAnItemRunsOnItsThread) {
  HelpedPool helped(3, 2);
  std::vector<std::atomic<int>> hits(20 * 10);
  helped.pool.parallel_for(20, [&](int64_t i) {
    const std::thread::id outer = std::this_thread::get_id();
    helped.pool.parallel_for(10, [&](int64_t j) {
      EXPECT_EQ(std::this_thread::get_id(), outer);
      hits[static_cast<size_t>(i * 10 + j)]++;
    });
    slow_item();
  });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
}

}  // namespace
}  // namespace mallat

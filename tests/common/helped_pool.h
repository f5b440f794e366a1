// A pool of one thread with `helpers` threads helping its calls
// (common/help_board.h) for the life of the object, at most `threads`
// threads at once (board.coding_begins() counts the caller against them).
#pragma once

#include <thread>
#include <vector>

#include "common/help_board.h"
#include "common/thread_pool.h"

namespace mallat::testing {

class HelpedPool {
 public:
  HelpedPool(int threads, int helpers) : board(threads) {
    pool.take_help_from(&board);
    for (int t = 0; t < helpers; ++t) helpers_.emplace_back([this] { board.help(); });
  }
  ~HelpedPool() {
    board.finish();
    for (std::thread& t : helpers_) t.join();
    pool.take_help_from(nullptr);
  }
  HelpedPool(const HelpedPool&) = delete;
  HelpedPool& operator=(const HelpedPool&) = delete;

  HelpBoard board;
  ThreadPool pool{1};

 private:
  std::vector<std::thread> helpers_;
};

}  // namespace mallat::testing

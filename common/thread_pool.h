// A fixed pool of worker threads with a blocking parallel_for. Work items are
// handed out one at a time from a counter under the pool's lock (run_items),
// and callers write item i's output to slot i, so the results never depend
// on scheduling.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "common/help_board.h"
#include "common/status.h"

namespace mallat {

class ThreadPool {
 public:
  // threads <= 0: one per hardware thread. The calling thread also works,
  // so a pool of N threads starts N - 1 workers.
  explicit ThreadPool(int threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs fn(i) for i in [0, count) and returns when all are done. Calls
  // from several threads run one after the other. Not re-entrant: fn must
  // not call parallel_for on the same pool.
  void parallel_for(int64_t count, const std::function<void(int64_t)>& fn);

  // parallel_for for work that can fail: runs fn(i) for every i in
  // [0, count), even after one has failed (each item owns its output), and
  // returns the error of the lowest i that failed, or OK. The lowest, not the
  // first in time, so that which message a caller sees never depends on
  // scheduling or the thread count.
  Status parallel_for_status(int64_t count, const std::function<Status(int64_t)>& fn);

  // parallel_for over [0, count) with `at_once` consecutive items to a
  // pool item, so that small items (a code-block's hull, its taken points)
  // do not each pay the pool's hand-over: fn(i) for every i.
  void parallel_for_in_pieces(int64_t count, int64_t at_once, const std::function<void(int64_t)>& fn);

  // A pool of one thread posts its parallel_for calls on `board` from now
  // on, for threads with nothing else to do to help (help_board.h); nullptr:
  // nowhere again. Not while a call runs. A pool of several threads takes no
  // help.
  void take_help_from(HelpBoard* board);

  static int hardware_threads();

 private:
  void worker_loop();
  void run_items();

  std::vector<std::thread> workers_;
  std::mutex call_mutex_;  // held by the parallel_for that has the workers
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(int64_t)>* job_ = nullptr;
  int64_t count_ = 0;
  int64_t next_ = 0;        // guarded by mutex_
  int64_t finished_ = 0;    // guarded by mutex_
  uint64_t generation_ = 0; // bumps once per parallel_for
  bool stopping_ = false;
  HelpBoard* board_ = nullptr;
  HelpBoard::Call posted_;  // this pool's calls as posted on board_
};

// A pool whose threads start on its first use: for a holder that may run
// no parallel call at all (a whole-plane DWT backend beside a streamed
// coder's line DWT, a strip writer given bytes to write as they are), so
// that a process on many threads does not start and join a pool's threads
// one after another on its critical thread for nothing.
class PoolOnDemand {
 public:
  explicit PoolOnDemand(int threads = 0) : threads_(threads) {}
  PoolOnDemand(const PoolOnDemand&) = delete;
  PoolOnDemand& operator=(const PoolOnDemand&) = delete;

  // The pool, its threads started by the first call (from any thread).
  ThreadPool& get();
  // The threads the pool has, or will have once started (ThreadPool::size).
  int size() const { return threads_ > 0 ? threads_ : ThreadPool::hardware_threads(); }
  bool started() const;

 private:
  int threads_;
  mutable std::mutex mutex_;
  std::optional<ThreadPool> pool_;  // guarded by mutex_ until made, then fixed
};

}  // namespace mallat

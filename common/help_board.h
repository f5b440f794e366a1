// Where threads with nothing of their own left to do help the parallel_for
// calls of pools of one thread (thread_pool.h): at the end of a batch
// (engine/batch_pipeline.h) the lanes that are out of files help the files
// still being coded, at most as many threads coding at once as the batch
// has lanes.
//
// A pool of one thread that takes help (ThreadPool::take_help_from) posts
// each parallel_for call here while it runs it; the calling thread takes
// items through the call's counter as it would alone, and a helper that
// finds the call takes the next one the same way, so each item runs once,
// on whichever thread, and the results (each item's own output) are those
// of the call alone. Helpers only run items; they never wait for a caller,
// so a caller waiting for its helpers' items always sees them end.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <vector>

#include "common/timeline.h"

namespace mallat {

class HelpBoard {
 public:
  // One pool's call as posted: its items claimed through `state`, the
  // call's number in the high 32 bits and the next item in the low 32.
  class Call {
   private:
    friend class HelpBoard;
    std::atomic<const std::function<void(int64_t)>*> fn_{nullptr};
    std::atomic<int64_t> count_{0};
    std::atomic<uint64_t> state_{0xFFFFFFFFu};  // closed: no item to take
    std::atomic<int64_t> helped_{0};            // items helpers have finished
    std::atomic<bool> posted_{false};           // a call is running
    // The caller's file and lane, which a helper's timeline spans take
    // while it runs one of the call's items; set before the state opens.
    timeline::Tag tag_;
    std::mutex error_mutex_;
    std::exception_ptr error_;                  // a helper's item threw
  };

  // At most `threads` threads code at once: the callers coding
  // (coding_begins) and the helpers.
  explicit HelpBoard(int threads);
  HelpBoard(const HelpBoard&) = delete;
  HelpBoard& operator=(const HelpBoard&) = delete;

  // A pool's call slot on the board, or off it again (no call running).
  void join(Call* call);
  void leave(Call* call);

  // Runs fn(i) for i in [0, count) on the calling thread, posted for
  // helpers, and returns when all are done (an item's exception, the
  // caller's own first, thrown then). False, having run nothing, where the
  // slot already has a call (a call from within an item, or from another
  // thread): the caller then runs the items itself.
  bool run(Call& call, int64_t count, const std::function<void(int64_t)>& fn);

  // A thread begins or ends coding work of its own (it counts against the
  // threads of the board).
  void coding_begins();
  void coding_ends();

  // Called by a thread with nothing of its own left: runs posted items
  // while fewer than `threads` threads code, until finish().
  void help();
  // Every helper returns from help(), now or when its item ends.
  void finish();

  // Items run on helpers so far (for tests).
  int64_t items_helped() const { return items_helped_.load(); }

 private:
  struct Claim {
    Call* call = nullptr;
    int64_t item = 0;
  };
  Claim claim();  // under mutex_
  void run_claimed(const Claim& claim);

  const int threads_;
  std::mutex mutex_;
  std::condition_variable items_posted_;  // for helpers idle for want of items
  std::condition_variable threads_free_;  // for helpers waiting for coding to end
  std::vector<Call*> calls_;  // guarded by mutex_
  size_t next_call_ = 0;      // where claim() looks first, guarded by mutex_
  int coding_ = 0;            // guarded by mutex_
  int helping_ = 0;           // guarded by mutex_
  bool finished_ = false;     // guarded by mutex_
  std::atomic<int> idle_{0};  // helpers asleep for want of items, not of threads
  std::atomic<int64_t> items_helped_{0};
};

}  // namespace mallat

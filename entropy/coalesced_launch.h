// Many callers' device blocks in one launch (issue 15: the kernels are
// latency-bound at a block per thread, so 8 images' blocks take about 2.5x
// one image's time, entropy/cuda/NOTES.md). Concurrent calls of a hybrid
// coder (files of a batch coded at once, tools/batch.h) join a round: the
// round closes when `callers` have joined or `window_ms` has passed since the
// first, so a caller alone is never stuck; its closer prepares the device
// over every caller's blocks once the previous round has left it; each caller
// gathers its own blocks at its offset; the last caller to be gathered runs
// the launch and every caller gets its status; each finishes its own blocks
// and leaves, and the last to leave hands the device to the next round.
// Internal to the entropy module (hybrid_block_encoder.cc, _decoder.cc).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>

#include "common/status.h"

namespace mallat::entropy::detail {

// `Lists` holds a round's blocks, each caller's appended at its offset.
template <class Lists>
class CoalescedLaunches {
 public:
  struct Round {
    Lists lists;
    size_t blocks = 0;  // appended so far: the next caller's offset
    int joined = 0, gathered = 0, left = 0;
    bool closed = false, prepared = false, ran = false;
    Status prepare_status, run_status;
    std::chrono::steady_clock::time_point deadline;
  };
  struct Ticket {
    std::shared_ptr<Round> round;
    size_t offset = 0;
  };

  CoalescedLaunches(int callers, double window_ms) : callers_(callers < 1 ? 1 : callers), window_ms_(window_ms) {}

  // Joins the open round with the caller's `count` blocks (`append(lists)`
  // adds them, under the lock, after the blocks of those who joined first)
  // and returns once the round is prepared (`prepare(lists)`, run by the
  // round's closer), with the prepare's error.
  Result<Ticket> join(size_t count, const std::function<void(Lists&)>& append,
                      const std::function<Status(const Lists&)>& prepare) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!open_) {
      open_ = std::make_shared<Round>();
      open_->deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double, std::milli>(window_ms_));
    }
    std::shared_ptr<Round> round = open_;
    Ticket ticket{round, round->blocks};
    append(round->lists);
    round->blocks += count;
    ++round->joined;
    if (round->joined < callers_) {
      changed_.wait_until(lock, round->deadline, [&] { return round->closed; });
    }
    if (!round->closed) {
      // This caller closes it: K joined, or the window ended.
      round->closed = true;
      if (open_ == round) open_.reset();
      changed_.notify_all();
      changed_.wait(lock, [&] { return !busy_; });
      busy_ = true;
      lock.unlock();
      const Status prepared = prepare(round->lists);
      lock.lock();
      round->prepare_status = prepared;
      round->prepared = true;
      changed_.notify_all();
    }
    changed_.wait(lock, [&] { return round->prepared; });
    if (!round->prepare_status.ok()) {
      leave_locked(*round);
      return round->prepare_status;
    }
    return ticket;
  }

  // After the caller's blocks are gathered: the last caller of the round
  // runs `run`; every caller waits for it and gets its status.
  Status run(const Ticket& ticket, const std::function<Status()>& run) {
    Round& round = *ticket.round;
    std::unique_lock<std::mutex> lock(mutex_);
    if (++round.gathered == round.joined) {
      lock.unlock();
      const Status ran = run();
      lock.lock();
      round.run_status = ran;
      round.ran = true;
      changed_.notify_all();
    }
    changed_.wait(lock, [&] { return round.ran; });
    return round.run_status;
  }

  // After the caller's blocks are finished (or its batch failed): the last
  // caller hands the device to the next round.
  void leave(const Ticket& ticket) {
    std::lock_guard<std::mutex> lock(mutex_);
    leave_locked(*ticket.round);
  }

 private:
  void leave_locked(Round& round) {
    if (++round.left == round.joined) {
      busy_ = false;
      changed_.notify_all();
    }
  }

  const int callers_;
  const double window_ms_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::shared_ptr<Round> open_;  // the round new callers join
  bool busy_ = false;            // a round holds the device (prepared, not yet left by all)
};

}  // namespace mallat::entropy::detail

// Many callers' device blocks in one launch (the kernels are latency-bound
// at a block per thread, so several images' blocks take far less than
// their sum of one image's time). Concurrent calls of a hybrid
// coder (files of a batch coded at once, tools/batch.h) join a round. The
// device has `slots` sets of buffers (each with its own stream), so up to
// that many rounds hold it at once: one gathering or finishing on the CPU
// while another's launch runs, and two launches side by side on the GPU.
// When a round closes (DeviceCoderOptions::RoundClose):
// - kWindow: `callers` have joined or `window_ms` has passed since the
//   first, so a caller alone is never stuck; the closer then waits for a
//   free slot;
// - kSlotFree: as soon as a slot is free, with every caller that joined
//   while none was (at most `callers`), so no caller waits for company
//   while a slot idles, and two slots' launches run side by side;
// - kDeviceIdle: as soon as a slot is free and no round is launching (closed
//   and its launch not yet ended), so the callers that come while the GPU
//   works share its next launch (the kernel codes 2 files' blocks in about
//   1.5 times one file's time), and that round gathers while the last one
//   finishes on the CPU in its own slot.
// The closer prepares its slot over every caller's blocks; each caller
// gathers its own blocks at its offset; the last caller to be gathered runs
// the launch and every caller gets its status; each finishes its own blocks
// and leaves, and the last to leave frees the slot.
// Internal to the entropy module (entropy/hybrid/hybrid_block_encoder.cc, _decoder.cc).
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "common/status.h"
#include "entropy/block_coder.h"

namespace mallat::entropy::detail {

// How rounds form (DeviceCoderOptions' coalesce_* and device_slots).
struct RoundRule {
  using Close = DeviceCoderOptions::RoundClose;
  int callers = 1;
  double window_ms = 20;
  int slots = 1;
  Close close = Close::kWindow;
};

// `Lists` holds a round's blocks, each caller's appended at its offset.
template <class Lists>
class CoalescedLaunches {
 public:
  struct Round {
    Lists lists;
    size_t blocks = 0;  // appended so far: the next caller's offset
    int joined = 0, gathered = 0, left = 0;
    int id = 0;     // rounds in the order they opened, from 0
    int slot = -1;  // the device's buffer set, once closed and given one
    bool closed = false, prepared = false, ran = false;
    Status prepare_status, run_status;
    std::chrono::steady_clock::time_point deadline;
  };
  struct Ticket {
    std::shared_ptr<Round> round;
    size_t offset = 0;
  };

  explicit CoalescedLaunches(const RoundRule& rule)
      : rule_(rule), busy_(static_cast<size_t>(std::max(1, rule.slots)), false) {
    rule_.callers = std::max(1, rule_.callers);
  }

  // Joins the open round with the caller's `count` blocks (`append(lists)`
  // adds them, under the lock, after the blocks of those who joined first)
  // and returns once the round is prepared (`prepare(lists, slot)`, run by
  // the round's closer), with the prepare's error.
  Result<Ticket> join(size_t count, const std::function<void(Lists&)>& append,
                      const std::function<Status(const Lists&, int slot)>& prepare) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!open_) {
      open_ = std::make_shared<Round>();
      open_->id = next_id_++;
      open_->deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double, std::milli>(rule_.window_ms));
    }
    std::shared_ptr<Round> round = open_;
    Ticket ticket{round, round->blocks};
    append(round->lists);
    round->blocks += count;
    // A full round takes no one else; it still waits for a slot.
    if (++round->joined >= rule_.callers && open_ == round) open_.reset();
    if (rule_.close != RoundRule::Close::kWindow) {
      changed_.wait(lock, [&] { return round->closed || may_close(); });
    } else if (round->joined < rule_.callers) {
      changed_.wait_until(lock, round->deadline, [&] { return round->closed; });
    }
    if (!round->closed) {
      // This caller closes it.
      round->closed = true;
      if (open_ == round) open_.reset();
      changed_.notify_all();
      changed_.wait(lock, [&] { return free_slot() >= 0; });
      round->slot = free_slot();
      busy_[static_cast<size_t>(round->slot)] = true;
      ++launching_;
      lock.unlock();
      const Status prepared = prepare(round->lists, round->slot);
      lock.lock();
      round->prepare_status = prepared;
      round->prepared = true;
      if (!prepared.ok()) --launching_;  // no launch follows
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
      --launching_;
      changed_.notify_all();
    }
    changed_.wait(lock, [&] { return round.ran; });
    return round.run_status;
  }

  // After the caller's blocks are finished (or its batch failed): the last
  // caller frees the round's slot for the next round.
  void leave(const Ticket& ticket) {
    std::lock_guard<std::mutex> lock(mutex_);
    leave_locked(*ticket.round);
  }

 private:
  bool may_close() const {
    return free_slot() >= 0 && (rule_.close != RoundRule::Close::kDeviceIdle || launching_ == 0);
  }
  int free_slot() const {
    const auto it = std::find(busy_.begin(), busy_.end(), false);
    return it == busy_.end() ? -1 : static_cast<int>(it - busy_.begin());
  }
  void leave_locked(Round& round) {
    if (++round.left == round.joined) {
      busy_[static_cast<size_t>(round.slot)] = false;
      changed_.notify_all();
    }
  }

  RoundRule rule_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::shared_ptr<Round> open_;  // the round new callers join
  std::vector<bool> busy_;       // per slot: a round holds it (prepared, not yet left by all)
  int launching_ = 0;             // rounds closed whose launch has not ended
  int next_id_ = 0;
};

}  // namespace mallat::entropy::detail

// The device runner's context (device_tile_stages.h): its slots, each a
// DeviceTileSlot of device_tile_stages.cc, shared by the runners of a
// batch's lanes (device_tile_runner.cc), its times and its first failure.
// Internal to codec/stages/cuda/.
#pragma once

#include <atomic>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <vector>

#include "codec/stages/busy_time.h"
#include "codec/stages/device_tile_stages.h"
#include "codec/stages/tile_buffers.h"
#include "common/status.h"
#include "common/thread_pool.h"

namespace mallat::codec {

class DeviceTileSlot;
using StartedSlots = Result<std::vector<std::unique_ptr<DeviceTileSlot>>>;

// The device's slots (a batch's lanes share them: a lane holds one while
// its tile is on the device, or for a tile kept for HT rate control until
// its runner lets it go; none while it reads, allocates rates or writes),
// started on a thread of their own or at once.
class DeviceTileContext {
 public:
  // Out of line: the slots' type is device_tile_stages.cc's own.
  explicit DeviceTileContext(std::future<StartedSlots> starting);
  ~DeviceTileContext();

  // Whether the device has started; false for good where it could not.
  bool started();
  Status wait_started();
  // The tile on the first free slot (waiting for one).
  Status run(EncodeTile& tile, ThreadPool& pool);
  // The same for a tile of rate control by estimates (tile.ht_statistics):
  // once it has run, the slot stays the caller's (`held`), its indices
  // there, until release(held); code_round codes rate control's rounds
  // on it. On an error the slot is free again and `held` null.
  Status run_and_hold(EncodeTile& tile, ThreadPool& pool, DeviceTileSlot*& held);
  Status code_round(DeviceTileSlot& held, EncodeTile& tile, ThreadPool& pool);
  void release(DeviceTileSlot* held);
  Result<bool> run(DecodeTile& tile, ThreadPool& pool);
  DeviceTileTimes times() const {
    std::lock_guard<std::mutex> lock(times_mutex_);
    DeviceTileTimes t = times_;
    t.busy_ms = encode_busy_.whole.total_ms();
    t.tier1_busy_ms = encode_busy_.tier1.total_ms();
    return t;
  }
  DeviceDecodeTimes decode_times() const {
    std::lock_guard<std::mutex> lock(times_mutex_);
    DeviceDecodeTimes t = decode_times_;
    t.busy_ms = decode_busy_.whole.total_ms();
    t.tier1_busy_ms = decode_busy_.tier1.total_ms();
    return t;
  }
  // The first failure of a run on the device (OK while none): from then on
  // the tiles go to the CPU runner.
  Status failure() const {
    std::lock_guard<std::mutex> lock(failure_mutex_);
    return failure_;
  }
  bool failed() const { return !failure().ok(); }
  void inject_failures(int runs, int after) {
    passing_.store(after);
    injected_.store(runs);
  }

 private:
  std::mutex start_mutex_;
  std::future<StartedSlots> starting_;  // valid until taken by started()
  Status start_status_;
  std::vector<std::unique_ptr<DeviceTileSlot>> slots_;
  std::mutex free_mutex_;
  std::condition_variable freed_;
  std::vector<DeviceTileSlot*> free_;
  mutable std::mutex times_mutex_;
  DeviceTileTimes times_;
  DeviceDecodeTimes decode_times_;
  DeviceBusy encode_busy_, decode_busy_;  // the tiles' spans on the device, each direction's apart
  // A run's times, and its span into its direction's busy time.
  void add_times(const DeviceTileTimes& t, const DeviceSpan& span) {
    std::lock_guard<std::mutex> lock(times_mutex_);
    times_ += t;
    encode_busy_.add(span);
  }
  mutable std::mutex failure_mutex_;
  Status failure_;
  std::atomic<int> injected_{0};
  std::atomic<int> passing_{0};  // runs that pass before the injected failures

  // `ran`, or the injected failure; a device failure is kept as the
  // context's.
  Status after_run(Status ran) {
    if (ran.ok() && passing_.load() > 0 && passing_.fetch_sub(1) > 0) return ran;
    if (ran.ok() && injected_.load() > 0 && injected_.fetch_sub(1) > 0) {
      ran = device_error("a failure injected for a test, after the tile ran on the device");
    }
    if (ran.code() == ErrorCode::kDeviceError) {
      std::lock_guard<std::mutex> lock(failure_mutex_);
      if (failure_.ok()) failure_ = ran;
    }
    return ran;
  }

  // The first free slot (waiting for one), and it given back.
  DeviceTileSlot* take() {
    std::unique_lock<std::mutex> lock(free_mutex_);
    freed_.wait(lock, [&] { return !free_.empty(); });
    DeviceTileSlot* slot = free_.back();
    free_.pop_back();
    return slot;
  }
  void give_back(DeviceTileSlot* slot) {
    {
      std::lock_guard<std::mutex> lock(free_mutex_);
      free_.push_back(slot);
    }
    freed_.notify_one();
  }

  // f(slot) on the first free slot, held meanwhile.
  template <typename F>
  auto on_free_slot(F&& f) {
    DeviceTileSlot* slot = take();
    auto result = f(*slot);
    give_back(slot);
    return result;
  }
};

}  // namespace mallat::codec

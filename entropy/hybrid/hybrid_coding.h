// What the hybrid block coders (entropy/hybrid/hybrid_block_encoder.h, entropy/hybrid/hybrid_block_decoder.h)
// share: their device made on a background thread of its own as the coder
// is made, so that CUDA's start-up overlaps the caller's work; a batch
// split between one launch and the pool; and the device's share of a batch
// following the two sides' measured rates. Internal to the entropy module.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/status.h"
#include "common/timeline.h"
#include "common/thread_pool.h"
#include "entropy/block_coder.h"
#include "entropy/device_coders.h"
#include "entropy/hybrid/coalesced_launch.h"

namespace mallat::entropy::detail {

// Counts the start-ups running (device_starts_in_flight, entropy/hybrid/hybrid_block_encoder.h).
void count_device_start(int change);

// A device as its start-up left it. Shared with the start-up thread, which
// may outlive the coder (a process done before its device started).
template <class Device>
struct DeviceStart {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  Status status;
  std::unique_ptr<Device> device;

  // The device once started (waiting for the start when `wait`), else null.
  Device* ready(bool wait) {
    std::unique_lock<std::mutex> lock(mutex);
    if (wait) finished.wait(lock, [this] { return done; });
    return done ? device.get() : nullptr;
  }
  Status start_status() {
    std::lock_guard<std::mutex> lock(mutex);
    return status;
  }
  // "<what> on <device> + CPU", or why the device is not (yet) used.
  std::string coder_name(const std::string& what) {
    if (Device* d = ready(false)) return what + " on " + d->name() + " + CPU";
    std::lock_guard<std::mutex> lock(mutex);
    if (done) return what + " on the CPU (the device did not start: " + status.message() + ")";
    return what + " on the CPU until the device has started";
  }
};

// Runs `make` and then `prepare` (making room ahead of the first batch; may
// be empty) on a thread of its own.
template <class Device>
std::shared_ptr<DeviceStart<Device>> start_device(std::function<Result<std::unique_ptr<Device>>()> make,
                                                  std::function<Status(Device&)> prepare) {
  auto start = std::make_shared<DeviceStart<Device>>();
  count_device_start(+1);
  std::thread([start, make = std::move(make), prepare = std::move(prepare)]() mutable {
    Result<std::unique_ptr<Device>> made = make();
    if (made.ok() && prepare) {
      const Status room = prepare(**made);
      if (!room.ok()) made = room.with_context("allocating for the expected image");
    }
    {
      std::lock_guard<std::mutex> lock(start->mutex);
      if (made.ok()) {
        start->device = std::move(made).value();
      } else {
        start->status = made.status();
      }
      start->done = true;
    }
    start->finished.notify_all();
    // The device is released here when the coder has gone already, before
    // the process may leave (device_starts_in_flight).
    start.reset();
    count_device_start(-1);
  }).detach();
  return start;
}

// One device per slot of DeviceCoderOptions::device_slots (entropy/hybrid/coalesced_launch.h),
// each made and prepared on a start-up thread of its own. The first one's
// start says whether the device is up and why not.
template <class Device>
class DeviceSlots {
 public:
  DeviceSlots(int slots, const std::function<Result<std::unique_ptr<Device>>()>& make,
              const std::function<Status(Device&)>& prepare) {
    for (int s = 0; s < std::max(1, slots); ++s) starts_.push_back(start_device<Device>(make, prepare));
  }
  DeviceStart<Device>& first() const { return *starts_[0]; }
  // Whether slot 0 is up (waiting for its start when `wait`) and no slot's
  // start has failed: else a batch goes to the CPU.
  bool ready(bool wait) const { return first().ready(wait) != nullptr && start_failure().ok(); }
  // The first slot's start that ended in an error, else OK.
  Status start_failure() const {
    for (const auto& start : starts_) {
      const Status s = start->start_status();
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }
  // Slot s's device, waiting for its start; an error when it did not start.
  Result<Device*> at(int slot) const {
    DeviceStart<Device>& start = *starts_[static_cast<size_t>(slot)];
    if (Device* d = start.ready(true)) return d;
    return start.start_status().with_context("device slot " + std::to_string(slot));
  }

 private:
  std::vector<std::shared_ptr<DeviceStart<Device>>> starts_;
};

// The round rule of `options` (entropy/hybrid/coalesced_launch.h).
inline RoundRule round_rule(const DeviceCoderOptions& options) {
  return {options.coalesce_callers, options.coalesce_window_ms, std::max(1, options.device_slots),
          options.coalesce_close};
}

// With a timeline on (common/timeline.h): a caller's wait to join a round
// and have it prepared ("t1_join", its file's span), and a round's launch
// ("upload", "kernel", "download": the steps' times laid end to end from
// its start, run_recorded), each with the round's id, slot, callers and
// blocks.
template <class Round>
std::string round_detail(const Round& round) {
  return "round=" + std::to_string(round.id) + " slot=" + std::to_string(round.slot) +
         " callers=" + std::to_string(round.joined) + " blocks=" + std::to_string(round.blocks);
}
// After a caller joined a round (from `start`): the wait into
// times.prepare_ms and, with a timeline on, its "t1_join" span; returns the
// round's detail for run_recorded (empty with the timeline off).
template <class Round>
std::string note_join(const Round& round, timeline::Clock::time_point start, DeviceCodingTimes& times) {
  const timeline::Clock::time_point joined = timeline::Clock::now();
  times.prepare_ms += std::chrono::duration<double, std::milli>(joined - start).count();
  if (!timeline::enabled()) return {};
  std::string detail = round_detail(round);
  timeline::record("t1_join", start, joined, timeline::current_tag(), detail);
  return detail;
}
// Runs a round's launch (`run` adds its steps' times), adds them to `times`
// and records them with `detail` (round_detail).
Status run_recorded(const std::function<Status(DeviceCodingTimes&)>& run, DeviceCodingTimes& times,
                    const std::string& detail);

// How many blocks from the front of a batch make `share` of its samples
// (block k has samples[k]): none below options.min_device_blocks, at most
// options.max_blocks_per_launch.
size_t device_block_count(std::span<const uint64_t> samples, double share, const DeviceCoderOptions& options);

// One batch's steps on either side of a split (hybrid_split).
struct SplitSteps {
  // Device block j (< n) made ready for the launch, on a pool thread.
  std::function<void(size_t j)> gather;
  // The launch, on the coder's own thread once every block is gathered.
  std::function<Status(DeviceCodingTimes& times)> run;
  // CPU block k (>= n), on a pool thread; only parameters out of range fail.
  std::function<Status(size_t k)> cpu;
  // Device block k after the launch, on a pool thread.
  std::function<Status(size_t k)> finish;
};

// Runs a batch of `blocks` split at n: `work`'s beside items and the
// device's blocks' gathering first, then the CPU's blocks from the back
// on the pool, while the device runs; then the device's blocks finished.
// Adds the steps' times and the blocks to `times`; returns the first
// failure (the device's first). `share`, with `adapt`, moves towards the
// share at which both sides would have finished together (the samples per
// ms each had in this batch), half way, so one odd batch does not swing it.
Status hybrid_split(size_t n, std::span<const uint64_t> samples, ThreadPool& pool, const BatchWork& work,
                    const SplitSteps& steps, DeviceCodingTimes& times, bool adapt, double& share);

// A hybrid coder's device share and times, which concurrent calls (files
// coded at once, entropy/hybrid/coalesced_launch.h) read and add to.
class SplitState {
 public:
  explicit SplitState(double share) : share_(share) {}
  DeviceCodingTimes times() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return times_;
  }
  // One batch of blocks with `samples`: none to the device when
  // `device_ready` is false, a launch has failed, or its share is no block
  // (device_block_count), then `on_cpu` codes them all; else
  // `split(n, times, share)` codes blocks [0, n) on the device and may move
  // the share. The batch's times are added.
  Status code(std::span<const uint64_t> samples, bool device_ready, const DeviceCoderOptions& options,
              const std::function<Status()>& on_cpu,
              const std::function<Status(size_t n, DeviceCodingTimes& times, double& share)>& split);
  // A launch failed (its blocks were coded on the CPU): every later batch
  // goes to the CPU, and failure() says why.
  void device_failed(const Status& why) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failure_.ok()) failure_ = why;
  }
  Status failure() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return failure_;
  }

 private:
  mutable std::mutex mutex_;
  double share_;
  DeviceCodingTimes times_;
  Status failure_;
};

// One coder's device side in a hybrid coder: its devices (one per slot),
// the rounds its callers join with `Lists` of their blocks, and its share.
template <class Device, class Lists>
struct DeviceLane {
  DeviceLane(const std::function<Result<std::unique_ptr<Device>>()>& make,
             const std::function<Status(Device&)>& prepare, const DeviceCoderOptions& options)
      : slots(options.device_slots, make, prepare),
        launches(round_rule(options)),
        state(std::clamp(options.device_share, 0.0, 1.0)) {}
  // Why the device is not used: a start that failed, else a failed launch.
  Status status() const {
    const Status started = slots.start_failure();
    return started.ok() ? state.failure() : started;
  }
  DeviceSlots<Device> slots;
  CoalescedLaunches<Lists> launches;
  SplitState state;
};

// A hybrid coder's lanes by coder (BlockCoderKind), null for a coder
// without a device: their names ("<what> on <device> + CPU", `what` of each
// coder from `what_of`, joined by "; "), their times summed, and the first
// one's reason not to use its device.
template <class Lane>
using Lanes = std::array<std::unique_ptr<Lane>, kBlockCoderKinds>;
template <class Lane>
std::string lanes_name(const Lanes<Lane>& lanes, const std::function<std::string(size_t coder)>& what_of) {
  std::string name;
  for (size_t c = 0; c < lanes.size(); ++c) {
    if (lanes[c]) name += (name.empty() ? "" : "; ") + lanes[c]->slots.first().coder_name(what_of(c));
  }
  return name.empty() ? "the CPU alone (no coder has a device)" : name;
}
template <class Lane>
DeviceCodingTimes lanes_times(const Lanes<Lane>& lanes) {
  DeviceCodingTimes times;
  for (const auto& lane : lanes) {
    if (lane) times += lane->state.times();
  }
  return times;
}
template <class Lane>
Status lanes_status(const Lanes<Lane>& lanes) {
  for (const auto& lane : lanes) {
    if (!lane) continue;
    if (Status s = lane->status(); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace mallat::entropy::detail

#include "entropy/hybrid/hybrid_coding.h"

#include "entropy/hybrid/hybrid_block_encoder.h"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <mutex>
#include <thread>

namespace mallat::entropy::detail {
namespace {

std::atomic<int> starts_in_flight{0};

using Clock = std::chrono::steady_clock;

// How long a process's exit waits for device start-ups still running.
// A CUDA context starts in well under a second; a driver that hangs past
// this lets the process leave rather than hang with it.
constexpr std::chrono::seconds kExitWait{30};

// A start-up thread is detached: a process that returns from main (or
// calls exit) while one runs would tear the CUDA runtime down under it,
// which fails inside the runtime (cudaErrorCudartUnloading, then a double
// free). The runtime's teardown of the kernels' modules is registered
// with atexit as the program loads, before main; this handler, registered
// at the first start-up, runs before it (C++ [support.start.term]: the
// last registered runs first) and waits for the start-ups. A process that
// leaves with std::_Exit (tools/main.cc) runs no handler and never waits.
void wait_for_device_starts() {
  const Clock::time_point until = Clock::now() + kExitWait;
  while (starts_in_flight.load() > 0 && Clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// A child forked while a start-up ran has no start-up thread: it must not
// wait at its exit for its parent's start-ups.
void forget_device_starts_in_child() { starts_in_flight.store(0); }

double ms_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

}  // namespace

size_t device_block_count(std::span<const uint64_t> samples, double share, const DeviceCoderOptions& options) {
  if (samples.empty() || samples.size() < options.min_device_blocks) return 0;
  uint64_t total = 0;
  for (uint64_t s : samples) total += s;
  const double target = share * static_cast<double>(total);
  size_t n = 0;
  double taken = 0;
  while (n < samples.size() && taken < target) taken += static_cast<double>(samples[n++]);
  return std::min(n, options.max_blocks_per_launch);
}

Status hybrid_split(size_t n, std::span<const uint64_t> samples, ThreadPool& pool, const BatchWork& work,
                    const SplitSteps& steps, DeviceCodingTimes& times, bool adapt, double& share) {
  const Clock::time_point start = Clock::now();
  const size_t count = samples.size();
  const int64_t items = work.item ? work.items : 0;
  const size_t cpu_blocks = count - n;
  std::atomic<size_t> gathered{0};
  std::promise<void> all_gathered;
  std::shared_future<void> gathered_signal = all_gathered.get_future().share();
  DeviceCodingTimes device_steps;
  Clock::time_point launched, device_done;
  // The device's thread: it sleeps until the last of its blocks is
  // gathered, then runs the launch beside the pool.
  std::future<Status> device_run = std::async(std::launch::async, [&] {
    gathered_signal.wait();
    launched = Clock::now();
    Status s = steps.run(device_steps);
    device_done = Clock::now();
    return s;
  });
  // Items in the pool's order: the beside work, the device's blocks (so
  // they are gathered first), then the CPU's blocks from the back.
  const Status cpu = pool.parallel_for_status(items + static_cast<int64_t>(count), [&](int64_t i) -> Status {
    if (i < items) {
      work.item(i);
      return Status::Ok();
    }
    const auto j = static_cast<size_t>(i - items);
    if (j < n) {
      steps.gather(j);
      if (gathered.fetch_add(1) + 1 == n) all_gathered.set_value();
      return Status::Ok();
    }
    return steps.cpu(count - 1 - (j - n));
  });
  const Clock::time_point cpu_done = Clock::now();
  const Status ran = device_run.get();
  if (!ran.ok()) return ran.with_context("Tier-1 on the device");
  MALLAT_RETURN_IF_ERROR(cpu);
  const Clock::time_point finish = Clock::now();
  MALLAT_RETURN_IF_ERROR(pool.parallel_for_status(static_cast<int64_t>(n), [&](int64_t i) {
    return steps.finish(static_cast<size_t>(i));
  }));
  times.prepare_ms += ms_between(start, launched);
  times.upload_ms += device_steps.upload_ms;
  times.kernel_ms += device_steps.kernel_ms;
  times.download_ms += device_steps.download_ms;
  times.finish_ms += ms_between(finish, Clock::now());
  times.cpu_ms += ms_between(start, cpu_done);
  times.wait_ms += std::max(0.0, ms_between(cpu_done, device_done));
  times.device_blocks += n;
  times.cpu_blocks += cpu_blocks;
  if (!adapt || cpu_blocks == 0) return Status::Ok();
  double device_samples = 0, cpu_samples = 0;
  for (size_t k = 0; k < count; ++k) (k < n ? device_samples : cpu_samples) += static_cast<double>(samples[k]);
  const double device_ms = ms_between(start, device_done), cpu_ms = ms_between(start, cpu_done);
  if (device_ms <= 0 || cpu_ms <= 0 || device_samples <= 0 || cpu_samples <= 0) return Status::Ok();
  const double device_rate = device_samples / device_ms, cpu_rate = cpu_samples / cpu_ms;
  const double meet = device_rate / (device_rate + cpu_rate);
  share = std::clamp(0.5 * share + 0.5 * meet, 0.05, 1.0);
  return Status::Ok();
}

Status SplitState::code(std::span<const uint64_t> samples, bool device_ready, const DeviceCoderOptions& options,
                        const std::function<Status()>& on_cpu,
                        const std::function<Status(size_t n, DeviceCodingTimes& times, double& share)>& split) {
  double share;
  bool failed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    share = share_;
    failed = !failure_.ok();
  }
  const size_t n = device_ready && !failed ? device_block_count(samples, share, options) : 0;
  DeviceCodingTimes times;
  Status status;
  if (n == 0) {
    times.cpu_blocks += samples.size();
    status = on_cpu();
  } else {
    status = split(n, times, share);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  times_ += times;
  if (n > 0) share_ = share;
  return status;
}

Status run_recorded(const std::function<Status(DeviceCodingTimes&)>& run, DeviceCodingTimes& times,
                    const std::string& detail) {
  const timeline::Clock::time_point start = timeline::Clock::now();
  DeviceCodingTimes own;
  const Status ran = run(own);
  times += own;
  if (!timeline::enabled()) return ran;
  const auto after = [](timeline::Clock::time_point t, double ms) {
    return t + std::chrono::duration_cast<timeline::Clock::duration>(std::chrono::duration<double, std::milli>(ms));
  };
  const timeline::Clock::time_point uploaded = after(start, own.upload_ms);
  const timeline::Clock::time_point coded = after(uploaded, own.kernel_ms);
  timeline::record("upload", start, uploaded, {}, detail);
  timeline::record("kernel", uploaded, coded, {}, detail);
  timeline::record("download", coded, after(coded, own.download_ms), {}, detail);
  return ran;
}

void count_device_start(int change) {
  static std::once_flag registered;
  if (change > 0) {
    std::call_once(registered, [] {
      std::atexit(wait_for_device_starts);
      pthread_atfork(nullptr, nullptr, forget_device_starts_in_child);
    });
  }
  starts_in_flight.fetch_add(change);
}

}  // namespace mallat::entropy::detail

namespace mallat::entropy {

int device_starts_in_flight() { return detail::starts_in_flight.load(); }

}  // namespace mallat::entropy

#include "entropy/hybrid_block_encoder.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <future>
#include <mutex>
#include <thread>
#include <utility>

#include "entropy/t1.h"

namespace mallat::entropy {
namespace {

std::atomic<int> starts_in_flight{0};

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

uint64_t samples_of(const BlockToEncode& b) {
  return static_cast<uint64_t>(b.coefficients.width) * static_cast<uint64_t>(b.coefficients.height);
}

// The device as its start-up left it. Shared with the start-up thread, which
// may outlive the coder (a process done before its device started).
struct DeviceStart {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  Status status;
  std::unique_ptr<T1Device> device;
};

// The room a launch takes for `options.expected_samples`: the device's
// share with a margin for the share's moves, in blocks of 4096 samples (a
// 64x64 block; smaller ones at the edges, so twice as many blocks).
struct ExpectedLaunch {
  size_t coefficients = 0, blocks = 0;
};
ExpectedLaunch expected_launch(const DeviceCoderOptions& options) {
  const double share = std::min(1.0, std::clamp(options.device_share, 0.0, 1.0) * 1.5);
  ExpectedLaunch e;
  e.coefficients = static_cast<size_t>(static_cast<double>(options.expected_samples) * share);
  e.blocks = std::min(options.max_blocks_per_launch, e.coefficients / 2048 + 1);
  return e;
}

std::shared_ptr<DeviceStart> start_device(T1DeviceStart make, const DeviceCoderOptions& options) {
  auto start = std::make_shared<DeviceStart>();
  starts_in_flight.fetch_add(1);
  std::thread([start, make = std::move(make), expected = expected_launch(options)]() mutable {
    Result<std::unique_ptr<T1Device>> made = make();
    if (made.ok() && expected.coefficients > 0) {
      const Status room = (*made)->reserve(expected.coefficients, expected.blocks);
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
    starts_in_flight.fetch_sub(1);
  }).detach();
  return start;
}

class HybridBlockEncoder final : public BlockEncoder {
 public:
  HybridBlockEncoder(T1DeviceStart make, const DeviceCoderOptions& options)
      : options_(options),
        share_(std::clamp(options.device_share, 0.0, 1.0)),
        ht_(make_ht_block_encoder()),
        cpu_(make_ebcot_block_encoder()),
        start_(start_device(std::move(make), options)) {}

  std::string name() const override {
    if (const T1Device* device = ready(false)) return "ebcot on " + device->name() + " + CPU";
    std::lock_guard<std::mutex> lock(start_->mutex);
    if (start_->done) return "ebcot on the CPU (the device did not start: " + start_->status.message() + ")";
    return "ebcot on the CPU until the device has started";
  }
  DeviceCodingTimes device_times() const override { return times_; }
  Status device_status() const override {
    std::lock_guard<std::mutex> lock(start_->mutex);
    return start_->status;
  }

  Status encode(std::span<const BlockToEncode> blocks, std::span<EncodedCodeBlock> out, ThreadPool& pool,
                const BatchWork& work) override {
    if (out.size() != blocks.size()) return invalid_argument("a Tier-1 batch and its outputs differ in size");
    // 15444-15 blocks stay on the CPU's HT coder (one kind per batch,
    // codec/stages/block_coding.cc).
    if (!blocks.empty() && block_coder_kind(blocks[0].style) == BlockCoderKind::kHt) {
      return ht_->encode(blocks, out, pool, work);
    }
    T1Device* device = ready(options_.wait_for_device);
    const size_t n = device == nullptr ? 0 : device_count(blocks);
    if (n == 0) {
      times_.cpu_blocks += blocks.size();
      return cpu_->encode(blocks, out, pool, work);
    }
    return split(*device, n, blocks, out, pool, work);
  }

 private:
  // The device once started (waiting for the start when `wait`), else null.
  T1Device* ready(bool wait) const {
    std::unique_lock<std::mutex> lock(start_->mutex);
    if (wait) start_->finished.wait(lock, [this] { return start_->done; });
    return start_->done ? start_->device.get() : nullptr;
  }

  // How many blocks from the front make the device's share of the samples.
  size_t device_count(std::span<const BlockToEncode> blocks) const {
    if (blocks.empty() || blocks.size() < options_.min_device_blocks) return 0;
    uint64_t total = 0;
    for (const BlockToEncode& b : blocks) total += samples_of(b);
    const double target = share_ * static_cast<double>(total);
    size_t n = 0;
    double taken = 0;
    while (n < blocks.size() && taken < target) taken += static_cast<double>(samples_of(blocks[n++]));
    return std::min(n, options_.max_blocks_per_launch);
  }

  // Blocks [0, n) on the device, [n, size) on the pool from the back.
  Status split(T1Device& device, size_t n, std::span<const BlockToEncode> blocks, std::span<EncodedCodeBlock> out,
               ThreadPool& pool, const BatchWork& work) {
    const Clock::time_point start = Clock::now();
    MALLAT_RETURN_IF_ERROR(device.prepare(blocks.first(n)).with_context("Tier-1 on the device"));
    const int64_t items = work.item ? work.items : 0;
    const size_t cpu_blocks = blocks.size() - n;
    std::atomic<size_t> gathered{0};
    std::promise<void> all_gathered;
    std::shared_future<void> gathered_signal = all_gathered.get_future().share();
    DeviceCodingTimes device_steps;
    Clock::time_point launched, device_done;
    // The device's thread: it sleeps until the last of its blocks is
    // gathered, then uploads, codes and downloads beside the pool.
    std::future<Status> device_run = std::async(std::launch::async, [&] {
      gathered_signal.wait();
      launched = Clock::now();
      Status s = device.run(device_steps);
      device_done = Clock::now();
      return s;
    });
    // Items in the pool's order: the beside work, the device's blocks (so
    // they are gathered first), then the CPU's blocks from the back.
    const Status cpu = pool.parallel_for_status(
        items + static_cast<int64_t>(n + cpu_blocks), [&](int64_t i) -> Status {
          if (i < items) {
            work.item(i);
            return Status::Ok();
          }
          const auto j = static_cast<size_t>(i - items);
          if (j < n) {
            if (work.each) work.each(j);
            device.gather(j);
            if (gathered.fetch_add(1) + 1 == n) all_gathered.set_value();
            return Status::Ok();
          }
          const size_t k = blocks.size() - 1 - (j - n);
          if (work.each) work.each(k);
          const BlockToEncode& b = blocks[k];
          auto coded = encode_code_block(b.coefficients, b.orientation, b.num_bitplanes, b.style, b.fraction_bits);
          if (!coded.ok()) return coded.status();
          out[k] = std::move(coded).value();
          return Status::Ok();
        });
    const Clock::time_point cpu_done = Clock::now();
    const Status ran = device_run.get();
    if (!ran.ok()) return ran.with_context("Tier-1 on the device");
    MALLAT_RETURN_IF_ERROR(cpu);
    const Clock::time_point finish = Clock::now();
    MALLAT_RETURN_IF_ERROR(pool.parallel_for_status(static_cast<int64_t>(n), [&](int64_t i) -> Status {
      const auto k = static_cast<size_t>(i);
      MALLAT_ASSIGN_OR_RETURN(out[k], device.finish(k));
      return Status::Ok();
    }));
    times_.prepare_ms += ms_between(start, launched);
    times_.upload_ms += device_steps.upload_ms;
    times_.kernel_ms += device_steps.kernel_ms;
    times_.download_ms += device_steps.download_ms;
    times_.finish_ms += ms_between(finish, Clock::now());
    times_.cpu_ms += ms_between(start, cpu_done);
    times_.wait_ms += std::max(0.0, ms_between(cpu_done, device_done));
    times_.device_blocks += n;
    times_.cpu_blocks += cpu_blocks;
    if (options_.adapt && cpu_blocks > 0) adapt(blocks, n, ms_between(start, device_done), ms_between(start, cpu_done));
    return Status::Ok();
  }

  // The share at which both sides would have finished together at the
  // rates (samples per ms) they had in this batch; half way there, so one
  // odd batch does not swing it.
  void adapt(std::span<const BlockToEncode> blocks, size_t n, double device_ms, double cpu_ms) {
    double device_samples = 0, cpu_samples = 0;
    for (size_t k = 0; k < blocks.size(); ++k) (k < n ? device_samples : cpu_samples) += double(samples_of(blocks[k]));
    if (device_ms <= 0 || cpu_ms <= 0 || device_samples <= 0 || cpu_samples <= 0) return;
    const double device_rate = device_samples / device_ms, cpu_rate = cpu_samples / cpu_ms;
    const double meet = device_rate / (device_rate + cpu_rate);
    share_ = std::clamp(0.5 * share_ + 0.5 * meet, 0.05, 1.0);
  }

  DeviceCoderOptions options_;
  double share_;
  std::unique_ptr<BlockEncoder> ht_;
  std::unique_ptr<BlockEncoder> cpu_;
  std::shared_ptr<DeviceStart> start_;
  DeviceCodingTimes times_;
};

}  // namespace

std::unique_ptr<BlockEncoder> make_hybrid_block_encoder(T1DeviceStart start, const DeviceCoderOptions& options) {
  return std::make_unique<HybridBlockEncoder>(std::move(start), options);
}

int device_starts_in_flight() { return starts_in_flight.load(); }

}  // namespace mallat::entropy

// The hybrid Tier-1 coder (entropy/hybrid/hybrid_block_encoder.h) without a GPU:
// its device is the host running the shared encoder over the gathered jobs,
// as the kernel does. Whatever the split, a batch gives encode_code_block's
// bytes, the caller's per-block work runs once per block, a device that is
// not up yet, fails to start or fails to run is handled as documented, and
// the share follows the measured rates. Then whole files through
// codec::encode: the same bytes as the CPU path.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "codec/codec.h"
#include "codec/encoder/encode_call.h"
#include "common/image.h"
#include "common/thread_pool.h"
#include "entropy/block_coder.h"
#include "entropy/hybrid/hybrid_block_encoder.h"
#include "entropy/ebcot/ebcot.h"
#include "entropy/device_coders.h"
#include "entropy/t1_encode_batch.h"
#include "entropy/ebcot/shared_encoder.h"
#include "tests/entropy/textured_image.h"
#include "tests/entropy/t1_shared_cases.h"
#include "tests/entropy/hybrid_test_options.h"

namespace mallat::entropy::testing {
namespace {

// What a test wants of its host "device".
struct HostDeviceScript {
  std::chrono::milliseconds run_delay{0};
  bool fail_run = false;
  std::atomic<int> runs{0};
  std::atomic<int> running{0}, most_running{0};  // launches at once (device slots)
  size_t reserved_coefficients = 0, reserved_blocks = 0;  // what the start-up reserved
};

// The shared encoder over the gathered jobs on the host, into slots as the
// device fills them, finished as the CUDA device finishes them.
class HostEbcotDevice final : public DeviceBlockEncoder {
 public:
  explicit HostEbcotDevice(std::shared_ptr<HostDeviceScript> script) : script_(std::move(script)) {}
  std::string name() const override { return "host"; }

  Status prepare(std::span<const BlockToEncode> blocks) override {
    blocks_ = blocks;
    MALLAT_ASSIGN_OR_RETURN(layout_, lay_out_t1_batch(blocks));
    buffer_.assign(layout_.coefficients, 0);
    return Status::Ok();
  }
  void gather(size_t k) override { gather_t1_block(blocks_[k], layout_.jobs[k], buffer_.data()); }

  Status run(DeviceCodingTimes& times) override {
    script_->runs.fetch_add(1);
    const int now = script_->running.fetch_add(1) + 1;
    for (int most = script_->most_running.load(); now > most && !script_->most_running.compare_exchange_weak(most, now);) {
    }
    std::this_thread::sleep_for(script_->run_delay);
    script_->running.fetch_sub(1);
    if (script_->fail_run) return device_error("the host device was told to fail");
    const auto start = std::chrono::steady_clock::now();
    const size_t n = layout_.jobs.size(), capacity = layout_.slot_capacity;
    results_.assign(n, {});
    passes_.assign(n * kMaxCodingPasses, {});
    slots_.assign(n * capacity, 0);
    auto state = std::make_unique<T1FixedState>();
    for (size_t j = 0; j < n; ++j) {
      const T1DeviceJob& job = layout_.jobs[j];
      const SharedT1Block block{buffer_.data() + job.coefficient_offset, job.width, job.height, job.width,
                                static_cast<BandOrientation>(job.orientation), job.num_bitplanes,
                                CodeBlockStyle::from_byte(job.style), job.fraction_bits};
      results_[j] = encode_code_block_shared(
          block, *state, {slots_.data() + j * capacity, static_cast<uint32_t>(capacity),
                          passes_.data() + j * kMaxCodingPasses});
    }
    times.kernel_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return Status::Ok();
  }

  Status reserve(size_t coefficients, size_t blocks) override {
    script_->reserved_coefficients = coefficients;
    script_->reserved_blocks = blocks;
    buffer_.reserve(coefficients);
    return Status::Ok();
  }

  Result<EncodedCodeBlock> finish(size_t k) override {
    return finish_device_block(blocks_[k], results_[k], passes_.data() + k * kMaxCodingPasses,
                               slots_.data() + k * layout_.slot_capacity, layout_.slot_capacity);
  }

 private:
  std::shared_ptr<HostDeviceScript> script_;
  std::span<const BlockToEncode> blocks_;
  T1DeviceBatchLayout layout_;
  std::vector<int32_t> buffer_;
  std::vector<SharedT1Result> results_;
  std::vector<CodingPass> passes_;
  std::vector<uint8_t> slots_;
};

DeviceBlockEncoderStart host_start(std::shared_ptr<HostDeviceScript> script) {
  return [script]() -> Result<std::unique_ptr<DeviceBlockEncoder>> { return std::unique_ptr<DeviceBlockEncoder>(new HostEbcotDevice(script)); };
}

// `start` as the EBCOT coder's device.
DeviceBlockEncoders ebcot_on(DeviceBlockEncoderStart start) {
  return device_block_encoders(BlockCoderKind::kEbcot, std::move(start));
}

struct Batch {
  std::vector<SharedCase> cases;
  std::vector<BlockToEncode> blocks;
};

Batch some_blocks() {
  Batch b;
  std::vector<SharedCase> all = shared_cases();
  for (size_t i = 0; i < all.size(); i += 7) b.cases.push_back(all[i]);
  for (const SharedCase& c : b.cases) {
    BlockToEncode block;
    block.coefficients = {c.samples.data(), c.width, c.height, c.width};
    block.orientation = c.orientation;
    block.num_bitplanes = c.num_bitplanes;
    block.style = c.style;
    block.fraction_bits = c.fraction_bits;
    b.blocks.push_back(block);
  }
  return b;
}

void expect_cpu_bytes(const Batch& b, const std::vector<EncodedCodeBlock>& got) {
  for (size_t k = 0; k < b.blocks.size(); ++k) {
    const BlockToEncode& x = b.blocks[k];
    auto want = encode_code_block(x.coefficients, x.orientation, x.num_bitplanes, x.style, x.fraction_bits);
    ASSERT_TRUE(want.ok());
    EXPECT_TRUE(same_encoding(*want, got[k])) << "block " << k << ": " << b.cases[k].name();
  }
}

TEST(HybridBlockEncoder, EverySplitGivesTheCpuCodersBytes) {
  const Batch b = some_blocks();
  ASSERT_GT(b.blocks.size(), 100u);
  ThreadPool pool(3);
  for (double share : {0.0, 0.1, 0.5, 0.9, 1.0}) {
    auto script = std::make_shared<HostDeviceScript>();
    auto coder = make_hybrid_block_encoder(ebcot_on(host_start(script)), options_with(share));
    std::vector<EncodedCodeBlock> out(b.blocks.size());
    ASSERT_TRUE(coder->encode(b.blocks, out, pool).ok()) << share;
    expect_cpu_bytes(b, out);
    const DeviceCodingTimes t = coder->device_times();
    EXPECT_EQ(t.device_blocks + t.cpu_blocks, b.blocks.size()) << share;
    EXPECT_EQ(t.device_blocks > 0, share > 0) << share;
    EXPECT_EQ(t.cpu_blocks > 0, share < 1) << share;
    EXPECT_EQ(script->runs.load(), share > 0 ? 1 : 0) << share;
    EXPECT_EQ(coder->name(), "ebcot on host + CPU");
  }
}

// A batch goes to its own coder's device only: with a device for HT alone,
// EBCOT's blocks are coded on the CPU, HT's device never runs, and the bytes
// are the CPU coder's.
TEST(HybridBlockEncoder, ABatchOfACoderWithoutADeviceStaysOnTheCpu) {
  const Batch b = some_blocks();
  ThreadPool pool(2);
  auto ht = std::make_shared<HostDeviceScript>();
  auto ht_alone = make_hybrid_block_encoder(device_block_encoders(BlockCoderKind::kHt, host_start(ht)),
                                            options_with(1.0));
  std::vector<EncodedCodeBlock> cpu_out(b.blocks.size());
  ASSERT_TRUE(ht_alone->encode(b.blocks, cpu_out, pool).ok());
  expect_cpu_bytes(b, cpu_out);
  EXPECT_EQ(ht->runs.load(), 0);
  EXPECT_EQ(ht_alone->device_times().device_blocks, 0u);
}

TEST(HybridBlockEncoder, TheCallersWorkRunsOncePerBlockBeforeItIsCoded) {
  Batch b = some_blocks();
  // The per-block work writes the coefficients, as the encoder's
  // quantisation does: the coders must see what it wrote.
  std::vector<std::vector<int32_t>> written(b.blocks.size());
  std::vector<BlockToEncode> blocks = b.blocks;
  for (size_t k = 0; k < blocks.size(); ++k) {
    written[k].assign(b.cases[k].samples.size(), 0);
    blocks[k].coefficients.data = written[k].data();
  }
  std::vector<std::atomic<int>> each(blocks.size());
  std::vector<std::atomic<int>> items(5);
  BatchWork work;
  work.each = [&](size_t k) {
    each[k].fetch_add(1);
    std::copy(b.cases[k].samples.begin(), b.cases[k].samples.end(), written[k].begin());
  };
  work.items = 5;
  work.item = [&](int64_t i) { items[static_cast<size_t>(i)].fetch_add(1); };
  ThreadPool pool(4);
  auto coder = make_hybrid_block_encoder(ebcot_on(host_start(std::make_shared<HostDeviceScript>())), options_with(0.6));
  std::vector<EncodedCodeBlock> out(blocks.size());
  ASSERT_TRUE(coder->encode(blocks, out, pool, work).ok());
  for (auto& e : each) EXPECT_EQ(e.load(), 1);
  for (auto& i : items) EXPECT_EQ(i.load(), 1);
  expect_cpu_bytes(b, out);
}

TEST(HybridBlockEncoder, BatchesBeforeTheDeviceIsUpGoToTheCpu) {
  const Batch b = some_blocks();
  ThreadPool pool(2);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto script = std::make_shared<HostDeviceScript>();
  DeviceBlockEncoderStart slow = [released, script]() -> Result<std::unique_ptr<DeviceBlockEncoder>> {
    released.wait();
    return std::unique_ptr<DeviceBlockEncoder>(new HostEbcotDevice(script));
  };
  auto coder = make_hybrid_block_encoder(ebcot_on(slow), options_with(0.5, /*wait=*/false));
  EXPECT_GE(device_starts_in_flight(), 1);
  EXPECT_EQ(coder->name(), "ebcot on the CPU until the device has started");
  std::vector<EncodedCodeBlock> out(b.blocks.size());
  ASSERT_TRUE(coder->encode(b.blocks, out, pool).ok());
  expect_cpu_bytes(b, out);
  EXPECT_EQ(coder->device_times().device_blocks, 0u);
  EXPECT_EQ(script->runs.load(), 0);
  release.set_value();
  for (int i = 0; i < 500 && device_starts_in_flight() > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(device_starts_in_flight(), 0);
  ASSERT_TRUE(coder->encode(b.blocks, out, pool).ok());
  expect_cpu_bytes(b, out);
  EXPECT_GT(coder->device_times().device_blocks, 0u);
  EXPECT_EQ(script->runs.load(), 1);
}

// A process that leaves (exit, or a return from main) while its device
// starts waits for the start rather than tearing the device runtime down
// under the start-up thread: the child here exits at once, and its slow
// start still ends and says so.
TEST(HybridBlockEncoderDeathTest, AProcessThatExitsWhileItsDeviceStartsWaitsForTheStart) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        DeviceBlockEncoderStart slow = []() -> Result<std::unique_ptr<DeviceBlockEncoder>> {
          std::this_thread::sleep_for(std::chrono::milliseconds(300));
          std::fputs("the device has started\n", stderr);
          return std::unique_ptr<DeviceBlockEncoder>(new HostEbcotDevice(std::make_shared<HostDeviceScript>()));
        };
        auto coder = make_hybrid_block_encoder(ebcot_on(slow), options_with(0.5, /*wait=*/false));
        std::exit(coder != nullptr ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "the device has started");
}

// A child forked while its parent's device starts has no start-up thread:
// its exit waits for none (rather than for the parent's start, or the wait's
// 30 s bound).
TEST(HybridBlockEncoderDeathTest, AChildForkedWhileTheDeviceStartsLeavesAtOnce) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        DeviceBlockEncoderStart slow = []() -> Result<std::unique_ptr<DeviceBlockEncoder>> {
          std::this_thread::sleep_for(std::chrono::seconds(60));
          return std::unique_ptr<DeviceBlockEncoder>(new HostEbcotDevice(std::make_shared<HostDeviceScript>()));
        };
        auto coder = make_hybrid_block_encoder(ebcot_on(slow), options_with(0.5, /*wait=*/false));
        const auto start = std::chrono::steady_clock::now();
        const pid_t child = fork();
        if (child == 0) std::exit(0);
        int status = 0;
        waitpid(child, &status, 0);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::fprintf(stderr, "the forked child left after %.1f s\n", seconds);
        std::_Exit(coder != nullptr && seconds < 10 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "the forked child left");
}

TEST(HybridBlockEncoder, ADeviceThatFailsToStartLeavesEveryBatchToTheCpu) {
  const Batch b = some_blocks();
  ThreadPool pool(2);
  DeviceBlockEncoderStart none = []() -> Result<std::unique_ptr<DeviceBlockEncoder>> { return device_error("no CUDA device: test"); };
  auto coder = make_hybrid_block_encoder(ebcot_on(none), options_with(0.5));
  std::vector<EncodedCodeBlock> out(b.blocks.size());
  ASSERT_TRUE(coder->encode(b.blocks, out, pool).ok());
  expect_cpu_bytes(b, out);
  EXPECT_EQ(coder->device_status().message(), "no CUDA device: test");
  EXPECT_EQ(coder->name(), "ebcot on the CPU (the device did not start: no CUDA device: test)");
}

// With two slots, one slot's start failing (its buffers, say) leaves every
// batch to the CPU too, and says why.
TEST(HybridBlockEncoder, OneSlotThatFailsToStartLeavesEveryBatchToTheCpu) {
  const Batch b = some_blocks();
  ThreadPool pool(2);
  auto script = std::make_shared<HostDeviceScript>();
  auto made = std::make_shared<std::atomic<int>>(0);
  DeviceBlockEncoderStart second_fails = [script, made]() -> Result<std::unique_ptr<DeviceBlockEncoder>> {
    if (made->fetch_add(1) == 1) return device_error("no room: test");
    return std::unique_ptr<DeviceBlockEncoder>(new HostEbcotDevice(script));
  };
  DeviceCoderOptions o = options_with(1.0);
  o.device_slots = 2;
  auto coder = make_hybrid_block_encoder(ebcot_on(second_fails), o);
  // Waits (1 s at most) for the failing start, whichever slot's it is.
  for (int i = 0; i < 200 && coder->device_status().ok(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::vector<EncodedCodeBlock> out(b.blocks.size());
  ASSERT_TRUE(coder->encode(b.blocks, out, pool).ok());
  expect_cpu_bytes(b, out);
  EXPECT_EQ(coder->device_status().message(), "no room: test");
  EXPECT_EQ(script->runs.load(), 0);
}

TEST(HybridBlockEncoder, TheStartUpMakesRoomForTheExpectedImage) {
  auto script = std::make_shared<HostDeviceScript>();
  DeviceCoderOptions o = options_with(0.5);
  o.expected_samples = 1'000'000;
  auto coder = make_hybrid_block_encoder(ebcot_on(host_start(script)), o);
  const Batch b = some_blocks();
  ThreadPool pool(2);
  std::vector<EncodedCodeBlock> out(b.blocks.size());
  ASSERT_TRUE(coder->encode(b.blocks, out, pool).ok());  // waits for the start-up
  EXPECT_EQ(script->reserved_coefficients, 750'000u);    // the share with half again for its moves
  EXPECT_EQ(script->reserved_blocks, 750'000u / 2048 + 1);
  auto none = std::make_shared<HostDeviceScript>();
  auto plain = make_hybrid_block_encoder(ebcot_on(host_start(none)), options_with(0.5));
  ASSERT_TRUE(plain->encode(b.blocks, out, pool).ok());
  EXPECT_EQ(none->reserved_coefficients, 0u);
}

TEST(HybridBlockEncoder, ADeviceThatFailsToRunLeavesItsBlocksToTheCpu) {
  const Batch b = some_blocks();
  ThreadPool pool(2);
  auto script = std::make_shared<HostDeviceScript>();
  script->fail_run = true;
  auto coder = make_hybrid_block_encoder(ebcot_on(host_start(script)), options_with(0.5));
  for (int batch = 0; batch < 2; ++batch) {
    std::vector<EncodedCodeBlock> out(b.blocks.size());
    ASSERT_TRUE(coder->encode(b.blocks, out, pool).ok());
    expect_cpu_bytes(b, out);
  }
  // Not tried again after the failure.
  EXPECT_EQ(script->runs.load(), 1);
  EXPECT_EQ(coder->device_status().message(), "Tier-1 on the device: the host device was told to fail");
}

// Concurrent callers with coalesce_callers = 3 share one launch, each
// getting its own blocks' bytes (the batches differ: each a rotation of
// the cases); a caller alone goes when the window ends; a failing launch
// fails every caller of its round, none left waiting.
std::vector<std::vector<EncodedCodeBlock>> encode_at_once(BlockEncoder& coder, const std::vector<Batch>& batches) {
  std::vector<std::vector<EncodedCodeBlock>> outs(batches.size());
  std::vector<std::future<Status>> calls;
  for (size_t i = 0; i < batches.size(); ++i) {
    outs[i].resize(batches[i].blocks.size());
    calls.push_back(std::async(std::launch::async, [&, i] {
      ThreadPool pool(2);
      return coder.encode(batches[i].blocks, outs[i], pool);
    }));
  }
  for (size_t i = 0; i < calls.size(); ++i) EXPECT_TRUE(calls[i].get().ok()) << "caller " << i;
  return outs;
}

Batch rotated(const Batch& b, size_t by) {
  Batch r = b;
  std::rotate(r.cases.begin(), r.cases.begin() + static_cast<std::ptrdiff_t>(by), r.cases.end());
  std::rotate(r.blocks.begin(), r.blocks.begin() + static_cast<std::ptrdiff_t>(by), r.blocks.end());
  return r;
}

TEST(HybridBlockEncoder, ConcurrentCallersShareOneLaunchAndGetTheirOwnBlocks) {
  const Batch b = some_blocks();
  const std::vector<Batch> batches = {b, rotated(b, 5), rotated(b, 11)};
  auto script = std::make_shared<HostDeviceScript>();
  DeviceCoderOptions o = options_with(0.6);
  o.coalesce_callers = 3;
  o.coalesce_window_ms = 60000;  // only the third caller closes the round
  auto coder = make_hybrid_block_encoder(ebcot_on(host_start(script)), o);
  const auto outs = encode_at_once(*coder, batches);
  for (size_t i = 0; i < batches.size(); ++i) expect_cpu_bytes(batches[i], outs[i]);
  EXPECT_EQ(script->runs.load(), 1);
  const DeviceCodingTimes t = coder->device_times();
  EXPECT_EQ(t.device_blocks + t.cpu_blocks, 3 * b.blocks.size());
  EXPECT_GT(t.device_blocks, 0u);
}

TEST(HybridBlockEncoder, ACallerAloneLaunchesWhenTheWindowEnds) {
  const Batch b = some_blocks();
  auto script = std::make_shared<HostDeviceScript>();
  DeviceCoderOptions o = options_with(0.5);
  o.coalesce_callers = 4;
  o.coalesce_window_ms = 30;
  auto coder = make_hybrid_block_encoder(ebcot_on(host_start(script)), o);
  for (int call = 0; call < 2; ++call) {
    const auto outs = encode_at_once(*coder, {b});
    expect_cpu_bytes(b, outs[0]);
  }
  EXPECT_EQ(script->runs.load(), 2);
}

TEST(HybridBlockEncoder, AFailingSharedLaunchLeavesEachCallersBlocksToTheCpu) {
  const Batch b = some_blocks();
  const std::vector<Batch> batches = {b, rotated(b, 3)};
  auto script = std::make_shared<HostDeviceScript>();
  script->fail_run = true;
  DeviceCoderOptions o = options_with(0.5);
  o.coalesce_callers = 2;
  o.coalesce_window_ms = 60000;
  auto coder = make_hybrid_block_encoder(ebcot_on(host_start(script)), o);
  const auto outs = encode_at_once(*coder, batches);
  for (size_t i = 0; i < batches.size(); ++i) expect_cpu_bytes(batches[i], outs[i]);
  EXPECT_EQ(script->runs.load(), 1);
  EXPECT_FALSE(coder->device_status().ok());
  // Later callers go to the CPU without waiting for a round.
  script->fail_run = false;
  const auto again = encode_at_once(*coder, {b});
  expect_cpu_bytes(b, again[0]);
  EXPECT_EQ(script->runs.load(), 1);
}

// Rounds that close when a slot is free (RoundClose::kSlotFree): a caller
// that finds a slot free launches at once, whatever the window; callers
// that come while every slot is busy share the next round.
// The same with two slots and rounds that close when the device is idle
// (RoundClose::kDeviceIdle): no launch while another is under way.
TEST(HybridBlockEncoder, RoundsCloseWhenTheDeviceIsFree) {
  const Batch b = some_blocks();
  const std::vector<Batch> batches = {b, rotated(b, 5), rotated(b, 11)};
  using Close = DeviceCoderOptions::RoundClose;
  for (const auto& [close, slots] : {std::pair{Close::kSlotFree, 1}, std::pair{Close::kDeviceIdle, 2}}) {
    auto script = std::make_shared<HostDeviceScript>();
    script->run_delay = std::chrono::milliseconds(300);
    DeviceCoderOptions o = options_with(0.6);
    o.coalesce_callers = 3;
    o.coalesce_window_ms = 600000;  // never reached: a free device closes the round
    o.coalesce_close = close;
    o.device_slots = slots;
    auto coder = make_hybrid_block_encoder(ebcot_on(host_start(script)), o);
    const auto outs = encode_at_once(*coder, batches);
    for (size_t i = 0; i < batches.size(); ++i) expect_cpu_bytes(batches[i], outs[i]);
    // The first caller goes alone; the two that came during its 300 ms
    // launch go together (a third launch only if one came after the second
    // closed).
    EXPECT_GE(script->runs.load(), 2) << slots;
    EXPECT_LE(script->runs.load(), 3) << slots;
    EXPECT_EQ(script->most_running.load(), 1) << slots;
  }
}

// Two device slots: two rounds hold the device at once, each on a device of
// its own, and every caller still gets its own blocks' bytes; a failing
// launch in either leaves its blocks to the CPU.
TEST(HybridBlockEncoder, TwoSlotsRunTwoRoundsAtOnce) {
  const Batch b = some_blocks();
  const std::vector<Batch> batches = {b, rotated(b, 3), rotated(b, 7), rotated(b, 13)};
  for (bool fail : {false, true}) {
    auto script = std::make_shared<HostDeviceScript>();
    script->run_delay = std::chrono::milliseconds(300);
    script->fail_run = fail;
    DeviceCoderOptions o = options_with(0.7);
    o.coalesce_callers = 1;  // a round per caller
    o.coalesce_close = DeviceCoderOptions::RoundClose::kSlotFree;
    o.device_slots = 2;
    auto coder = make_hybrid_block_encoder(ebcot_on(host_start(script)), o);
    const auto outs = encode_at_once(*coder, batches);
    for (size_t i = 0; i < batches.size(); ++i) expect_cpu_bytes(batches[i], outs[i]);
    EXPECT_LE(script->most_running.load(), 2);
    if (fail) {
      EXPECT_FALSE(coder->device_status().ok());
    } else {
      EXPECT_EQ(script->runs.load(), 4);
      EXPECT_EQ(script->most_running.load(), 2) << "the four 300 ms launches never overlapped";
      EXPECT_EQ(coder->device_times().device_blocks + coder->device_times().cpu_blocks, 4 * b.blocks.size());
    }
  }
}

TEST(HybridBlockEncoder, SmallBatchesAndLaunchLimitsAreKept) {
  const Batch b = some_blocks();
  ThreadPool pool(2);
  DeviceCoderOptions o = options_with(1.0);
  o.min_device_blocks = b.blocks.size() + 1;
  auto small = make_hybrid_block_encoder(ebcot_on(host_start(std::make_shared<HostDeviceScript>())), o);
  std::vector<EncodedCodeBlock> out(b.blocks.size());
  ASSERT_TRUE(small->encode(b.blocks, out, pool).ok());
  EXPECT_EQ(small->device_times().device_blocks, 0u);
  o.min_device_blocks = 0;
  o.max_blocks_per_launch = 7;
  auto limited = make_hybrid_block_encoder(ebcot_on(host_start(std::make_shared<HostDeviceScript>())), o);
  ASSERT_TRUE(limited->encode(b.blocks, out, pool).ok());
  expect_cpu_bytes(b, out);
  EXPECT_EQ(limited->device_times().device_blocks, 7u);
}

TEST(HybridBlockEncoder, TheShareFollowsTheMeasuredRates) {
  const Batch b = some_blocks();
  ThreadPool pool(2);
  // A device far slower than the CPU: each batch gives it fewer blocks.
  auto script = std::make_shared<HostDeviceScript>();
  script->run_delay = std::chrono::milliseconds(300);
  DeviceCoderOptions o = options_with(0.8);
  o.adapt = true;
  auto coder = make_hybrid_block_encoder(ebcot_on(host_start(script)), o);
  std::vector<EncodedCodeBlock> out(b.blocks.size());
  // The device's 300 ms delay is in its time and not the pool's, so the
  // share at which both would finish together is below 1/2 however loaded
  // the machine is; the share moves half way there each batch: from 0.8 to
  // below 0.65 after one batch, and it stays below 0.65. (Between later
  // batches it may rise a little on a loaded machine, so only the first
  // batch is compared with the later ones.)
  std::vector<uint64_t> per_round;
  uint64_t before = 0;
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(coder->encode(b.blocks, out, pool).ok());
    per_round.push_back(coder->device_times().device_blocks - before);
    before = coder->device_times().device_blocks;
  }
  EXPECT_LT(per_round[1], per_round[0]);
  EXPECT_LT(per_round[2], per_round[0]);
  expect_cpu_bytes(b, out);
}

}  // namespace
}  // namespace mallat::entropy::testing

namespace mallat::codec {
namespace {

using mallat::testing::textured_image;

TEST(HybridEncode, FilesAreTheCpuPathsWhateverTheSplit) {
  const Image image = textured_image(300, 220, 3);
  for (bool lossless : {true, false}) {
    EncodeOptions cpu;
    cpu.threads = 3;
    if (!lossless) {
      cpu.reversible = false;
      cpu.rate_kind = EncodeOptions::RateKind::kRatio;
      cpu.rate_values = {40, 10};
    }
    const auto want = encode(image, cpu);
    ASSERT_TRUE(want.ok()) << want.status().message();
    for (double share : {0.3, 1.0}) {
      entropy::DeviceCoderOptions o;
      o.device_share = share;
      o.wait_for_device = true;
      o.min_device_blocks = 0;
      auto script = std::make_shared<entropy::testing::HostDeviceScript>();
      CallResources hybrid;
      hybrid.block_encoder = entropy::make_hybrid_block_encoder(entropy::testing::ebcot_on(entropy::testing::host_start(script)), o);
      const auto got = encode(image, cpu, hybrid, nullptr);
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_TRUE(*want == *got) << "lossless " << lossless << " share " << share;
      EXPECT_GT(hybrid.block_encoder->device_times().device_blocks, 0u);
    }
  }
}

}  // namespace
}  // namespace mallat::codec

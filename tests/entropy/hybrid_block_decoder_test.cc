// The hybrid Tier-1 decoder (entropy/hybrid/hybrid_block_decoder.h) without a GPU:
// its device is the host running the shared decoder over the gathered jobs,
// as the kernel does. Whatever the split, a batch gives decode_code_block's
// samples, info and statuses, the caller's work runs once per decoded block
// after its samples are in place, a device that is not up, fails to start or
// fails to run leaves its blocks to the CPU, and the share follows the
// measured rates. Then whole files through codec::decode: the CPU path's image.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "codec/codec.h"
#include "codec/decoder/decode_call.h"
#include "common/image.h"
#include "common/thread_pool.h"
#include "entropy/block_coder.h"
#include "entropy/hybrid/hybrid_block_decoder.h"
#include "entropy/t1_decode_batch.h"
#include "entropy/ebcot/shared_decoder.h"
#include "tests/entropy/textured_image.h"
#include "tests/entropy/t1_shared_decoder_cases.h"
#include "tests/entropy/hybrid_test_options.h"

namespace mallat::entropy::testing {
namespace {

struct HostDecodeScript {
  std::chrono::milliseconds run_delay{0};
  bool fail_run = false;
  std::atomic<int> runs{0};
  size_t reserved_samples = 0;
};

// The shared decoder over the gathered jobs on the host, into one sample
// buffer as the device fills it, finished as the CUDA device finishes.
class HostEbcotDecodeDevice final : public DeviceBlockDecoder {
 public:
  explicit HostEbcotDecodeDevice(std::shared_ptr<HostDecodeScript> script) : script_(std::move(script)) {}
  std::string name() const override { return "host"; }

  Status prepare(std::span<const BlockToDecode> blocks, std::span<const DecodedBlock> out) override {
    blocks_ = blocks;
    MALLAT_ASSIGN_OR_RETURN(layout_, lay_out_t1_decode_batch(blocks, out));
    bytes_.assign(layout_.bytes, 0);
    segments_.assign(layout_.segments, 0);
    return Status::Ok();
  }
  void gather(size_t k) override {
    gather_t1_decode_block(blocks_[k], layout_.jobs[k], bytes_.data(), segments_.data());
  }
  Status run(DeviceCodingTimes& times) override {
    script_->runs.fetch_add(1);
    std::this_thread::sleep_for(script_->run_delay);
    if (script_->fail_run) return device_error("the host device was told to fail");
    const auto start = std::chrono::steady_clock::now();
    samples_.assign(layout_.samples, 0x7A7A7A7A);
    results_.assign(layout_.jobs.size(), {});
    auto state = std::make_unique<T1FixedState>();
    for (size_t j = 0; j < layout_.jobs.size(); ++j) {
      const T1DecodeJob& job = layout_.jobs[j];
      const SharedT1DecodeBlock b = shared_block_of(job, bytes_.data(), segments_.data());
      results_[j] = decode_code_block_shared(b, *state, samples_.data() + job.sample_offset, job.width);
    }
    times.kernel_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return Status::Ok();
  }
  void finish(size_t k, DecodedBlock& out) override {
    finish_device_decoded_block(blocks_[k], results_[k], samples_.data() + layout_.jobs[k].sample_offset, out);
  }
  Status reserve(size_t, size_t samples, size_t) override {
    script_->reserved_samples = samples;
    return Status::Ok();
  }

 private:
  std::shared_ptr<HostDecodeScript> script_;
  std::span<const BlockToDecode> blocks_;
  T1DecodeBatchLayout layout_;
  std::vector<uint8_t> bytes_;
  std::vector<uint32_t> segments_;
  std::vector<int32_t> samples_;
  std::vector<SharedT1DecodeResult> results_;
};

DeviceBlockDecoderStart host_start(std::shared_ptr<HostDecodeScript> script) {
  return [script]() -> Result<std::unique_ptr<DeviceBlockDecoder>> {
    return std::unique_ptr<DeviceBlockDecoder>(new HostEbcotDecodeDevice(script));
  };
}

// `start` as the EBCOT decoder's device.
DeviceBlockDecoders ebcot_on(DeviceBlockDecoderStart start) {
  return device_block_decoders(BlockCoderKind::kEbcot, std::move(start));
}

// Every 40th decode case (whole, cut, damaged) and the bad ones; each
// block's bytes in two pieces where it has two bytes or more, as Tier-2
// hands over a block that two packets contributed to.
struct Batch {
  std::vector<DecodeCase> cases;
  std::vector<std::span<const uint8_t>> pieces;
  std::vector<BlockToDecode> blocks;
};
std::unique_ptr<Batch> some_blocks() {
  auto b = std::make_unique<Batch>();
  const std::vector<DecodeCase> all = shared_decode_cases();
  for (size_t i = 0; i < all.size(); i += 40) b->cases.push_back(all[i]);
  for (const DecodeCase& c : bad_decode_cases()) {
    if (c.width >= 1 && c.height >= 1) b->cases.insert(b->cases.begin() + 17, c);
  }
  b->pieces.resize(2 * b->cases.size());
  for (size_t k = 0; k < b->cases.size(); ++k) {
    const DecodeCase& c = b->cases[k];
    const size_t half = c.data.size() / 2;
    b->pieces[2 * k] = std::span<const uint8_t>(c.data).first(half);
    b->pieces[2 * k + 1] = std::span<const uint8_t>(c.data).subspan(half);
    BlockToDecode block;
    block.pieces = std::span<const std::span<const uint8_t>>(b->pieces).subspan(2 * k, 2);
    block.segment_lengths = c.segment_lengths;
    block.num_passes = c.num_passes;
    block.zero_bitplanes = c.zero_bitplanes;
    block.num_bitplanes = c.num_bitplanes;
    block.orientation = c.orientation;
    block.style = c.style;
    b->blocks.push_back(block);
  }
  return b;
}

struct Outputs {
  std::vector<std::vector<int32_t>> samples;
  std::vector<DecodedBlock> out;
  explicit Outputs(const Batch& b) : samples(b.cases.size()), out(b.cases.size()) {
    for (size_t k = 0; k < b.cases.size(); ++k) {
      const DecodeCase& c = b.cases[k];
      // A stride wider than the block, as a plane's.
      samples[k].assign(static_cast<size_t>(c.width + 3) * c.height, 0x11111111);
      out[k].samples = {samples[k].data(), c.width, c.height, c.width + 3};
      out[k].status = internal_error("not decoded");
    }
  }
};

void expect_cpu_decoding(const Batch& b, const Outputs& o) {
  for (size_t k = 0; k < b.cases.size(); ++k) {
    const CpuDecoded want = decode_on_cpu(b.cases[k]);
    const DecodedBlock& got = o.out[k];
    ASSERT_EQ(got.status.code(), want.status.code()) << b.cases[k].name << ": " << got.status.message();
    EXPECT_EQ(got.status.message(), want.status.message()) << b.cases[k].name;
    if (!want.status.ok()) continue;
    EXPECT_EQ(got.info.lowest_plane, want.info.lowest_plane) << b.cases[k].name;
    EXPECT_EQ(got.info.ended_in_significance_pass, want.info.ended_in_significance_pass) << b.cases[k].name;
    const DecodeCase& c = b.cases[k];
    for (int y = 0; y < c.height; ++y) {
      for (int x = 0; x < c.width; ++x) {
        ASSERT_EQ(got.samples.at(x, y), want.samples[static_cast<size_t>(y * c.width + x)])
            << c.name << " at " << x << "," << y;
      }
    }
  }
}

TEST(HybridBlockDecoder, EverySplitGivesTheCpuDecodersSamples) {
  const auto b = some_blocks();
  ASSERT_GT(b->blocks.size(), 300u);
  ThreadPool pool(3);
  for (double share : {0.0, 0.1, 0.5, 0.9, 1.0}) {
    auto script = std::make_shared<HostDecodeScript>();
    auto coder = make_hybrid_block_decoder(ebcot_on(host_start(script)), options_with(share));
    Outputs o(*b);
    ASSERT_TRUE(coder->decode(b->blocks, o.out, pool).ok()) << share;
    expect_cpu_decoding(*b, o);
    const DeviceCodingTimes t = coder->device_times();
    EXPECT_EQ(t.device_blocks + t.cpu_blocks, b->blocks.size()) << share;
    EXPECT_EQ(t.device_blocks > 0, share > 0) << share;
    EXPECT_EQ(t.cpu_blocks > 0, share < 1) << share;
    EXPECT_EQ(script->runs.load(), share > 0 ? 1 : 0) << share;
    EXPECT_EQ(coder->name(), "ebcot decoding on host + CPU");
  }
}

TEST(HybridBlockDecoder, TheCallersWorkRunsOnceAfterEachDecodedBlock) {
  const auto b = some_blocks();
  ThreadPool pool(4);
  auto coder = make_hybrid_block_decoder(ebcot_on(host_start(std::make_shared<HostDecodeScript>())), options_with(0.6));
  Outputs o(*b);
  std::vector<std::atomic<int>> each(b->blocks.size());
  std::vector<std::atomic<int>> items(7);
  std::atomic<int> unfinished{0};
  BatchWork work;
  work.each = [&](size_t k) {
    each[k].fetch_add(1);
    // Its samples are in place: the CPU decoder's, not the fill.
    if (o.out[k].samples.at(0, 0) == 0x11111111 || !o.out[k].status.ok()) unfinished.fetch_add(1);
  };
  work.items = 7;
  work.item = [&](int64_t i) { items[static_cast<size_t>(i)].fetch_add(1); };
  ASSERT_TRUE(coder->decode(b->blocks, o.out, pool, work).ok());
  for (size_t k = 0; k < each.size(); ++k) EXPECT_EQ(each[k].load(), o.out[k].status.ok() ? 1 : 0) << k;
  for (auto& i : items) EXPECT_EQ(i.load(), 1);
  EXPECT_EQ(unfinished.load(), 0);
  expect_cpu_decoding(*b, o);
}

TEST(HybridBlockDecoder, ADeviceThatDoesNotStartOrFailsIsHandled) {
  const auto b = some_blocks();
  ThreadPool pool(2);
  // Not up yet, not waited for: the CPU decodes everything.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto script = std::make_shared<HostDecodeScript>();
  DeviceBlockDecoderStart slow = [released, script]() -> Result<std::unique_ptr<DeviceBlockDecoder>> {
    released.wait();
    return std::unique_ptr<DeviceBlockDecoder>(new HostEbcotDecodeDevice(script));
  };
  {
    auto coder = make_hybrid_block_decoder(ebcot_on(slow), options_with(0.5, /*wait=*/false));
    EXPECT_EQ(coder->name(), "ebcot decoding on the CPU until the device has started");
    Outputs o(*b);
    ASSERT_TRUE(coder->decode(b->blocks, o.out, pool).ok());
    expect_cpu_decoding(*b, o);
    EXPECT_EQ(script->runs.load(), 0);
    release.set_value();
  }
  // Failed to start: the CPU, and the reason.
  DeviceBlockDecoderStart broken = []() -> Result<std::unique_ptr<DeviceBlockDecoder>> {
    return device_error("no device here");
  };
  auto coder = make_hybrid_block_decoder(ebcot_on(broken), options_with(0.5));
  Outputs o(*b);
  ASSERT_TRUE(coder->decode(b->blocks, o.out, pool).ok());
  expect_cpu_decoding(*b, o);
  EXPECT_FALSE(coder->device_status().ok());
  EXPECT_EQ(coder->name(), "ebcot decoding on the CPU (the device did not start: no device here)");
  // Failed to run: the CPU decodes the device's blocks, and every later
  // batch; device_status says why.
  auto failing = std::make_shared<HostDecodeScript>();
  failing->fail_run = true;
  auto failing_coder = make_hybrid_block_decoder(ebcot_on(host_start(failing)), options_with(0.5));
  for (int batch = 0; batch < 2; ++batch) {
    Outputs f(*b);
    ASSERT_TRUE(failing_coder->decode(b->blocks, f.out, pool).ok());
    expect_cpu_decoding(*b, f);
  }
  EXPECT_EQ(failing->runs.load(), 1);
  EXPECT_EQ(failing_coder->device_status().message(), "Tier-1 on the device: the host device was told to fail");
}

TEST(HybridBlockDecoder, TheShareFollowsTheMeasuredRatesAndSmallBatchesStayOnTheCpu) {
  const auto b = some_blocks();
  ThreadPool pool(2);
  auto script = std::make_shared<HostDecodeScript>();
  script->run_delay = std::chrono::milliseconds(300);  // a slow device
  DeviceCoderOptions o = options_with(0.9);
  o.adapt = true;
  auto coder = make_hybrid_block_decoder(ebcot_on(host_start(script)), o);
  uint64_t device_blocks = 0;
  for (int batch = 0; batch < 3; ++batch) {
    Outputs out(*b);
    ASSERT_TRUE(coder->decode(b->blocks, out.out, pool).ok());
    const uint64_t now = coder->device_times().device_blocks;
    if (batch > 0) {
      EXPECT_LT(now - device_blocks, b->blocks.size() * 9 / 10) << "batch " << batch;
    }
    device_blocks = now;
  }
  DeviceCoderOptions small = options_with(0.5);
  small.min_device_blocks = b->blocks.size() + 1;
  auto small_coder = make_hybrid_block_decoder(ebcot_on(host_start(script)), small);
  Outputs out(*b);
  ASSERT_TRUE(small_coder->decode(b->blocks, out.out, pool).ok());
  EXPECT_EQ(small_coder->device_times().device_blocks, 0u);
  expect_cpu_decoding(*b, out);
}

// Two callers with coalesce_callers = 2 share one launch, each getting its
// own blocks' samples in its own outputs; then one alone, after the window.
TEST(HybridBlockDecoder, ConcurrentCallersShareOneLaunchAndGetTheirOwnSamples) {
  const auto b = some_blocks();
  auto script = std::make_shared<HostDecodeScript>();
  DeviceCoderOptions options = options_with(0.5);
  options.coalesce_callers = 2;
  options.coalesce_window_ms = 60000;
  auto coder = make_hybrid_block_decoder(ebcot_on(host_start(script)), options);
  // The second caller's blocks in the reverse order (their pieces still b's).
  Batch reversed;
  reversed.cases.assign(b->cases.rbegin(), b->cases.rend());
  reversed.blocks.assign(b->blocks.rbegin(), b->blocks.rend());
  Outputs first(*b), second(reversed);
  auto first_call = std::async(std::launch::async, [&] {
    ThreadPool pool(2);
    return coder->decode(b->blocks, first.out, pool);
  });
  ThreadPool pool(2);
  EXPECT_TRUE(coder->decode(reversed.blocks, second.out, pool).ok());
  EXPECT_TRUE(first_call.get().ok());
  expect_cpu_decoding(*b, first);
  expect_cpu_decoding(reversed, second);
  EXPECT_EQ(script->runs.load(), 1);

  DeviceCoderOptions alone = options;
  alone.coalesce_window_ms = 20;
  auto single = make_hybrid_block_decoder(ebcot_on(host_start(script)), alone);
  Outputs o(*b);
  ASSERT_TRUE(single->decode(b->blocks, o.out, pool).ok());
  expect_cpu_decoding(*b, o);
  EXPECT_EQ(script->runs.load(), 2);
}

// Rounds that close when a slot is free, two slots: three callers at once,
// each getting its own blocks' samples (the device's slots each a device of
// their own), none left waiting.
TEST(HybridBlockDecoder, TwoSlotsAndRoundsThatCloseWhenFreeGiveEachCallerItsSamples) {
  const auto b = some_blocks();
  auto script = std::make_shared<HostDecodeScript>();
  DeviceCoderOptions options = options_with(0.6);
  options.coalesce_callers = 3;
  options.coalesce_window_ms = 600000;  // never reached
  options.coalesce_close = DeviceCoderOptions::RoundClose::kSlotFree;
  options.device_slots = 2;
  auto coder = make_hybrid_block_decoder(ebcot_on(host_start(script)), options);
  Batch reversed;
  reversed.cases.assign(b->cases.rbegin(), b->cases.rend());
  reversed.blocks.assign(b->blocks.rbegin(), b->blocks.rend());
  Outputs first(*b), second(reversed), third(*b);
  auto call = [&](const Batch& batch, Outputs& out) {
    return std::async(std::launch::async, [&] {
      ThreadPool pool(2);
      return coder->decode(batch.blocks, out.out, pool);
    });
  };
  auto a = call(*b, first), c = call(reversed, second), d = call(*b, third);
  EXPECT_TRUE(a.get().ok());
  EXPECT_TRUE(c.get().ok());
  EXPECT_TRUE(d.get().ok());
  expect_cpu_decoding(*b, first);
  expect_cpu_decoding(reversed, second);
  expect_cpu_decoding(*b, third);
  EXPECT_GE(script->runs.load(), 1);
  EXPECT_LE(script->runs.load(), 3);
}

TEST(HybridBlockDecoder, LayoutRejectsHtAndKeepsBadShapesForTheKernelToReject) {
  const auto b = some_blocks();
  Outputs o(*b);
  std::vector<BlockToDecode> blocks = b->blocks;
  Result<T1DecodeBatchLayout> layout = lay_out_t1_decode_batch(blocks, o.out);
  ASSERT_TRUE(layout.ok());
  size_t bytes = 0, samples = 0;
  for (size_t k = 0; k < blocks.size(); ++k) {
    EXPECT_EQ(layout->jobs[k].byte_offset, bytes);
    EXPECT_EQ(layout->jobs[k].sample_offset, samples);
    bytes += b->cases[k].data.size();
    const DecodeCase& c = b->cases[k];
    const bool shape_ok = c.width <= kMaxCodeBlockSide && c.height <= kMaxCodeBlockSide;
    samples += shape_ok ? static_cast<size_t>(c.width * c.height) : 0;
  }
  EXPECT_EQ(layout->bytes, bytes);
  o.out[3].samples.width = 2000;
  layout = lay_out_t1_decode_batch(blocks, o.out);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->jobs[3].width, 0);
  blocks[5].style.ht = true;
  EXPECT_FALSE(lay_out_t1_decode_batch(blocks, o.out).ok());
  EXPECT_FALSE(lay_out_t1_decode_batch(blocks, std::span<const DecodedBlock>(o.out).first(3)).ok());
}

}  // namespace
}  // namespace mallat::entropy::testing

namespace mallat::codec {
namespace {

using mallat::testing::textured_image;

// Lossless (5/3) and lossy (9/7, truncated by rate control, so passes end
// in every kind) files, with and without mode switches, and an HT file:
// decoded through the hybrid decoder they give the CPU path's image.
TEST(HybridDecode, ImagesAreTheCpuPathsWhateverTheSplit) {
  const Image image = textured_image(300, 220, 3);
  for (int variant = 0; variant < 5; ++variant) {
    EncodeOptions e;
    e.threads = 3;
    if (variant % 2 == 1) {
      e.reversible = false;
      e.rate_kind = EncodeOptions::RateKind::kRatio;
      e.rate_values = {40, 10};
    }
    if (variant >= 2) e.style = entropy::CodeBlockStyle::from_byte(variant == 4 ? 0x40 : 0x3F);
    const auto coded = encode(image, e);
    ASSERT_TRUE(coded.ok()) << coded.status().message();
    DecodeOptions cpu;
    cpu.threads = 3;
    const auto want = decode(*coded, cpu);
    ASSERT_TRUE(want.ok()) << want.status().message();
    for (double share : {0.3, 1.0}) {
      entropy::DeviceCoderOptions o;
      o.device_share = share;
      o.wait_for_device = true;
      o.min_device_blocks = 0;
      auto script = std::make_shared<entropy::testing::HostDecodeScript>();
      CallResources hybrid;
      hybrid.block_decoder = entropy::make_hybrid_block_decoder(entropy::testing::ebcot_on(entropy::testing::host_start(script)), o);
      const auto got = decode(*coded, cpu, hybrid, nullptr, nullptr);
      ASSERT_TRUE(got.ok()) << got.status().message();
      ASSERT_EQ(got->components.size(), want->components.size());
      for (size_t c = 0; c < want->components.size(); ++c) {
        EXPECT_TRUE(got->components[c].samples == want->components[c].samples)
            << "variant " << variant << " share " << share << " component " << c;
      }
      // HT blocks stay on the CPU.
      EXPECT_EQ(hybrid.block_decoder->device_times().device_blocks > 0, variant != 4) << variant;
    }
  }
}

}  // namespace
}  // namespace mallat::codec

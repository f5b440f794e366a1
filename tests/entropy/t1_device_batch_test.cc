// The host side of a Tier-1 device batch (entropy/t1_encode_batch.h), tested
// without a GPU: the jobs and the gathered coefficients run through the
// shared encoder on the CPU, as the kernel runs them, and each slot finished
// as the device block coder finishes it must give encode_code_block's
// bytes; a slot too small is coded again on the CPU; bad blocks are named.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "common/thread_pool.h"
#include "entropy/ebcot/ebcot.h"
#include "entropy/t1_encode_batch.h"
#include "entropy/ebcot/shared_encoder.h"
#include "tests/entropy/t1_shared_cases.h"

namespace mallat::entropy::testing {
namespace {

// The cases as BlockToEncode views with a stride wider than the block (the
// encoder's blocks are windows of a tile's plane).
struct StridedCases {
  std::vector<std::vector<int32_t>> planes;
  std::vector<BlockToEncode> blocks;
};

StridedCases strided(const std::vector<SharedCase>& cases) {
  StridedCases out;
  out.planes.reserve(cases.size());
  for (const SharedCase& c : cases) {
    const int stride = c.width + 3;
    std::vector<int32_t>& plane = out.planes.emplace_back(static_cast<size_t>(stride) * c.height, 0x7FFF'FFFF);
    for (int y = 0; y < c.height; ++y)
      for (int x = 0; x < c.width; ++x) plane[static_cast<size_t>(y) * stride + x] = c.samples[y * c.width + x];
    BlockToEncode b;
    b.coefficients = {plane.data(), c.width, c.height, stride};
    b.orientation = c.orientation;
    b.num_bitplanes = c.num_bitplanes;
    b.style = c.style;
    b.fraction_bits = c.fraction_bits;
    out.blocks.push_back(b);
  }
  return out;
}

// What the device would leave: every job through the shared encoder from
// the gathered buffer, into slots of `capacity` bytes.
struct HostRun {
  std::vector<SharedT1Result> results;
  std::vector<CodingPass> passes;
  std::vector<uint8_t> slots;
};

HostRun run_jobs(const T1DeviceBatchLayout& layout, const std::vector<int32_t>& buffer, uint32_t capacity) {
  auto state = std::make_unique<T1FixedState>();
  HostRun run;
  const size_t n = layout.jobs.size();
  run.results.resize(n);
  run.passes.resize(n * kMaxCodingPasses);
  run.slots.resize(n * capacity);
  for (size_t j = 0; j < n; ++j) {
    const T1DeviceJob& job = layout.jobs[j];
    const SharedT1Block block{buffer.data() + job.coefficient_offset, job.width, job.height, job.width,
                              static_cast<BandOrientation>(job.orientation), job.num_bitplanes,
                              CodeBlockStyle::from_byte(job.style), job.fraction_bits};
    run.results[j] = encode_code_block_shared(
        block, *state, {run.slots.data() + j * capacity, capacity, run.passes.data() + j * kMaxCodingPasses});
  }
  return run;
}

std::vector<SharedCase> some_cases() {
  std::vector<SharedCase> all = shared_cases(), some;
  for (size_t i = 0; i < all.size(); i += 13) some.push_back(all[i]);
  return some;
}

std::vector<int32_t> gather(const T1DeviceBatchLayout& layout, const std::vector<BlockToEncode>& blocks) {
  std::vector<int32_t> buffer(layout.coefficients, -1);
  ThreadPool pool(2);
  pool.parallel_for(static_cast<int64_t>(blocks.size()),
                    [&](int64_t k) { gather_t1_block(blocks[k], layout.jobs[k], buffer.data()); });
  return buffer;
}

TEST(Tier1DeviceBatch, JobsPackEveryBlockInOrderAndGatherSkipsTheStride) {
  const std::vector<SharedCase> cases = some_cases();
  const StridedCases in = strided(cases);
  Result<T1DeviceBatchLayout> layout = lay_out_t1_batch(in.blocks);
  ASSERT_TRUE(layout.ok()) << layout.status().message();
  ASSERT_EQ(layout->jobs.size(), cases.size());
  const std::vector<int32_t> buffer = gather(*layout, in.blocks);
  uint64_t offset = 0;
  for (size_t k = 0; k < cases.size(); ++k) {
    const T1DeviceJob& job = layout->jobs[k];
    EXPECT_EQ(job.coefficient_offset, offset);
    EXPECT_EQ(job.width, cases[k].width);
    EXPECT_EQ(job.height, cases[k].height);
    EXPECT_EQ(job.num_bitplanes, cases[k].num_bitplanes);
    EXPECT_EQ(job.fraction_bits, cases[k].fraction_bits);
    EXPECT_EQ(job.style, cases[k].style.to_byte());
    EXPECT_EQ(static_cast<BandOrientation>(job.orientation), cases[k].orientation);
    EXPECT_GE(layout->slot_capacity,
              ebcot_slot_capacity(cases[k].samples.size(), cases[k].num_bitplanes));
    const std::vector<int32_t> got(buffer.begin() + static_cast<ptrdiff_t>(offset),
                                   buffer.begin() + static_cast<ptrdiff_t>(offset + cases[k].samples.size()));
    EXPECT_EQ(got, cases[k].samples) << cases[k].name();
    offset += cases[k].samples.size();
  }
  EXPECT_EQ(layout->coefficients, offset);
}

TEST(Tier1DeviceBatch, FinishedSlotsAreTheCpuCodersBlocks) {
  const std::vector<SharedCase> cases = some_cases();
  const StridedCases in = strided(cases);
  Result<T1DeviceBatchLayout> layout = lay_out_t1_batch(in.blocks);
  ASSERT_TRUE(layout.ok()) << layout.status().message();
  const HostRun run = run_jobs(*layout, gather(*layout, in.blocks), layout->slot_capacity);
  size_t overflowed = 0;
  for (size_t k = 0; k < cases.size(); ++k) {
    // The bound is on the raw bits: a block of noise in 31 planes may
    // exceed it, and is coded again on the CPU.
    if (run.results[k].status == SharedT1Status::kOutputOverflow) ++overflowed;
    else ASSERT_EQ(run.results[k].status, SharedT1Status::kOk) << cases[k].name();
    Result<EncodedCodeBlock> got =
        finish_device_block(in.blocks[k], run.results[k], run.passes.data() + k * kMaxCodingPasses,
                            run.slots.data() + k * layout->slot_capacity, layout->slot_capacity);
    ASSERT_TRUE(got.ok()) << got.status().message();
    const SharedCase& c = cases[k];
    Result<EncodedCodeBlock> want = encode_code_block({c.samples.data(), c.width, c.height, c.width}, c.orientation,
                                                      c.num_bitplanes, c.style, c.fraction_bits);
    ASSERT_TRUE(want.ok());
    ASSERT_TRUE(same_encoding(*want, *got)) << c.name();
  }
  EXPECT_LT(overflowed * 20, cases.size()) << overflowed << " of " << cases.size() << " blocks overflowed";
}

TEST(Tier1DeviceBatch, AnOverflowedSlotIsCodedAgainOnTheCpu) {
  std::vector<SharedCase> cases = {laplacian_case(64, 64, 700, 5, 16), laplacian_case(32, 16, 40, 6, 12)};
  cases[1].style = CodeBlockStyle::from_byte(0x3F);
  const StridedCases in = strided(cases);
  Result<T1DeviceBatchLayout> layout = lay_out_t1_batch(in.blocks);
  ASSERT_TRUE(layout.ok());
  constexpr uint32_t kTiny = 24;
  const HostRun run = run_jobs(*layout, gather(*layout, in.blocks), kTiny);
  for (size_t k = 0; k < cases.size(); ++k) {
    ASSERT_EQ(run.results[k].status, SharedT1Status::kOutputOverflow);
    Result<EncodedCodeBlock> got = finish_device_block(in.blocks[k], run.results[k],
                                                       run.passes.data() + k * kMaxCodingPasses,
                                                       run.slots.data() + k * kTiny, kTiny);
    ASSERT_TRUE(got.ok()) << got.status().message();
    const SharedCase& c = cases[k];
    Result<EncodedCodeBlock> want = encode_code_block({c.samples.data(), c.width, c.height, c.width}, c.orientation,
                                                      c.num_bitplanes, c.style, c.fraction_bits);
    ASSERT_TRUE(want.ok());
    EXPECT_GT(want->data.size(), kTiny);
    EXPECT_TRUE(same_encoding(*want, *got)) << c.name();
    // Without the block to code again, the overflow is an error.
    Result<EncodedCodeBlock> bare = encoded_from_slot(run.results[k], run.passes.data() + k * kMaxCodingPasses,
                                                      run.slots.data() + k * kTiny, kTiny);
    ASSERT_FALSE(bare.ok());
    EXPECT_NE(bare.status().message().find("exceed the output buffer"), std::string::npos);
  }
}

TEST(Tier1DeviceBatch, ADeviceFailureOtherThanOverflowIsAnError) {
  SharedT1Result r;
  r.status = SharedT1Status::kMagnitudeTooLarge;
  std::vector<CodingPass> passes(kMaxCodingPasses);
  std::vector<uint8_t> slot(64);
  BlockToEncode b;
  Result<EncodedCodeBlock> got = finish_device_block(b, r, passes.data(), slot.data(), 64);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("more than Mb"), std::string::npos) << got.status().message();
  // A length past the slot is refused, not read.
  r.status = SharedT1Status::kOk;
  r.length = 63;
  got = finish_device_block(b, r, passes.data(), slot.data(), 64);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("does not fit its slot"), std::string::npos) << got.status().message();
}

// The packed download (T1DeviceEncoder::download_packed): the slots'
// bytes and passes packed as entropy/cuda/t1_pack_kernel.cuh packs them, at the offsets
// lay_out_t1_packed gives, finish as the slots do; an overflowed block packs
// nothing and is coded again, a failed one packs nothing and is an error.
TEST(Tier1DeviceBatch, PackedBlocksAreTheSlotsBlocks) {
  std::vector<SharedCase> cases = some_cases();
  cases.push_back(laplacian_case(64, 64, 700, 5, 16));  // overflows the tiny slots below
  const StridedCases in = strided(cases);
  Result<T1DeviceBatchLayout> layout = lay_out_t1_batch(in.blocks);
  ASSERT_TRUE(layout.ok()) << layout.status().message();
  const uint32_t capacity = layout->slot_capacity;
  HostRun run = run_jobs(*layout, gather(*layout, in.blocks), capacity);
  const size_t n = cases.size();
  // The last block as if its slot had been too small, the first failed.
  run.results[n - 1].status = SharedT1Status::kOutputOverflow;
  run.results[0].status = SharedT1Status::kMagnitudeTooLarge;
  T1PackedLayout packed;
  lay_out_t1_packed(run.results, packed);
  ASSERT_EQ(packed.byte_offset.size(), n + 1);
  std::vector<uint8_t> bytes(packed.byte_offset[n]);
  std::vector<CodingPass> passes(packed.pass_offset[n]);
  uint64_t total_bytes = 0, total_passes = 0;
  for (size_t j = 0; j < n; ++j) {
    const SharedT1Result& r = run.results[j];
    const bool kept = r.status == SharedT1Status::kOk;
    EXPECT_EQ(packed.byte_offset[j + 1] - packed.byte_offset[j], kept ? r.length : 0u) << j;
    EXPECT_EQ(packed.pass_offset[j + 1] - packed.pass_offset[j], kept ? static_cast<uint64_t>(r.num_passes) : 0u)
        << j;
    total_bytes += kept ? r.length : 0;
    total_passes += kept ? static_cast<uint64_t>(r.num_passes) : 0;
    std::copy_n(run.slots.data() + j * capacity + 1, packed_bytes(r), bytes.data() + packed.byte_offset[j]);
    std::copy_n(run.passes.data() + j * kMaxCodingPasses, packed_passes(r), passes.data() + packed.pass_offset[j]);
  }
  EXPECT_EQ(packed.byte_offset[n], total_bytes);
  EXPECT_EQ(packed.pass_offset[n], total_passes);
  for (size_t j = 0; j < n; ++j) {
    Result<EncodedCodeBlock> got = finish_packed_device_block(in.blocks[j], run.results[j],
                                                              passes.data() + packed.pass_offset[j],
                                                              bytes.data() + packed.byte_offset[j]);
    if (j == 0) {
      ASSERT_FALSE(got.ok());
      EXPECT_NE(got.status().message().find("more than Mb"), std::string::npos) << got.status().message();
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.status().message();
    const SharedCase& c = cases[j];
    Result<EncodedCodeBlock> want = encode_code_block({c.samples.data(), c.width, c.height, c.width}, c.orientation,
                                                      c.num_bitplanes, c.style, c.fraction_bits);
    ASSERT_TRUE(want.ok());
    ASSERT_TRUE(same_encoding(*want, *got)) << c.name();
  }
}

TEST(Tier1DeviceBatch, BlocksTheDeviceCannotTakeAreNamed) {
  std::vector<int32_t> plane(64 * 64, 0);
  auto block = [&](int w, int h, int mb, int f, bool ht) {
    BlockToEncode b;
    b.coefficients = {plane.data(), w, h, 64};
    b.num_bitplanes = mb;
    b.fraction_bits = f;
    b.style.ht = ht;
    return b;
  };
  const BlockToEncode good = block(64, 64, 8, 0, false);
  struct Bad {
    BlockToEncode b;
    const char* says;
  };
  for (const Bad& bad : {Bad{block(64, 64, 8, 0, true), "is HT"}, Bad{block(0, 4, 8, 0, false), "outside A.6.1"},
                         Bad{block(64, 64, 20, 12, false), "at most 31"}}) {
    const std::vector<BlockToEncode> blocks = {good, bad.b};
    Result<T1DeviceBatchLayout> layout = lay_out_t1_batch(blocks);
    ASSERT_FALSE(layout.ok()) << bad.says;
    EXPECT_NE(layout.status().message().find("code-block 1"), std::string::npos) << layout.status().message();
    EXPECT_NE(layout.status().message().find(bad.says), std::string::npos) << layout.status().message();
  }
  // An HT block's own lowering share is the CPU coder's alone.
  BlockToEncode ht = block(64, 64, 8, 2, true);
  ASSERT_TRUE(lay_out_t1_batch(std::vector<BlockToEncode>{ht, ht}).ok());
  BlockToEncode shared = ht;
  shared.ht_lowering_share = 2;
  Result<T1DeviceBatchLayout> layout = lay_out_t1_batch(std::vector<BlockToEncode>{ht, shared});
  ASSERT_FALSE(layout.ok());
  EXPECT_NE(layout.status().message().find("lowering share"), std::string::npos) << layout.status().message();
}

TEST(Tier1DeviceBatch, SlotsHoldTheRawBitsAndTheTerminations) {
  EXPECT_EQ(ebcot_slot_capacity(4096, 15), 4096u * 16 / 8 + 8 * 45 + 16);
  EXPECT_EQ(ebcot_slot_capacity(1, 0), 1u + 16);
  EXPECT_EQ(ebcot_slot_capacity(3, 2), 2u + 8 * 6 + 16);  // 9 bits round up to 2 bytes
}

}  // namespace
}  // namespace mallat::entropy::testing

// The Tier-1 kernel (entropy/cuda) against the CPU: every case of
// tests/entropy/t1_shared_cases.h (all mode switches and orientations, odd
// sizes, all-zero blocks, Mb 31, fraction bits) and a few thousand Laplacian
// 64x64 blocks in one launch each, every byte, pass length and distortion
// bit equal to encode_code_block's; slots too small report an overflow and
// spoil no other block. Labelled gpu: without a device each test skips and
// says why.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "entropy/cuda/t1_device_encoder.h"
#include "entropy/ebcot/ebcot.h"
#include "tests/entropy/t1_shared_cases.h"
#include "tests/entropy_cuda/skip_without_device.h"

namespace mallat::entropy::testing {
namespace {

using cuda::T1DeviceBatchResult;
using cuda::T1DeviceEncoder;
using entropy::T1DeviceJob;
using cuda::T1StateMemory;

// Runs the cases as one batch on the device with slots of `slot_capacity`,
// split into forming and coding kernels (the default; `forming_lanes` as
// split_passes takes it) or with one thread a block doing both (its states
// in `memory`, `blocks_per_warp` a warp).
T1DeviceBatchResult run_on_device(const std::vector<SharedCase>& cases, uint32_t slot_capacity,
                                  T1StateMemory memory = T1StateMemory::kGlobal, int blocks_per_warp = 0,
                                  bool split = true, int forming_lanes = 32) {
  std::vector<T1DeviceJob> jobs;
  std::vector<int32_t> coefficients;
  for (const SharedCase& c : cases) {
    T1DeviceJob j;
    j.coefficient_offset = coefficients.size();
    j.width = static_cast<uint16_t>(c.width);
    j.height = static_cast<uint16_t>(c.height);
    j.orientation = static_cast<uint8_t>(c.orientation);
    j.num_bitplanes = static_cast<uint8_t>(c.num_bitplanes);
    j.style = c.style.to_byte();
    j.fraction_bits = static_cast<uint8_t>(c.fraction_bits);
    j.pass_limit = static_cast<uint8_t>(c.pass_limit);
    jobs.push_back(j);
    coefficients.insert(coefficients.end(), c.samples.begin(), c.samples.end());
  }
  T1DeviceBatchResult out;
  Result<std::unique_ptr<T1DeviceEncoder>> encoder = T1DeviceEncoder::create(memory, blocks_per_warp);
  EXPECT_TRUE(encoder.ok()) << encoder.status().message();
  if (!encoder.ok()) return out;
  (*encoder)->split_passes(split, forming_lanes);
  Status st = (*encoder)->upload(jobs, coefficients, slot_capacity);
  EXPECT_TRUE(st.ok()) << st.message();
  st = (*encoder)->encode();
  EXPECT_TRUE(st.ok()) << st.message();
  st = (*encoder)->download(out);
  EXPECT_TRUE(st.ok()) << st.message();
  return out;
}

void expect_as_cpu(const std::vector<SharedCase>& cases, const T1DeviceBatchResult& device) {
  ASSERT_EQ(device.results.size(), cases.size());
  int failures = 0;
  for (size_t i = 0; i < cases.size() && failures < 5; ++i) {
    const SharedCase& c = cases[i];
    Result<EncodedCodeBlock> want = cpu_encoding(c);
    ASSERT_TRUE(want.ok()) << want.status().message();
    Result<EncodedCodeBlock> got = device.block(i);
    if (!got.ok()) {
      ADD_FAILURE() << c.name() << ": " << got.status().message();
      ++failures;
      continue;
    }
    const ::testing::AssertionResult same = same_encoding(*want, *got);
    if (!same) {
      ADD_FAILURE() << "block " << i << ", " << c.name() << ": " << same.message();
      ++failures;
    }
  }
}

TEST(Tier1Cuda, EveryCaseAsTheCpuCoder) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<SharedCase> cases = shared_cases();
  for (int lanes : {32, 16}) {
    SCOPED_TRACE("formed by " + std::string(lanes == 32 ? "a warp" : "half a warp where it can") +
                 " a block, then coded");
    expect_as_cpu(cases, run_on_device(cases, 1u << 17, T1StateMemory::kGlobal, 0, true, lanes));
  }
  // The coding kernel's lanes that share a warp with other blocks' chains
  // (a partial warp and a full one), not only the automatic count.
  for (int blocks_per_warp : {3, 32}) {
    SCOPED_TRACE("formed by a warp, coded " + std::to_string(blocks_per_warp) + " code-blocks per warp");
    expect_as_cpu(cases, run_on_device(cases, 1u << 17, T1StateMemory::kGlobal, blocks_per_warp, true));
  }
  for (T1StateMemory memory : {T1StateMemory::kGlobal, T1StateMemory::kLocal}) {
    SCOPED_TRACE(memory == T1StateMemory::kGlobal ? "states in global memory" : "states in local memory");
    expect_as_cpu(cases, run_on_device(cases, 1u << 17, memory, 32, false));
  }
  for (int blocks_per_warp : {0, 1, 3}) {
    SCOPED_TRACE(std::to_string(blocks_per_warp) + " code-blocks per warp");
    expect_as_cpu(cases, run_on_device(cases, 1u << 17, T1StateMemory::kGlobal, blocks_per_warp, false));
  }
}

// Under pass limits (SharedT1Block::pass_limit) the device cuts each block
// where the shared encoder on the CPU cuts it (tests/entropy/
// t1_pass_limit_test.cc holds that to the whole coding): the same bytes,
// passes and exact passes, split or not.
TEST(Tier1Cuda, PassLimitsCutAsTheSharedEncoderCuts) {
  SKIP_WITHOUT_DEVICE();
  std::vector<SharedCase> cases = shared_cases();
  for (size_t i = 0; i < cases.size(); ++i) cases[i].pass_limit = 1 + static_cast<int>(i * 7 % 40);
  auto state = std::make_unique<T1FixedState>();
  std::vector<uint8_t> buffer(1u << 17);
  std::vector<CodingPass> passes(kMaxCodingPasses);
  size_t cut = 0;
  for (bool split : {true, false}) {
    SCOPED_TRACE(split ? "formed by a warp a block, then coded" : "one thread a block");
    const T1DeviceBatchResult device = run_on_device(cases, 1u << 17, T1StateMemory::kGlobal, split ? 0 : 32, split);
    ASSERT_EQ(device.results.size(), cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
      const SharedCase& c = cases[i];
      const SharedT1Result want =
          encode_code_block_shared(c.block(), *state, {buffer.data(), 1u << 17, passes.data()});
      const SharedT1Result& got = device.results[i];
      ASSERT_EQ(got.status, want.status) << c.name();
      ASSERT_EQ(got.num_passes, want.num_passes) << c.name();
      ASSERT_EQ(got.exact_passes, want.exact_passes) << c.name();
      if (want.status != SharedT1Status::kOk || want.num_passes == 0) continue;
      cut += want.exact_passes < want.num_passes ? 1 : 0;
      Result<EncodedCodeBlock> block = device.block(i);
      ASSERT_TRUE(block.ok()) << c.name() << ": " << block.status().message();
      ASSERT_TRUE(same_encoding(to_encoded(want, buffer.data(), passes.data()), *block)) << c.name();
    }
  }
  EXPECT_GT(cut, 500u);
}

TEST(Tier1Cuda, ThreeThousandLaplacianBlocksInOneLaunch) {
  SKIP_WITHOUT_DEVICE();
  std::vector<SharedCase> cases;
  const double scales[] = {0.5, 2, 8, 32, 128, 1000};
  for (unsigned i = 0; i < 3000; ++i) {
    SharedCase c = laplacian_case(64, 64, scales[i % 6], 1000 + i, 16);
    c.orientation = static_cast<BandOrientation>(i % 4);
    c.style = CodeBlockStyle::from_byte(static_cast<uint8_t>((i / 4) % 64));
    cases.push_back(std::move(c));
  }
  expect_as_cpu(cases, run_on_device(cases, 24 * 1024));
  expect_as_cpu(cases, run_on_device(cases, 24 * 1024, T1StateMemory::kGlobal, 0, true, 16));
  expect_as_cpu(cases, run_on_device(cases, 24 * 1024, T1StateMemory::kGlobal, 3, true));
  for (T1StateMemory memory : {T1StateMemory::kGlobal, T1StateMemory::kLocal}) {
    SCOPED_TRACE(memory == T1StateMemory::kGlobal ? "states in global memory" : "states in local memory");
    expect_as_cpu(cases, run_on_device(cases, 24 * 1024, memory, 32, false));
  }
}

TEST(Tier1Cuda, SmallSlotsOverflowAndSpoilNoOtherBlock) {
  SKIP_WITHOUT_DEVICE();
  // Large blocks between small ones: those overflow 96-byte slots, these fit.
  std::vector<SharedCase> cases;
  for (unsigned i = 0; i < 200; ++i) {
    const bool small = i % 2 == 0;
    cases.push_back(small ? laplacian_case(8, 8, 1, 50 + i, 4) : laplacian_case(64, 64, 64, 50 + i, 14));
  }
  const uint32_t capacity = 96;
  const T1DeviceBatchResult device = run_on_device(cases, capacity);
  ASSERT_EQ(device.results.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    if (i % 2 == 0) {
      std::vector<SharedCase> one{cases[i]};
      T1DeviceBatchResult single;
      single.slot_capacity = device.slot_capacity;
      single.results = {device.results[i]};
      single.passes.assign(device.passes.begin() + static_cast<ptrdiff_t>(i * kMaxCodingPasses),
                           device.passes.begin() + static_cast<ptrdiff_t>((i + 1) * kMaxCodingPasses));
      single.slots.assign(device.slots.begin() + static_cast<ptrdiff_t>(i * capacity),
                          device.slots.begin() + static_cast<ptrdiff_t>((i + 1) * capacity));
      expect_as_cpu(one, single);
    } else {
      EXPECT_EQ(device.results[i].status, SharedT1Status::kOutputOverflow) << "block " << i;
      EXPECT_FALSE(device.block(i).ok());
    }
  }
}

TEST(Tier1Cuda, AutoBlocksPerWarpAimsAtTwelveWarpsPerSm) {
  // A pure function: runs without a device too.
  EXPECT_EQ(cuda::auto_blocks_per_warp(5760, 132), 4);
  EXPECT_EQ(cuda::auto_blocks_per_warp(46080, 132), 30);
  EXPECT_EQ(cuda::auto_blocks_per_warp(1, 132), 1);
  EXPECT_EQ(cuda::auto_blocks_per_warp(10'000'000, 132), 32);
  EXPECT_EQ(cuda::auto_blocks_per_warp(100, 0), 9);
  // EBCOT's rule: a tile's blocks 2 a warp, eight tiles' 15.
  EXPECT_EQ(cuda::auto_blocks_per_warp(5760, 132, cuda::kEbcotWarpsPerSm), 2);
  EXPECT_EQ(cuda::auto_blocks_per_warp(46080, 132, cuda::kEbcotWarpsPerSm), 15);
}

TEST(Tier1Cuda, BlocksPerWarpOutsideOneTo32AreRefused) {
  SKIP_WITHOUT_DEVICE();
  for (int bad : {-1, 33}) {
    Result<std::unique_ptr<T1DeviceEncoder>> encoder = T1DeviceEncoder::create(T1StateMemory::kGlobal, bad);
    ASSERT_FALSE(encoder.ok());
    EXPECT_NE(encoder.status().message().find("code-blocks per warp"), std::string::npos);
  }
}

TEST(Tier1Cuda, JobsPastTheCoefficientsAreRefused) {
  SKIP_WITHOUT_DEVICE();
  Result<std::unique_ptr<T1DeviceEncoder>> encoder = T1DeviceEncoder::create();
  ASSERT_TRUE(encoder.ok()) << encoder.status().message();
  std::vector<int32_t> coefficients(100);
  T1DeviceJob job;
  job.width = 10;
  job.height = 11;
  job.num_bitplanes = 8;
  const Status st = (*encoder)->upload({&job, 1}, coefficients, 1024);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("runs past the batch's 100 coefficients"), std::string::npos) << st.message();
  // 10 rows of 10 samples: 10 apart fit 100; 11 apart run past (a span of
  // 109); 9 apart would overlap.
  job.height = 10;
  for (const uint32_t stride : {9u, 10u, 11u}) {
    job.stride = stride;
    const Status strided = (*encoder)->upload({&job, 1}, coefficients, 1024);
    EXPECT_EQ(strided.ok(), stride == 10) << stride << ": " << strided.message();
  }
}

}  // namespace
}  // namespace mallat::entropy::testing

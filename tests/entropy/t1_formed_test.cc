// The GPU's split Tier-1 encoder (entropy/ebcot/formed_passes.h) run on the
// CPU: its steps lane after lane, then its coding of the formed passes,
// held to encode_code_block on every case of t1_shared_cases.h (every byte,
// pass length and distortion bit), with the stream bound checked; and the
// exact distortion sums that make a pass's stripes add up in any order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "entropy/ebcot/ebcot.h"
#include "entropy/ebcot/distortion_sum.h"
#include "entropy/ebcot/formed_coding.h"
#include "entropy/ebcot/formed_passes.h"
#include "tests/entropy/t1_shared_cases.h"

namespace mallat::entropy {
namespace {

using testing::SharedCase;
using testing::cpu_encoding;
using testing::shared_cases;

// A forming room for a w x h block: its shared part and its 16-byte
// aligned scratch.
struct FormingRoom {
  std::vector<uint32_t> shared, scratch;
  uint32_t* aligned_scratch = nullptr;
  FormingRoom(int w, int h) {
    const FormingLayout l = FormingLayout::of(w, h);
    shared.assign(l.shared_total, 0xA5A5A5A5u);
    scratch.assign(l.scratch_total + 4, 0xA5A5A5A5u);
    aligned_scratch = scratch.data() + (4 - reinterpret_cast<uintptr_t>(scratch.data()) / 4 % 4) % 4;
  }
};

struct FormedRun {
  FormedBlock plan;
  std::vector<FormedPass> passes = std::vector<FormedPass>(kMaxCodingPasses);
  std::vector<uint8_t> stream;
  SharedT1Result result;
  std::vector<uint8_t> buffer;
  std::vector<CodingPass> coded = std::vector<CodingPass>(kMaxCodingPasses);
};

// Forms case `c` with `lanes` lanes into a stream of its bound (guard
// bytes past it), each step's lanes first to last or `reversed`, then
// codes it.
FormedRun run_formed(const SharedCase& c, uint32_t capacity, int lanes = kFormLanes, bool reversed = false) {
  FormedRun run;
  const SharedT1Block block = c.block();
  const uint64_t bound = formed_stream_bound(c.width, c.height, c.num_bitplanes);
  // The coding lane reads whole 16-byte chunks: room up to the next 16.
  run.stream.assign((bound + 16) / 16 * 16, 0xA5);
  FormingRoom room(c.width, c.height);
  if (c.style.vertical_causal) {
    form_code_block_lanes<true>(block, room.shared.data(), room.aligned_scratch, run.stream.data(), bound, run.plan,
                                run.passes.data(), lanes, reversed);
  } else {
    form_code_block_lanes<false>(block, room.shared.data(), room.aligned_scratch, run.stream.data(), bound,
                                 run.plan, run.passes.data(), lanes, reversed);
  }
  EXPECT_EQ(run.stream[bound], 0xA5) << c.name() << ": a decision past the bound";
  run.buffer.assign(capacity, 0);
  run.result = code_formed_block(run.plan, run.passes.data(), run.stream.data(), c.style, c.fraction_bits,
                                 {run.buffer.data(), capacity, run.coded.data()});
  return run;
}

TEST(Tier1Formed, FormedAndCodedBlocksAreTheCpuCodersOnEveryCase) {
  const std::vector<SharedCase> cases = shared_cases();
  size_t passes = 0;
  for (const SharedCase& c : cases) {
    Result<EncodedCodeBlock> want = cpu_encoding(c);
    ASSERT_TRUE(want.ok()) << c.name() << ": " << want.status().message();
    // A warp or half a warp a block (the GPU's two group sizes), and 5
    // lanes (many stripes a lane); the lanes of a step in either order: on
    // the GPU they run at once.
    for (int lanes : {32, 16, 5}) {
      for (bool reversed : {false, true}) {
        const FormedRun run = run_formed(c, 1u << 20, lanes, reversed);
        ASSERT_EQ(run.result.status, SharedT1Status::kOk) << c.name();
        ASSERT_TRUE(
            testing::same_encoding(*want, testing::to_encoded(run.result, run.buffer.data(), run.coded.data())))
            << c.name() << ", " << lanes << " lanes" << (reversed ? ", reversed" : "");
      }
    }
    passes += static_cast<size_t>(want->num_passes);
  }
  EXPECT_GT(passes, 30000u);
}

// Dense blocks (every sample significant in the first cleanup pass, then
// refined) come near the stream bound and stay within it.
TEST(Tier1Formed, TheStreamBoundHoldsDenseBlocks) {
  for (int bits : {1, 2, 9, 31}) {
    SharedCase c = testing::laplacian_case(64, 64, 1, 7, bits);
    for (size_t i = 0; i < c.samples.size(); ++i) {
      const int32_t top = static_cast<int32_t>((int64_t{1} << bits) - 1);
      c.samples[i] = (i % 3 == 0 ? -1 : 1) * std::max<int32_t>(1, top - static_cast<int32_t>(i % 5));
    }
    const FormedRun run = run_formed(c, 1u << 20);
    ASSERT_EQ(run.result.status, SharedT1Status::kOk) << c.name();
    uint64_t used = 0;
    for (int i = 0; i < run.plan.num_passes; ++i) used = run.passes[i].offset + run.passes[i].count;
    EXPECT_GT(used, formed_stream_bound(64, 64, bits) / 3) << c.name();
  }
}

// A stream one byte short of what a block forms is an overflow, reported.
TEST(Tier1Formed, AStreamTooShortIsAnOverflow) {
  const SharedCase c = testing::laplacian_case(32, 32, 40, 3, 12);
  const FormedRun full = run_formed(c, 1u << 20);
  ASSERT_EQ(full.result.status, SharedT1Status::kOk);
  const FormedPass& last = full.passes[full.plan.num_passes - 1];
  FormingRoom room(32, 32);
  std::vector<uint8_t> stream(last.offset + last.count);
  FormedBlock plan;
  std::vector<FormedPass> passes(kMaxCodingPasses);
  form_code_block_lanes<false>(c.block(), room.shared.data(), room.aligned_scratch, stream.data(),
                               last.offset + last.count - 1, plan, passes.data());
  EXPECT_EQ(plan.status, SharedT1Status::kOutputOverflow);
  form_code_block_lanes<false>(c.block(), room.shared.data(), room.aligned_scratch, stream.data(),
                               last.offset + last.count, plan, passes.data());
  EXPECT_EQ(plan.status, SharedT1Status::kOk);
}

// Terms near 2^62 in any order give one double, the exact sum rounded once.
TEST(Tier1Formed, DistortionSumsDoNotDependOnOrder) {
  std::vector<int64_t> terms;
  for (int i = 0; i < 4096; ++i) {
    terms.push_back((int64_t{1} << 61) + int64_t{i} * 7919 - (i % 3 == 0 ? (int64_t{1} << 62) - 12345 : 0));
  }
  detail::DistortionSum forward, backward, split_a, split_b;
  for (int64_t t : terms) forward.add(t);
  for (auto it = terms.rbegin(); it != terms.rend(); ++it) backward.add(*it);
  for (size_t i = 0; i < terms.size(); ++i) (i % 2 ? split_a : split_b).add(terms[i]);
  split_a.add(split_b);
  EXPECT_EQ(forward.value(), backward.value());
  EXPECT_EQ(forward.value(), split_a.value());
  // Small sums are the plain integer sums.
  detail::DistortionSum small;
  small.add(5);
  small.add(-7);
  small.add(int64_t{1} << 40);
  EXPECT_EQ(small.value(), static_cast<double>((int64_t{1} << 40) - 2));
}

}  // namespace
}  // namespace mallat::entropy

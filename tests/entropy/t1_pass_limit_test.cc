// The shared Tier-1 encoder under a pass limit (SharedT1Block::pass_limit):
// a block cut after pass K is a valid block of K passes (the decoder gives
// what it gives for those K passes of the whole coding), its first
// exact_passes passes are those of the whole coding (lengths, terminations,
// distortion bits, and the bytes up to the last one's length), and the
// GPU's split encoder (entropy/ebcot/formed_passes.h, run here on the CPU)
// and the CPU coder (encode_code_block) cut alike, byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

#include "entropy/ebcot/ebcot.h"
#include "entropy/ebcot/formed_coding.h"
#include "entropy/ebcot/formed_passes.h"
#include "entropy/ebcot/shared_encoder.h"
#include "tests/entropy/t1_shared_cases.h"

namespace mallat::entropy::testing {
namespace {

constexpr uint32_t kCapacity = 1u << 18;

struct Coded {
  SharedT1Result result;
  std::vector<uint8_t> buffer = std::vector<uint8_t>(kCapacity, 0);
  std::vector<CodingPass> passes = std::vector<CodingPass>(kMaxCodingPasses);
  const uint8_t* data() const { return buffer.data() + 1; }
};

Coded shared_coded(const SharedCase& c, int limit) {
  static auto state = std::make_unique<T1FixedState>();
  Coded out;
  SharedT1Block block = c.block();
  block.pass_limit = limit;
  out.result = encode_code_block_shared(block, *state, {out.buffer.data(), kCapacity, out.passes.data()});
  return out;
}

// The split encoder: formed by a warp's 32 lanes (in turn), then coded.
Coded formed_coded(const SharedCase& c, int limit) {
  SharedT1Block block = c.block();
  block.pass_limit = limit;
  const FormingLayout layout = FormingLayout::of(c.width, c.height);
  std::vector<uint32_t> shared(layout.shared_total, 0);
  std::vector<uint32_t> scratch(layout.scratch_total + 4, 0);
  uint32_t* aligned = scratch.data() + (4 - reinterpret_cast<uintptr_t>(scratch.data()) / 4 % 4) % 4;
  const uint64_t bound = formed_stream_bound(c.width, c.height, c.num_bitplanes);
  std::vector<uint8_t> stream((bound + 16) / 16 * 16, 0);
  FormedBlock plan;
  std::vector<FormedPass> formed(kMaxCodingPasses);
  if (c.style.vertical_causal) {
    form_code_block_lanes<true>(block, shared.data(), aligned, stream.data(), bound, plan, formed.data(), kFormLanes,
                                false);
  } else {
    form_code_block_lanes<false>(block, shared.data(), aligned, stream.data(), bound, plan, formed.data(), kFormLanes,
                                 false);
  }
  Coded out;
  out.result = code_formed_block(plan, formed.data(), stream.data(), c.style, c.fraction_bits,
                                 {out.buffer.data(), kCapacity, out.passes.data()});
  return out;
}

// What decode_code_block gives for the first `passes` passes of `coded`.
std::vector<int32_t> decoded(const SharedCase& c, const Coded& coded, int passes) {
  CodeBlockToDecode d;
  d.data = {coded.data(), coded.result.length};
  d.num_passes = passes;
  d.zero_bitplanes = coded.result.zero_bitplanes;
  d.num_bitplanes = c.num_bitplanes;
  d.orientation = c.orientation;
  d.style = c.style;
  // Each terminated pass ends a codeword segment (B.10.7.2).
  std::vector<uint32_t> segments;
  uint32_t start = 0;
  for (int i = 0; i < coded.result.num_passes; ++i) {
    if (coded.passes[i].terminated) {
      segments.push_back(coded.passes[i].cumulative_length - start);
      start = coded.passes[i].cumulative_length;
    }
  }
  d.segment_lengths = segments;
  std::vector<int32_t> samples(static_cast<size_t>(c.width) * c.height);
  const auto info = decode_code_block(d, PlaneView<int32_t>{samples.data(), c.width, c.height, c.width});
  EXPECT_TRUE(info.ok()) << c.name() << ": " << info.status().message();
  return samples;
}

::testing::AssertionResult same_pass(const CodingPass& a, const CodingPass& b) {
  if (a.cumulative_length == b.cumulative_length && a.terminated == b.terminated &&
      std::bit_cast<uint64_t>(a.distortion_decrease) == std::bit_cast<uint64_t>(b.distortion_decrease)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "length " << b.cumulative_length << " (want " << a.cumulative_length
                                       << "), terminated " << b.terminated << " (want " << a.terminated << ")";
}

// 64x64 Laplacian blocks of several scales and Mb, orientations and the
// mode switches one at a time and a few together, and fraction bits.
std::vector<SharedCase> limit_cases() {
  std::vector<SharedCase> cases;
  unsigned seed = 77;
  const uint8_t styles[] = {0, 1, 2, 4, 8, 16, 32, 0x22, 0x0A, 0x3F};
  for (uint8_t byte : styles) {
    for (double scale : {0.7, 6.0, 90.0}) {
      SharedCase c = laplacian_case(64, 64, scale, seed++, 14);
      c.orientation = static_cast<BandOrientation>(seed % 4);
      c.style = CodeBlockStyle::from_byte(byte);
      cases.push_back(std::move(c));
    }
    SharedCase frac = laplacian_case(32, 32, 40000, seed++, 18);
    frac.num_bitplanes = 16;
    frac.fraction_bits = 2;
    frac.style = CodeBlockStyle::from_byte(byte);
    cases.push_back(std::move(frac));
    SharedCase odd = laplacian_case(17, 3, 12, seed++, 12);
    odd.style = CodeBlockStyle::from_byte(byte);
    cases.push_back(std::move(odd));
  }
  return cases;
}

TEST(Tier1PassLimit, ACutBlockIsValidAndItsExactPassesAreTheWholeCodings) {
  size_t cuts = 0, mq_cuts = 0, short_of_cut = 0;
  for (const SharedCase& c : limit_cases()) {
    const Coded whole = shared_coded(c, 0);
    ASSERT_EQ(whole.result.status, SharedT1Status::kOk) << c.name();
    ASSERT_EQ(whole.result.exact_passes, whole.result.num_passes) << c.name();
    const int all = whole.result.num_passes;
    for (int limit = 1; limit < all; ++limit) {
      const Coded cut = shared_coded(c, limit);
      const std::string at = c.name() + ", cut after " + std::to_string(limit) + " of " + std::to_string(all);
      ASSERT_EQ(cut.result.status, SharedT1Status::kOk) << at;
      ASSERT_EQ(cut.result.num_passes, limit) << at;
      ASSERT_EQ(cut.result.zero_bitplanes, whole.result.zero_bitplanes) << at;
      const int exact = cut.result.exact_passes;
      ASSERT_GE(exact, 0) << at;
      ASSERT_LE(exact, limit) << at;
      for (int i = 0; i < exact; ++i) ASSERT_TRUE(same_pass(whole.passes[i], cut.passes[i])) << at << ", pass " << i;
      if (exact > 0) {
        const uint32_t length = whole.passes[exact - 1].cumulative_length;
        ASSERT_TRUE(std::equal(whole.data(), whole.data() + length, cut.data())) << at;
      }
      // The last pass ends a segment: the block stands as one of `limit` passes.
      ASSERT_TRUE(cut.passes[limit - 1].terminated) << at;
      ASSERT_EQ(decoded(c, cut, limit), decoded(c, whole, limit)) << at;
      ++cuts;
      if (!c.style.bypass && !c.style.termall) {
        ++mq_cuts;
        short_of_cut += static_cast<size_t>(limit - exact);
      }
    }
  }
  EXPECT_GT(cuts, 1000u);
  // One MQ segment: only the last pass or two read bytes that were not
  // final when the cut came.
  EXPECT_LT(static_cast<double>(short_of_cut) / static_cast<double>(mq_cuts), 2.0);
}

TEST(Tier1PassLimit, TheSplitEncoderCutsAsTheSharedOneDoes) {
  for (const SharedCase& c : limit_cases()) {
    const int all = shared_coded(c, 0).result.num_passes;
    for (int limit : {1, 2, 4, all / 2, all - 1, all, all + 5}) {
      if (limit < 1) continue;
      const Coded want = shared_coded(c, limit);
      const Coded got = formed_coded(c, limit);
      const std::string at = c.name() + ", limit " + std::to_string(limit);
      ASSERT_EQ(got.result.status, want.result.status) << at;
      ASSERT_EQ(got.result.num_passes, want.result.num_passes) << at;
      ASSERT_EQ(got.result.exact_passes, want.result.exact_passes) << at;
      ASSERT_EQ(got.result.length, want.result.length) << at;
      ASSERT_TRUE(std::equal(want.data(), want.data() + want.result.length, got.data())) << at;
      for (int i = 0; i < want.result.num_passes; ++i) {
        ASSERT_TRUE(same_pass(want.passes[i], got.passes[i])) << at << ", pass " << i;
      }
    }
  }
}

// The CPU coder (encode_code_block) cuts as the shared encoder does: the
// same bytes, passes and exact passes under every limit.
TEST(Tier1PassLimit, TheCpuCoderCutsAsTheSharedEncoderDoes) {
  size_t cut_blocks = 0;
  for (const SharedCase& c : limit_cases()) {
    const int all = shared_coded(c, 0).result.num_passes;
    for (int limit = 1; limit <= all + 1; ++limit) {
      const Coded want = shared_coded(c, limit);
      Result<EncodedCodeBlock> got =
          encode_code_block(PlaneView<const int32_t>{c.samples.data(), c.width, c.height, c.width}, c.orientation,
                            c.num_bitplanes, c.style, c.fraction_bits, true, limit);
      const std::string at = c.name() + ", limit " + std::to_string(limit);
      ASSERT_TRUE(got.ok()) << at << ": " << got.status().message();
      ASSERT_TRUE(same_encoding(to_encoded(want.result, want.buffer.data(), want.passes.data()), *got)) << at;
      ASSERT_EQ(got->cut, want.result.cut) << at;
      ASSERT_EQ(got->cut, limit < all) << at;
      if (got->cut) {
        ASSERT_EQ(got->exact_passes, want.result.exact_passes) << at;
        ++cut_blocks;
      }
    }
  }
  EXPECT_GT(cut_blocks, 1000u);
}

}  // namespace
}  // namespace mallat::entropy::testing

// The shared Tier-1 decoder (entropy/ebcot/shared_decoder.h, the source the GPU
// kernel runs) against today's CPU decoder, decode_code_block: the same
// samples and info on every case of t1_shared_decoder_cases.h (every style,
// every size, cut after every pass, damaged), reads that never leave the
// data, and the same parameters rejected.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "entropy/ebcot/ebcot.h"
#include "entropy/ebcot/shared_decoder.h"
#include "tests/entropy/t1_shared_decoder_cases.h"

namespace mallat::entropy::testing {
namespace {

T1FixedState& state() {
  static auto s = std::make_unique<T1FixedState>();
  return *s;
}

// Decodes `c` with the shared decoder into a buffer with a guard row below
// that must stay untouched; the data is copied to a buffer of its exact
// size so that a sanitizer sees any read past it. `marked`: the walk of
// marked columns (for_each_marked_column, the GPU kernel's).
::testing::AssertionResult matches_cpu(const DecodeCase& c, bool marked = false) {
  const CpuDecoded want = decode_on_cpu(c);
  const size_t n = static_cast<size_t>(std::max(c.width, 0)) * std::max(c.height, 0);
  std::vector<int32_t> got(n + 64, 0x5A5A5A5A);
  DecodeCase exact = c;
  std::unique_ptr<uint8_t[]> bytes(new uint8_t[c.data.size() + 1]);
  std::copy(c.data.begin(), c.data.end(), bytes.get());
  SharedT1DecodeBlock block = exact.shared();
  block.data = c.data.empty() ? nullptr : bytes.get();
  const SharedT1DecodeResult result = decode_code_block_shared(block, state(), got.data(), c.width, marked);
  for (size_t i = n; i < got.size(); ++i) {
    if (got[i] != 0x5A5A5A5A) return ::testing::AssertionFailure() << "wrote past the block at " << i;
  }
  return same_decoding(want, result, got.data());
}

TEST(Tier1SharedDecoder, MatchesTheCpuDecoderOnEveryCase) {
  const std::vector<DecodeCase> cases = shared_decode_cases();
  size_t passes = 0;
  for (const DecodeCase& c : cases) {
    ASSERT_TRUE(matches_cpu(c)) << c.name;
    passes += static_cast<size_t>(c.num_passes);
  }
  EXPECT_GT(cases.size(), 12000u);
  EXPECT_GT(passes, 150000u);  // the cases do decode many passes
}

TEST(Tier1SharedDecoder, TheWalkOfMarkedColumnsDecodesAlike) {
  const std::vector<DecodeCase> cases = shared_decode_cases();
  for (size_t i = 0; i < cases.size(); i += 2) ASSERT_TRUE(matches_cpu(cases[i], true)) << cases[i].name;
}

// As the GPU's kernel decodes: the passes into the state, then the
// samples written by 32 lanes, lane k taking columns k, k + 32, ... of each
// row (entropy/cuda/ebcot/decode_kernel.cuh), in an order that puts lane 31
// first; the same as decode_code_block_shared's, zeros for a block of no
// passes and nothing for a refused one.
TEST(Tier1SharedDecoder, SamplesWrittenByLanesAsTheKernelWritesThem) {
  const std::vector<DecodeCase> cases = shared_decode_cases();
  std::vector<DecodeCase> tried;
  for (size_t i = 0; i < cases.size(); i += 7) tried.push_back(cases[i]);
  for (const DecodeCase& c : bad_decode_cases()) tried.push_back(c);
  size_t written = 0;
  for (const DecodeCase& c : tried) {
    const size_t n = static_cast<size_t>(std::max(c.width, 0)) * std::max(c.height, 0);
    std::vector<int32_t> whole(n + 64, 0x5A5A5A5A), by_lanes(n + 64, 0x5A5A5A5A);
    const SharedT1DecodeBlock block = c.shared();
    const SharedT1DecodeResult want = decode_code_block_shared(block, state(), whole.data(), c.width);
    bool in_state = false;
    const SharedT1DecodeResult got =
        decode_code_block_to_state(block, state(), by_lanes.data(), c.width, false, &in_state);
    if (in_state) {
      for (int lane = 31; lane >= 0; --lane) {
        detail::write_decoded_samples(state(), by_lanes.data(), c.width, lane, 32);
      }
      ++written;
    }
    ASSERT_EQ(got.status, want.status) << c.name;
    ASSERT_EQ(got.lowest_plane, want.lowest_plane) << c.name;
    ASSERT_EQ(got.ended_in_significance_pass, want.ended_in_significance_pass) << c.name;
    ASSERT_EQ(by_lanes, whole) << c.name;
  }
  EXPECT_GT(written, 1000u);
}

TEST(Tier1SharedDecoder, RejectsWhatTheCpuDecoderRejects) {
  for (const DecodeCase& c : bad_decode_cases()) {
    EXPECT_FALSE(decode_on_cpu(c).status.ok()) << c.name;
    EXPECT_TRUE(matches_cpu(c)) << c.name;
  }
}

TEST(Tier1SharedDecoder, RandomBytesAndParametersMatch) {
  // Blocks no encoder made: random sizes, styles, planes, passes, segment
  // lengths and bytes, many of them 0xFF (markers and stuffing).
  std::mt19937 rng(1515);
  for (int i = 0; i < 3000; ++i) {
    DecodeCase c;
    c.name = "random " + std::to_string(i);
    c.width = 1 + static_cast<int>(rng() % 80);
    c.height = 1 + static_cast<int>(rng() % 70);
    c.num_bitplanes = static_cast<int>(rng() % 32);
    c.zero_bitplanes = static_cast<int>(rng() % (c.num_bitplanes + 1));
    const int planes = c.num_bitplanes - c.zero_bitplanes;
    c.num_passes = planes > 0 ? static_cast<int>(rng() % (3 * planes - 1)) : 0;
    c.orientation = static_cast<BandOrientation>(rng() % 4);
    c.style = CodeBlockStyle::from_byte(static_cast<uint8_t>(rng() % 64));
    c.data.resize(rng() % 600);
    for (uint8_t& b : c.data) b = rng() % 4 == 0 ? 0xFF : static_cast<uint8_t>(rng());
    for (int k = static_cast<int>(rng() % 12); k > 0; --k) c.segment_lengths.push_back(rng() % 200);
    ASSERT_TRUE(matches_cpu(c)) << c.name;
    ASSERT_TRUE(matches_cpu(c, true)) << c.name;
  }
}

}  // namespace
}  // namespace mallat::entropy::testing

// The shared Tier-1 encoder (entropy/ebcot/shared_encoder.h, the source the GPU
// kernel runs) against today's CPU coder, encode_code_block: the same bytes,
// pass lengths, terminations, distortions bit for bit, zero bit-planes and
// pass counts on every case of t1_shared_cases.h; and its bounds: a buffer
// too small is reported and never overrun, bad parameters are statuses.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "entropy/ebcot/ebcot.h"
#include "entropy/ebcot/shared_encoder.h"
#include "tests/entropy/t1_shared_cases.h"

namespace mallat::entropy::testing {
namespace {

struct SharedRun {
  SharedT1Result result;
  std::vector<uint8_t> buffer;
  std::vector<CodingPass> passes;
};

// Runs the shared encoder with a buffer of `capacity` bytes followed by a
// guard of 64 bytes that must stay untouched.
// `stride` > 0: each pass's decisions recorded first, at that stride
// (entropy/ebcot/recorded_symbols.h), in a buffer of exactly the room the
// encoder asks for.
SharedRun run_shared(const SharedCase& c, uint32_t capacity, uint32_t stride = 0) {
  static auto state = std::make_unique<T1FixedState>();
  static std::vector<uint32_t> decisions;
  SharedRun run;
  run.buffer.assign(capacity + 64, 0xA5);
  run.passes.assign(kMaxCodingPasses, CodingPass{});
  DecisionBuffer recorded;
  if (stride > 0) {
    decisions.assign((kMaxPassDecisions / 4 - 1) * stride + 1, 0);
    recorded = {decisions.data(), stride};
  }
  run.result =
      encode_code_block_shared(c.block(), *state, {run.buffer.data(), capacity, run.passes.data()}, recorded);
  for (size_t i = capacity; i < run.buffer.size(); ++i) EXPECT_EQ(run.buffer[i], 0xA5) << "byte " << i << " written";
  return run;
}

TEST(Tier1Shared, MatchesTheCpuCoderOnEveryCase) {
  const std::vector<SharedCase> cases = shared_cases();
  size_t passes = 0;
  for (const SharedCase& c : cases) {
    Result<EncodedCodeBlock> want = cpu_encoding(c);
    ASSERT_TRUE(want.ok()) << c.name() << ": " << want.status().message();
    const SharedRun run = run_shared(c, 1u << 20);
    ASSERT_EQ(run.result.status, SharedT1Status::kOk) << c.name();
    ASSERT_TRUE(same_encoding(*want, to_encoded(run.result, run.buffer.data(), run.passes.data()))) << c.name();
    passes += static_cast<size_t>(want->num_passes);
  }
  EXPECT_GT(cases.size(), 1500u);
  EXPECT_GT(passes, 30000u);  // the cases do code many passes
}

TEST(Tier1Shared, RecordedDecisionsCodeTheSameBlocks) {
  const std::vector<SharedCase> cases = shared_cases();
  for (size_t i = 0; i < cases.size(); ++i) {
    const SharedCase& c = cases[i];
    const SharedRun direct = run_shared(c, 1u << 17);
    ASSERT_EQ(direct.result.status, SharedT1Status::kOk) << c.name();
    // Every case at stride 1, every eighth interleaved too.
    for (uint32_t stride : {1u, 3u}) {
      if (stride > 1 && i % 8 != 0) continue;
      const SharedRun recorded = run_shared(c, 1u << 17, stride);
      ASSERT_EQ(recorded.result.status, direct.result.status) << c.name();
      ASSERT_TRUE(same_encoding(to_encoded(direct.result, direct.buffer.data(), direct.passes.data()),
                                to_encoded(recorded.result, recorded.buffer.data(), recorded.passes.data())))
          << c.name() << ", stride " << stride;
    }
  }
}

// A block whose samples all become significant in its first cleanup pass
// forms about two decisions a sample there (each sample's bit and sign),
// near kMaxPassDecisions; the buffer, sized exactly, holds them (the
// sanitizer build would see a write past it).
TEST(Tier1Shared, ThePassBoundHoldsADenseCleanupPass) {
  SharedCase c = laplacian_case(64, 64, 1, 5, 4);
  for (size_t i = 0; i < c.samples.size(); ++i) c.samples[i] = (i * 7 % 3) != 0 ? -8 : 8;
  const SharedRun direct = run_shared(c, 1u << 20);
  ASSERT_EQ(direct.result.status, SharedT1Status::kOk);
  const SharedRun recorded = run_shared(c, 1u << 20, 1);
  ASSERT_TRUE(same_encoding(to_encoded(direct.result, direct.buffer.data(), direct.passes.data()),
                            to_encoded(recorded.result, recorded.buffer.data(), recorded.passes.data())));
}

TEST(Tier1Shared, BufferWithOneSpareByteFitsAndOneByteTooFewOverflows) {
  for (uint8_t byte : {0, 1, 4, 0x3F}) {
    SharedCase c = laplacian_case(64, 64, 32, 77 + byte, 16);
    c.style = CodeBlockStyle::from_byte(byte);
    const SharedRun big = run_shared(c, 1u << 20);
    ASSERT_EQ(big.result.status, SharedT1Status::kOk);
    // The scratch byte, the data, and room for a final 0xFF that the coder
    // writes and then drops (C.2.9).
    const uint32_t need = big.result.length + 2;
    const SharedRun exact = run_shared(c, need);
    ASSERT_EQ(exact.result.status, SharedT1Status::kOk) << "style " << int{byte};
    EXPECT_TRUE(same_encoding(to_encoded(big.result, big.buffer.data(), big.passes.data()),
                              to_encoded(exact.result, exact.buffer.data(), exact.passes.data())));
    for (uint32_t capacity : {need - 2, need / 2, 1u, 2u}) {
      const SharedRun small = run_shared(c, capacity);
      EXPECT_EQ(small.result.status, SharedT1Status::kOutputOverflow) << "capacity " << capacity;
    }
  }
}

TEST(Tier1Shared, BadParametersAreStatuses) {
  SharedCase c = laplacian_case(64, 64, 32, 5, 10);
  SharedCase bad = c;
  bad.width = 0;
  EXPECT_EQ(run_shared(bad, 4096).result.status, SharedT1Status::kBadShape);
  bad = c;
  bad.width = 128;  // 128 x 64 > 4096 samples
  EXPECT_EQ(run_shared(bad, 4096).result.status, SharedT1Status::kBadShape);
  bad = c;
  bad.num_bitplanes = 32;
  EXPECT_EQ(run_shared(bad, 4096).result.status, SharedT1Status::kBadBitPlanes);
  bad = c;
  bad.num_bitplanes = 20;
  bad.fraction_bits = 12;
  EXPECT_EQ(run_shared(bad, 4096).result.status, SharedT1Status::kBadBitPlanes);
  bad = c;
  bad.samples[300] = 1 << 10;  // needs 11 bits, Mb = 10
  EXPECT_EQ(run_shared(bad, 4096).result.status, SharedT1Status::kMagnitudeTooLarge);
  EXPECT_STREQ(shared_t1_status_text(SharedT1Status::kMagnitudeTooLarge),
               "a coefficient needs more than Mb magnitude bits");
}

TEST(Tier1Shared, StateCoversEveryShapeOfA61) {
  // 819 x 5 needs the most column words, 5 x 819's transpose the most magnitudes.
  EXPECT_EQ(T1FixedState::kColumnWords, (819 + 2) * (2 + 2));
  EXPECT_EQ(T1FixedState::kMagnitudeWords, 4 * 2 * 819);
}

}  // namespace
}  // namespace mallat::entropy::testing

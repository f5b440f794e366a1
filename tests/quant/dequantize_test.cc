// E.1 dequantisation and H.1 ROI as the decoder applies them per code-block
// (quant/dequantize.h), and the step sizes it takes (E-5, A.6.4), against
// values worked out by hand and a plain model of OpenJPEG's reconstruction
// (twice the magnitude plus 2^p, halved).
#include "quant/dequantize.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace mallat::quant {
namespace {

// Orientations as log2_subband_gain takes them (the order of dwt::Band).
constexpr int kLL = 0, kHL = 1, kLH = 2, kHH = 3;

TEST(Dequantize, DerivedStepSizesFollowE5) {
  const std::vector<StepSize> signalled = {{10, 100}};
  auto derived = [&](int levels, int r, int orientation) {
    return subband_step_size(signalled, true, levels, subband_step_index(r, orientation));
  };
  // epsilon_b = epsilon_0 - NL + nb: nb = 5 at the LL and the coarsest
  // bands (r = 1), 1 at the finest (r = 5).
  EXPECT_EQ(*derived(5, 0, kLL), (StepSize{10, 100}));
  EXPECT_EQ(*derived(5, 1, kHL), (StepSize{10, 100}));
  EXPECT_EQ(*derived(5, 3, kHH), (StepSize{8, 100}));
  EXPECT_EQ(*derived(5, 5, kLH), (StepSize{6, 100}));
  // The same rule as every subband of derived_step_sizes.
  const std::vector<StepSize> all = derived_step_sizes(signalled[0], 5);
  for (int i = 0; i < subband_count(5); ++i) EXPECT_EQ(*subband_step_size(signalled, true, 5, i), all[i]) << i;
  EXPECT_FALSE(subband_step_size({}, true, 5, 0).ok());
}

TEST(Dequantize, ExpoundedStepSizesInSignallingOrder) {
  std::vector<StepSize> signalled;
  for (int i = 0; i < 7; ++i) signalled.push_back({i + 1, 10 * i});
  // A.6.4: LL, then HL, LH, HH of r = 1, then of r = 2.
  EXPECT_EQ(*subband_step_size(signalled, false, 2, subband_step_index(0, kLL)), (StepSize{1, 0}));
  EXPECT_EQ(*subband_step_size(signalled, false, 2, subband_step_index(1, kLH)), (StepSize{3, 20}));
  EXPECT_EQ(*subband_step_size(signalled, false, 2, subband_step_index(2, kHH)), (StepSize{7, 60}));
  auto missing = subband_step_size(signalled, false, 3, subband_step_index(3, kHL));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("needs more"), std::string::npos);
}

TEST(Dequantize, StepSizeIsE3WithTableE1Gains) {
  // R_b = 8 + 2 for HH: 2^(10 - 8) * (1 + 1024 / 2048) = 6.
  EXPECT_FLOAT_EQ(step_size({8, 1024}, 8, kHH), 6.0f);
  // LL, gain 0: 2^(12 - 13) * (1 + 0) = 0.5.
  EXPECT_FLOAT_EQ(step_size({13, 0}, 12, kLL), 0.5f);
  // HL, gain 1: R_b = 9, 2^0 * (1 + 2047 / 2048).
  EXPECT_FLOAT_EQ(step_size({9, 2047}, 8, kHL), 1.0f + 2047.0f / 2048.0f);
}

// OpenJPEG's reconstruction, written out plainly: the magnitude at twice
// its weight plus 2^p (the middle of the known interval in half units),
// signed, then halved with C's truncating division.
int32_t doubled_model(int32_t v, int p) {
  if (v == 0) return 0;
  const int64_t d = 2 * int64_t{v < 0 ? -v : v} + (int64_t{1} << p);
  return static_cast<int32_t>((v < 0 ? -d : d) / 2);
}

TEST(Dequantize, ReversibleMatchesTheDoubledModel) {
  std::mt19937 rng(7);
  const int w = 13, h = 9;
  std::vector<int32_t> block(w * h), expected(w * h);
  std::vector<uint8_t> known(w * h);
  for (int i = 0; i < w * h; ++i) {
    const int p = static_cast<int>(rng() % 12);
    // Magnitudes with no bits below p, as Tier-1 leaves them.
    int32_t m = static_cast<int32_t>(rng() % 4096) >> p << p;
    if (rng() % 5 == 0) m = 0;
    const int32_t v = rng() % 2 ? -m : m;
    block[i] = v;
    known[i] = static_cast<uint8_t>(p);
    expected[i] = doubled_model(v, p);
  }
  reconstruct_reversible({block.data(), w, h, w}, PlaneView<const uint8_t>{known.data(), w, h, w}, {});
  EXPECT_EQ(block, expected);
}

TEST(Dequantize, CompleteReversibleBlockIsUnchanged) {
  std::vector<int32_t> block = {5, -3, 0, 1, -1, 1000};
  const std::vector<int32_t> before = block;
  reconstruct_reversible({block.data(), 3, 2, 3}, {}, {});
  EXPECT_EQ(block, before);
}

TEST(Dequantize, RoiMagnitudesAreShiftedDown) {
  BlockReconstruction how;
  how.roi_shift = 3;
  // 48 >= 2^3 is in the region: 48 >> 3 = 6, known to plane 4 - 3 = 1, so
  // 6 + 2^0. 40 known to plane 0: 5. 5 < 2^3 is background: unchanged.
  // -7 background known to plane 2 (after a truncation): -(7 + 2).
  std::vector<int32_t> block = {48, 40, 5, -7};
  std::vector<uint8_t> known = {4, 0, 0, 2};
  reconstruct_reversible({block.data(), 4, 1, 4}, PlaneView<const uint8_t>{known.data(), 4, 1, 4}, how);
  EXPECT_EQ(block, (std::vector<int32_t>{7, 5, 5, -9}));
  // Without known planes every sample is complete.
  block = {-64, 8, 7, 0};
  reconstruct_reversible({block.data(), 4, 1, 4}, {}, how);
  EXPECT_EQ(block, (std::vector<int32_t>{-8, 1, 7, 0}));
}

TEST(Dequantize, IrreversibleReconstructsAtMidPoints) {
  BlockReconstruction how;
  how.step = 2.0f;
  std::vector<int32_t> block = {3, -3, 0, 4, -12};
  std::vector<uint8_t> known = {0, 0, 5, 2, 2};
  std::vector<float> out(5, -1.0f);
  // (2|q| + 2^p) * step / 2 with q's sign.
  reconstruct_irreversible({block.data(), 5, 1, 5}, PlaneView<const uint8_t>{known.data(), 5, 1, 5}, how,
                           {out.data(), 5, 1, 5});
  EXPECT_EQ(out, (std::vector<float>{7.0f, -7.0f, 0.0f, 12.0f, -28.0f}));
  // No known planes: every sample known to plane 0, (|q| + 1/2) steps.
  reconstruct_irreversible({block.data(), 5, 1, 5}, {}, how, {out.data(), 5, 1, 5});
  EXPECT_EQ(out, (std::vector<float>{7.0f, -7.0f, 0.0f, 9.0f, -25.0f}));
  // With ROI: 96 >= 2^4 becomes 6, known to plane 0: 13 half-steps.
  how.roi_shift = 4;
  block = {96, 9};
  reconstruct_irreversible({block.data(), 2, 1, 2}, {}, how, {out.data(), 2, 1, 2});
  EXPECT_EQ(out[0], 13.0f);
  EXPECT_EQ(out[1], 19.0f);
}

}  // namespace
}  // namespace mallat::quant

// E.1 dequantisation and H.1 ROI as the decoder applies them per code-block
// (quant/dequantize.h), and the step sizes it takes (E-5, A.6.4), against
// values worked out by hand and a plain model of OpenJPEG's reconstruction
// (twice the magnitude plus 2^p, halved); each sample's known plane, which
// comes from the block decoder's info, against the block decoder's own.
#include "quant/dequantize.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <span>
#include <vector>

#include "entropy/ebcot/ebcot.h"

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

// A value a block decoder can leave when its passes reached `lowest`: with
// a last significance pass, exactly 2^lowest (significant in that pass,
// known to lowest) or at least 2^(lowest+1) with nothing below lowest + 1
// (known to lowest + 1); otherwise nothing below lowest. Sets *plane.
int32_t decoded_value(std::mt19937& rng, const KnownPlanes& known, int* plane) {
  const int lowest = known.lowest_plane;
  int32_t m = 0;
  if (known.ended_in_significance_pass && rng() % 3 == 0) {
    m = int32_t{1} << lowest;
    *plane = lowest;
  } else {
    *plane = lowest + (known.ended_in_significance_pass ? 1 : 0);
    m = static_cast<int32_t>(rng() % 4096 + 1) << *plane;
  }
  if (rng() % 5 == 0) m = 0;
  return rng() % 2 ? -m : m;
}

TEST(Dequantize, ReversibleMatchesTheDoubledModel) {
  std::mt19937 rng(7);
  const int w = 13, h = 9;
  for (int trial = 0; trial < 40; ++trial) {
    const KnownPlanes known{static_cast<int>(rng() % 12), rng() % 2 == 0};
    std::vector<int32_t> block(w * h), expected(w * h);
    for (int i = 0; i < w * h; ++i) {
      int p = 0;
      block[i] = decoded_value(rng, known, &p);
      expected[i] = doubled_model(block[i], p);
    }
    reconstruct_reversible({block.data(), w, h, w}, known, {});
    EXPECT_EQ(block, expected) << "lowest " << known.lowest_plane << " spp " << known.ended_in_significance_pass;
  }
}

TEST(Dequantize, IrreversibleMatchesTheDoubledModel) {
  std::mt19937 rng(8);
  const int w = 7, h = 11;
  BlockReconstruction how;
  how.step = 0.75f;
  for (int trial = 0; trial < 40; ++trial) {
    const KnownPlanes known{static_cast<int>(rng() % 12), rng() % 2 == 0};
    std::vector<int32_t> block(w * h);
    std::vector<float> expected(w * h), out(w * h, -1.0f);
    for (int i = 0; i < w * h; ++i) {
      int p = 0;
      block[i] = decoded_value(rng, known, &p);
      const int64_t m = block[i] < 0 ? -int64_t{block[i]} : block[i];
      const int64_t d = block[i] == 0 ? 0 : 2 * m + (int64_t{1} << p);
      expected[i] = static_cast<float>(block[i] < 0 ? -d : d) * (0.5f * how.step);
    }
    reconstruct_irreversible({block.data(), w, h, w}, known, how, {out.data(), w, h, w});
    EXPECT_EQ(out, expected);
  }
}

TEST(Dequantize, CompleteReversibleBlockIsUnchanged) {
  std::vector<int32_t> block = {5, -3, 0, 1, -1, 1000};
  const std::vector<int32_t> before = block;
  reconstruct_reversible({block.data(), 3, 2, 3}, {}, {});
  EXPECT_EQ(block, before);
  // Passes down to plane 0's refinement pass: every sample known to plane 0.
  reconstruct_reversible({block.data(), 3, 2, 3}, KnownPlanes{0, false}, {});
  EXPECT_EQ(block, before);
}

TEST(Dequantize, RoiMagnitudesAreShiftedDown) {
  BlockReconstruction how;
  how.roi_shift = 3;
  // The last pass a significance pass of plane 4. 16 = 2^4 became
  // significant in it, known to plane 4: in the region (>= 2^3), 16 >> 3 = 2
  // known to plane 1, so 2 + 2^0. 96 and -32 were significant before, known
  // to plane 5: 12 + 2^1 and -(4 + 2^1).
  std::vector<int32_t> block = {16, 96, -32, 0};
  reconstruct_reversible({block.data(), 4, 1, 4}, KnownPlanes{4, true}, how);
  EXPECT_EQ(block, (std::vector<int32_t>{3, 14, -6, 0}));
  // A complete block: region magnitudes shifted down, background unchanged.
  block = {-64, 8, 7, 0};
  reconstruct_reversible({block.data(), 4, 1, 4}, {}, how);
  EXPECT_EQ(block, (std::vector<int32_t>{-8, 1, 7, 0}));
}

TEST(Dequantize, IrreversibleReconstructsAtMidPoints) {
  BlockReconstruction how;
  how.step = 2.0f;
  // (2|q| + 2^p) * step / 2 with q's sign. Last pass a significance pass of
  // plane 2: 4 known to plane 2 (12), -12 and 8 to plane 3 (-32, 24).
  std::vector<int32_t> block = {4, -12, 0, 8};
  std::vector<float> out(4, -1.0f);
  reconstruct_irreversible({block.data(), 4, 1, 4}, KnownPlanes{2, true}, how, {out.data(), 4, 1, 4});
  EXPECT_EQ(out, (std::vector<float>{12.0f, -32.0f, 0.0f, 24.0f}));
  // Every sample known to plane 0: (|q| + 1/2) steps.
  block = {3, -3, 0, 4, -12};
  out.assign(5, -1.0f);
  reconstruct_irreversible({block.data(), 5, 1, 5}, {}, how, {out.data(), 5, 1, 5});
  EXPECT_EQ(out, (std::vector<float>{7.0f, -7.0f, 0.0f, 9.0f, -25.0f}));
  // With ROI: 96 >= 2^4 becomes 6, known to plane 0: 13 half-steps.
  how.roi_shift = 4;
  block = {96, 9};
  reconstruct_irreversible({block.data(), 2, 1, 2}, {}, how, {out.data(), 2, 1, 2});
  EXPECT_EQ(out[0], 13.0f);
  EXPECT_EQ(out[1], 19.0f);
}

TEST(Dequantize, InPlaceGivesWhatASeparateOutputGives) {
  // The decoder's dequantisation turns a 9/7 plane's decoded integers into
  // floats in their own storage.
  std::mt19937 rng(9);
  const int w = 16, h = 8;
  const KnownPlanes known{3, true};
  BlockReconstruction how;
  how.step = 1.25f;
  std::vector<int32_t> block(w * h);
  for (int32_t& v : block) {
    int p = 0;
    v = decoded_value(rng, known, &p);
  }
  std::vector<float> separate(w * h);
  reconstruct_irreversible({block.data(), w, h, w}, known, how, {separate.data(), w, h, w});
  static_assert(sizeof(float) == sizeof(int32_t));
  auto storage = std::make_unique<std::byte[]>(block.size() * 4);
  std::memcpy(storage.get(), block.data(), block.size() * 4);
  reconstruct_irreversible({reinterpret_cast<const int32_t*>(storage.get()), w, h, w}, known, how,
                           {reinterpret_cast<float*>(storage.get()), w, h, w});
  std::vector<float> in_place(w * h);
  std::memcpy(in_place.data(), storage.get(), in_place.size() * 4);
  EXPECT_EQ(in_place, separate);
}

// The known planes from the info are the block decoder's own: random blocks
// of every Part 1 style, truncated after any pass or replaced by garbage
// (a corrupt segment decodes to whatever it says; the rule holds for it too).
TEST(Dequantize, KnownPlanesFromTheInfoAreTheBlockDecoders) {
  std::mt19937 rng(5);
  int64_t checked = 0, behind = 0;
  for (int trial = 0; trial < 640; ++trial) {
    const entropy::CodeBlockStyle style = entropy::CodeBlockStyle::from_byte(static_cast<uint8_t>(trial % 64));
    const int w = 1 + static_cast<int>(rng() % 64), h = 1 + static_cast<int>(rng() % 64);
    const int mb = 1 + static_cast<int>(rng() % 18);
    const auto orientation = static_cast<entropy::BandOrientation>(rng() % 4);
    std::vector<int32_t> v(static_cast<size_t>(w * h));
    for (int32_t& x : v) {
      if (rng() % 3 == 0) continue;
      const int top = static_cast<int>(rng() % mb);
      const auto m = static_cast<int32_t>(rng() % (uint32_t{1} << (top + 1)));
      x = rng() % 2 ? -m : m;
    }
    auto coded = entropy::encode_code_block({v.data(), w, h, w}, orientation, mb, style);
    ASSERT_TRUE(coded.ok());
    entropy::CodeBlockToDecode in;
    in.zero_bitplanes = coded->zero_bitplanes;
    in.num_bitplanes = mb;
    in.orientation = orientation;
    in.style = style;
    std::vector<uint8_t> garbage;
    std::vector<uint32_t> lengths;
    const int planes = mb - coded->zero_bitplanes;
    if (planes <= 0) continue;
    in.num_passes = 1 + static_cast<int>(rng() % (3 * planes - 2));
    if (trial % 4 == 3) {
      garbage.resize(rng() % 512);
      for (uint8_t& g : garbage) g = static_cast<uint8_t>(rng());
      in.data = garbage;
    } else {
      lengths = entropy::codeword_segment_lengths(*coded, in.num_passes);
      in.data = std::span<const uint8_t>(coded->data.data(), coded->passes[in.num_passes - 1].cumulative_length);
      in.segment_lengths = lengths;
    }
    std::vector<int32_t> values(v.size());
    std::vector<uint8_t> planes_known(v.size());
    auto info = entropy::decode_code_block(in, {values.data(), w, h, w}, {planes_known.data(), w, h, w});
    ASSERT_TRUE(info.ok()) << info.status().to_string();
    const KnownPlanes known{info->lowest_plane, info->ended_in_significance_pass};
    for (size_t k = 0; k < values.size(); ++k) {
      if (values[k] == 0) continue;  // zero reconstructs to zero whatever its plane
      const auto magnitude = static_cast<uint32_t>(values[k] < 0 ? -values[k] : values[k]);
      ASSERT_EQ(known_plane(magnitude, known), planes_known[k])
          << "trial " << trial << " sample " << k << " value " << values[k];
      ++checked;
      behind += planes_known[k] > info->lowest_plane;
    }
  }
  // Both kinds of sample were seen.
  EXPECT_GT(checked, 100000);
  EXPECT_GT(behind, 1000);
}

}  // namespace
}  // namespace mallat::quant

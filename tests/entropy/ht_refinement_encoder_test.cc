// The HT refinement encoder by columns (encode_refinement_by_columns,
// entropy/ht/refinement_encoder.cc) against its plain reference
// (encode_refinement, entropy/ht/refinement.cc): the same segment, SigProp
// length and decreases, in both vertical modes, over random and Laplacian
// blocks of every shape of ht_test_blocks.h at several planes, in strided
// views.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "entropy/ht/passes.h"
#include "tests/entropy/ht_test_blocks.h"
#include "tests/entropy/laplacian_block.h"

namespace mallat::entropy {
namespace {

void expect_same_coding(PlaneView<const int32_t> v, int shift, const std::string& what) {
  for (bool causal : {false, true}) {
    std::vector<uint8_t> plain, columns;
    const ht::RefinementCoded a = ht::encode_refinement(v, shift, causal, plain);
    const ht::RefinementCoded b = ht::encode_refinement_by_columns(v, shift, causal, columns);
    const std::string where = what + (causal ? " causal" : "");
    ASSERT_EQ(columns, plain) << where;
    EXPECT_EQ(b.sigprop_length, a.sigprop_length) << where;
    EXPECT_EQ(b.sigprop_decrease, a.sigprop_decrease) << where;
    EXPECT_EQ(b.magref_decrease, a.magref_decrease) << where;
  }
}

TEST(HtRefinementEncoder, RandomBlocksCodeAsTheReference) {
  std::mt19937 rng(20261129);
  for (int i = 0; i < 300; ++i) {
    const ht_test::Block b = ht_test::random_block(rng, 3);
    // A strided copy: the encoder must read rows through the view's stride.
    const int stride = b.w + 5;
    std::vector<int32_t> strided(static_cast<size_t>(stride) * b.h, 0x7fffffff);
    for (int y = 0; y < b.h; ++y)
      for (int x = 0; x < b.w; ++x) strided[static_cast<size_t>(y) * stride + x] = b.view().at(x, y);
    const PlaneView<const int32_t> view{strided.data(), b.w, b.h, stride};
    for (int p = 1; p < b.mb; p += 1 + b.mb / 5)
      expect_same_coding(view, p - 1 + b.fraction_bits, b.describe() + " p=" + std::to_string(p));
  }
}

TEST(HtRefinementEncoder, LaplacianBlocksCodeAsTheReference) {
  for (double scale : {0.3, 1.0, 4.0, 32.0, 4096.0}) {
    for (unsigned seed = 1; seed <= 3; ++seed) {
      const std::vector<int32_t> v = laplacian_block(scale, seed);
      for (int p : {1, 2, 3, 4, 7}) {
        expect_same_coding({v.data(), 64, 64, 64}, p - 1, "scale " + std::to_string(scale) + " p=" + std::to_string(p));
      }
    }
  }
}

}  // namespace
}  // namespace mallat::entropy

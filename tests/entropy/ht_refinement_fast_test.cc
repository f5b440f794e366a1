// The HT refinement coders (the CPU's encoder, entropy/ht/refinement_coder.cc;
// the shared coder of entropy/ht/shared_refinement.h, the CPU's decoder and
// the GPU's both ways) against their plain
// references (encode_refinement_reference, decode_refinement_reference,
// entropy/ht/refinement.cc): the same bytes, SigProp length and decreases
// (to the bit) when encoding, and the same samples from SigProp alone and
// from SigProp and MagRef when decoding, in both vertical modes, over blocks the encoder refined at
// random planes (random and Laplacian coefficients, every shape of
// ht_test_blocks.h, strided views) and over random bytes as the segment
// (which drive the readers' stuffing and their fill past the end).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "entropy/ht/passes.h"
#include "tests/entropy/ht_test_blocks.h"
#include "tests/entropy/laplacian_block.h"

namespace mallat::entropy {
namespace {

// `cleanup` (w x h, the cleanup's samples) refined both ways, in a view of
// stride w + 3 (its padding must stay untouched), expected the same.
void expect_same_refinement(const std::vector<int32_t>& cleanup, int w, int h, std::span<const uint8_t> segment,
                            int plane, const std::string& what) {
  const int stride = w + 3;
  for (int passes = 1; passes <= 2; ++passes) {
    for (bool causal : {false, true}) {
      std::vector<int32_t> plain(static_cast<size_t>(stride) * h, -77);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) plain[static_cast<size_t>(y) * stride + x] = cleanup[static_cast<size_t>(y) * w + x];
      std::vector<int32_t> fast = plain;
      ht::decode_refinement_reference(segment, passes, plane, causal, {plain.data(), w, h, stride});
      ht::decode_refinement(segment, passes, plane, causal, {fast.data(), w, h, stride});
      ASSERT_EQ(fast, plain) << what << " passes " << passes << (causal ? " causal" : "");
    }
  }
}

// The cleanup's samples at plane `p` (magnitudes cut below 2^p, as the
// cleanup decoder gives them) and the encoder's refinement segment for
// plane p - 1.
void check_coded(PlaneView<const int32_t> v, int p, const std::string& what) {
  const auto w = static_cast<int>(v.width), h = static_cast<int>(v.height);
  std::vector<int32_t> cleanup(static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const int32_t c = v.at(x, y);
      const auto m = static_cast<int32_t>(((c < 0 ? -int64_t{c} : int64_t{c}) >> p) << p);
      cleanup[static_cast<size_t>(y) * w + x] = c < 0 ? -m : m;
    }
  }
  for (bool causal : {false, true}) {
    std::vector<uint8_t> segment, plain;
    const ht::RefinementCoded coded = ht::encode_refinement(v, p - 1, causal, segment);
    const ht::RefinementCoded expected = ht::encode_refinement_reference(v, p - 1, causal, plain);
    ASSERT_EQ(segment, plain) << what << (causal ? " causal" : "");
    EXPECT_EQ(coded.sigprop_length, expected.sigprop_length) << what;
    EXPECT_EQ(coded.sigprop_decrease, expected.sigprop_decrease) << what;
    EXPECT_EQ(coded.magref_decrease, expected.magref_decrease) << what;
    // The shared coder the GPU runs, on the CPU: the same.
    static ht::RefinementState state;
    std::vector<uint8_t> shared(ht::refinement_capacity(static_cast<uint32_t>(w * h)));
    ht::BoundedBytes bytes(shared.data(), static_cast<uint32_t>(shared.size()));
    const ht::RefinementCoded by_shared = ht::encode_refinement_shared(v, p - 1, causal, bytes, state);
    ASSERT_FALSE(bytes.overflow()) << what;
    shared.resize(bytes.size());
    ASSERT_EQ(shared, plain) << what << " shared" << (causal ? " causal" : "");
    EXPECT_EQ(by_shared.sigprop_length, expected.sigprop_length) << what;
    EXPECT_EQ(by_shared.sigprop_decrease, expected.sigprop_decrease) << what;
    EXPECT_EQ(by_shared.magref_decrease, expected.magref_decrease) << what;
    expect_same_refinement(cleanup, w, h, segment, p - 1, what + (causal ? " coded causal" : " coded"));
  }
}

TEST(HtRefinementFast, RandomBlocksDecodeAsTheReference) {
  std::mt19937 rng(20261124);
  for (int i = 0; i < 200; ++i) {
    const ht_test::Block b = ht_test::random_block(rng, 0);
    for (int p = 1; p < b.mb; p += 1 + b.mb / 5) check_coded(b.view(), p, b.describe() + " p=" + std::to_string(p));
  }
}

TEST(HtRefinementFast, LaplacianBlocksDecodeAsTheReference) {
  for (double scale : {0.3, 1.0, 4.0, 32.0, 4096.0}) {
    for (unsigned seed = 1; seed <= 3; ++seed) {
      const std::vector<int32_t> v = laplacian_block(scale, seed);
      for (int p : {1, 2, 4, 7}) {
        check_coded({v.data(), 64, 64, 64}, p, "scale " + std::to_string(scale) + " p=" + std::to_string(p));
      }
    }
  }
}

TEST(HtRefinementFast, RandomSegmentsDecodeAsTheReference) {
  std::mt19937 rng(17);
  static constexpr int kShapes[][2] = {{64, 64}, {1, 1}, {5, 7}, {33, 2}, {2, 33}, {1024, 4}, {4, 1024}, {13, 9}};
  for (int i = 0; i < 400; ++i) {
    const auto& shape = kShapes[rng() % std::size(kShapes)];
    const int w = shape[0], h = shape[1];
    const int plane = static_cast<int>(rng() % 12);
    // A cleanup result: some samples significant (multiples of 2^(plane+1)).
    const double density = static_cast<double>(rng() % 100) / 100.0;
    std::vector<int32_t> cleanup(static_cast<size_t>(w) * h, 0);
    for (int32_t& c : cleanup) {
      if (std::uniform_real_distribution<double>(0, 1)(rng) < density) {
        const int32_t m = static_cast<int32_t>(1 + rng() % 5) << (plane + 1);
        c = rng() % 2 ? -m : m;
      }
    }
    // Random bytes, some runs of 0xFF and 0x7F/0x8F (the unstuffing cases).
    std::vector<uint8_t> segment(rng() % 300);
    for (uint8_t& byte : segment) {
      const unsigned k = rng() % 8;
      byte = k == 0 ? 0xFF : k == 1 ? 0x7F : k == 2 ? 0x90 : static_cast<uint8_t>(rng());
    }
    expect_same_refinement(cleanup, w, h, segment, plane,
                           std::to_string(w) + "x" + std::to_string(h) + " random segment " + std::to_string(i));
  }
}

}  // namespace
}  // namespace mallat::entropy

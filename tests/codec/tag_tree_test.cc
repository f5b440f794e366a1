#include "codec/tier2/tag_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "codec/tier2/bit_io.h"

namespace mallat::codec {
namespace {

std::string bits_of(const std::vector<uint8_t>& bytes, size_t nbits) {
  std::string s;
  for (size_t i = 0; i < nbits; ++i) s += ((bytes[i / 8] >> (7 - i % 8)) & 1) ? '1' : '0';
  return s;
}

// B.10.2, Figure B.12: a 6 x 3 array q0 and its tag tree
//   q0: 1 3 2 3 2 3     q1: 1 1 2     q2: 1 1     q3: 1
//       2 2 1 4 3 2         2 2 1
//       2 2 2 2 1 2
// Coding q0(0,0), q0(1,0), q0(2,0) completely (Table B.5), worked by hand:
//   q0(0,0): q3 "01" (not >= ... 0 then 1: q3 = 1), q2(0,0) "1", q1(0,0) "1", q0 "1"  -> 01111
//   q0(1,0): q3..q1 already known; q0(1,0) from 1: "0" (>1), "0" (>2), "1" (=3)       -> 001
//   q0(2,0): q1(1,0) from 1: "1"; q0(2,0) from 1: "0", "1"                            -> 101
TEST(TagTree, StandardExample) {
  const int q0[3][6] = {{1, 3, 2, 3, 2, 3}, {2, 2, 1, 4, 3, 2}, {2, 2, 2, 2, 1, 2}};
  auto tree = TagTree::create(6, 3);
  ASSERT_TRUE(tree.ok());
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 6; ++x) tree->set_value(x, y, q0[y][x]);
  std::vector<uint8_t> bytes;
  PacketBitWriter w(bytes);
  const int big = 100;
  tree->encode(w, 0, 0, big);
  tree->encode(w, 1, 0, big);
  tree->encode(w, 2, 0, big);
  w.flush();
  EXPECT_EQ(bits_of(bytes, 11), "01111" "001" "101");

  auto dec = TagTree::create(6, 3);
  ASSERT_TRUE(dec.ok());
  PacketBitReader r(bytes);
  EXPECT_TRUE(dec->decode(r, 0, 0, big));
  EXPECT_TRUE(dec->decode(r, 1, 0, big));
  EXPECT_TRUE(dec->decode(r, 2, 0, big));
  EXPECT_EQ(dec->value(0, 0), 1);
  EXPECT_EQ(dec->value(1, 0), 3);
  EXPECT_EQ(dec->value(2, 0), 2);
}

// Threshold 1 on a leaf of value 0 in a 1x1 tree: one bit "1"; value 2 with
// threshold 1: "0" (not below 1), later threshold 3: "0" then "1".
TEST(TagTree, SingleLeafThresholds) {
  auto t = TagTree::create(1, 1);
  ASSERT_TRUE(t.ok());
  t->set_value(0, 0, 2);
  std::vector<uint8_t> bytes;
  PacketBitWriter w(bytes);
  t->encode(w, 0, 0, 1);
  t->encode(w, 0, 0, 3);
  t->encode(w, 0, 0, 7);  // already known: no bits
  w.flush();
  EXPECT_EQ(bits_of(bytes, 3), "001");
  auto d = TagTree::create(1, 1);
  ASSERT_TRUE(d.ok());
  PacketBitReader r(bytes);
  EXPECT_FALSE(d->decode(r, 0, 0, 1));
  EXPECT_TRUE(d->decode(r, 0, 0, 3));
  EXPECT_TRUE(d->decode(r, 0, 0, 7));
  EXPECT_EQ(d->value(0, 0), 2);
}

// Random arrays coded layer by layer with rising thresholds, the way the
// inclusion tree is used; the decoder must learn exactly what was sent and
// read exactly the bits written.
TEST(TagTree, RandomRoundTripOverThresholds) {
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 300; ++iter) {
    const int w = 1 + static_cast<int>(rng() % 13), h = 1 + static_cast<int>(rng() % 9);
    const int max_value = 1 + static_cast<int>(rng() % 12);
    std::vector<int> v(static_cast<size_t>(w * h));
    for (int& x : v) x = static_cast<int>(rng() % (max_value + 1));
    if (iter % 5 == 0) v[rng() % v.size()] = TagTree::kUnknown;  // "never"
    auto enc = TagTree::create(w, h);
    auto dec = TagTree::create(w, h);
    ASSERT_TRUE(enc.ok() && dec.ok());
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) enc->set_value(x, y, v[static_cast<size_t>(y * w + x)]);
    std::vector<uint8_t> bytes;
    PacketBitWriter wr(bytes);
    std::vector<int> thresholds;
    for (int t = 1; t <= max_value + 2; t += 1 + static_cast<int>(rng() % 3)) thresholds.push_back(t);
    for (int t : thresholds)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) enc->encode(wr, x, y, t);
    wr.flush();
    PacketBitReader rd(bytes);
    for (int t : thresholds) {
      for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
          const int value = v[static_cast<size_t>(y * w + x)];
          ASSERT_EQ(dec->decode(rd, x, y, t), value < t) << iter << " " << x << "," << y << " t" << t;
          if (value < t) {
            ASSERT_EQ(dec->value(x, y), value);
          }
        }
      }
    }
    rd.align();
    EXPECT_FALSE(rd.overrun());
    EXPECT_EQ(rd.position(), bytes.size());
  }
}

// The plain decoder of B.10.2, for the tree's own to be held to: each
// decode walks every node from the root to the leaf.
class ReferenceTagTree {
 public:
  ReferenceTagTree(int w, int h) {
    for (;;) {
      widths_.push_back(w);
      starts_.push_back(static_cast<int>(value_.size()));
      value_.resize(value_.size() + static_cast<size_t>(w * h), TagTree::kUnknown);
      if (w == 1 && h == 1) break;
      w = (w + 1) / 2;
      h = (h + 1) / 2;
    }
    low_.assign(value_.size(), 0);
  }
  bool decode(PacketBitReader& in, int x, int y, int threshold) {
    int low = 0;
    for (int l = static_cast<int>(starts_.size()) - 1; l >= 0; --l) {
      const auto i = static_cast<size_t>(starts_[l] + (y >> l) * widths_[l] + (x >> l));
      low = std::max(low, low_[i]);
      while (low < threshold && low < value_[i]) {
        if (in.get_bit()) {
          value_[i] = low;
        } else {
          ++low;
        }
        if (in.overrun()) return false;
      }
      low_[i] = low;
    }
    return value_[static_cast<size_t>(y * widths_[0] + x)] < threshold;
  }
  int value(int x, int y) const { return value_[static_cast<size_t>(y * widths_[0] + x)]; }

  // The plain encoder: the leaves' values, each inner node the minimum of
  // its children, and each encode a walk of every node from the root.
  void set_values(const std::vector<int>& leaves) {
    std::fill(value_.begin(), value_.end(), TagTree::kUnknown);
    std::copy(leaves.begin(), leaves.end(), value_.begin());
    for (size_t l = 0; l + 1 < starts_.size(); ++l) {
      const int w = widths_[l], h = (starts_[l + 1] - starts_[l]) / w;
      for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
          int& parent = value_[static_cast<size_t>(starts_[l + 1] + (y / 2) * widths_[l + 1] + x / 2)];
          parent = std::min(parent, value_[static_cast<size_t>(starts_[l] + y * w + x)]);
        }
      }
    }
    known_.assign(value_.size(), false);
  }
  void encode(PacketBitWriter& out, int x, int y, int threshold) {
    int low = 0;
    for (int l = static_cast<int>(starts_.size()) - 1; l >= 0; --l) {
      const auto i = static_cast<size_t>(starts_[l] + (y >> l) * widths_[l] + (x >> l));
      low = std::max(low, low_[i]);
      while (low < threshold) {
        if (low >= value_[i]) {
          if (!known_[i]) out.put_bit(1);
          known_[i] = true;
          break;
        }
        out.put_bit(0);
        ++low;
      }
      low_[i] = low;
    }
  }

 private:
  std::vector<int> widths_, starts_, value_, low_;
  std::vector<bool> known_;
};

// Random trees coded leaf by leaf in random order, at thresholds that
// mostly rise (the inclusion tree, layer by layer), that are each leaf's
// value plus one (the zero bit-planes, whole) or that fall; the tree's
// encoder, which starts its walks below the nodes already done, writes the
// bits of the plain walk from the root, call after call.
TEST(TagTree, EncodeEqualsThePlainWalkFromTheRoot) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 600; ++iter) {
    const int w = 1 + static_cast<int>(rng() % 19), h = 1 + static_cast<int>(rng() % 13);
    const int max_value = static_cast<int>(rng() % 9);
    std::vector<int> v(static_cast<size_t>(w * h));
    for (int& x : v) x = rng() % 7 == 0 ? TagTree::kUnknown : static_cast<int>(rng() % (max_value + 1));
    auto tree = TagTree::create(w, h);
    ASSERT_TRUE(tree.ok());
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) tree->set_value(x, y, v[static_cast<size_t>(y * w + x)]);
    ReferenceTagTree ref(w, h);
    ref.set_values(v);
    std::vector<uint8_t> got, want;
    PacketBitWriter a(got), b(want);
    const int kind = iter % 3;
    int threshold = 0;
    for (int step = 0; step < 3 * w * h; ++step) {
      const int x = static_cast<int>(rng() % static_cast<unsigned>(w)),
                y = static_cast<int>(rng() % static_cast<unsigned>(h));
      const int value = v[static_cast<size_t>(y * w + x)];
      if (kind == 0) threshold += static_cast<int>(rng() % 4 == 0);
      if (kind == 1) threshold = value == TagTree::kUnknown ? max_value + 1 : value + 1;
      if (kind == 2) threshold = static_cast<int>(rng() % (max_value + 3));
      tree->encode(a, x, y, threshold);
      ref.encode(b, x, y, threshold);
      ASSERT_EQ(got, want) << iter << " step " << step;
    }
    a.flush();
    b.flush();
    ASSERT_EQ(got, want) << iter;
  }
}

// Random bits (any stream a decoder may meet, overruns included) decoded
// by both, leaves in random order at rising thresholds, each leaf's first
// decode either at one threshold or raised one at a time to it (as the
// zero bit-planes once were: the same bits, B.10.2); the same answers,
// values and bits read.
TEST(TagTree, DecodeEqualsThePlainWalkFromTheRoot) {
  std::mt19937 rng(99);
  for (int iter = 0; iter < 400; ++iter) {
    const int w = 1 + static_cast<int>(rng() % 17), h = 1 + static_cast<int>(rng() % 11);
    std::vector<uint8_t> bytes(1 + rng() % 24);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng() % 4 == 0 ? 0xFF : rng());
    auto tree = TagTree::create(w, h);
    ASSERT_TRUE(tree.ok());
    ReferenceTagTree ref(w, h);
    PacketBitReader a(bytes), b(bytes);
    int threshold = 1;
    for (int step = 0; step < 3 * w * h && !a.overrun(); ++step) {
      const int x = static_cast<int>(rng() % static_cast<unsigned>(w)),
                y = static_cast<int>(rng() % static_cast<unsigned>(h));
      threshold += static_cast<int>(rng() % 3 == 0);
      const bool one_call = rng() % 2 == 0;
      bool got = false, want = false;
      if (one_call) {
        got = tree->decode(a, x, y, threshold);
      } else {
        for (int t = 1; t <= threshold && !got && !a.overrun(); ++t) got = tree->decode(a, x, y, t);
      }
      want = ref.decode(b, x, y, threshold);
      ASSERT_EQ(a.overrun(), b.overrun()) << iter << " step " << step;
      if (a.overrun()) break;
      ASSERT_EQ(got, want) << iter << " step " << step;
      ASSERT_EQ(tree->value(x, y), ref.value(x, y)) << iter << " step " << step;
      ASSERT_EQ(a.position(), b.position()) << iter << " step " << step;
      PacketBitReader next_a = a, next_b = b;  // and where each stands in its byte
      ASSERT_EQ(next_a.get_bits(9), next_b.get_bits(9)) << iter << " step " << step;
    }
  }
}

TEST(TagTree, ResetForgetsState) {
  auto t = TagTree::create(3, 2);
  ASSERT_TRUE(t.ok());
  std::vector<uint8_t> a, b;
  for (auto* out : {&a, &b}) {
    t->reset();
    for (int i = 0; i < 6; ++i) t->set_value(i % 3, i / 3, i);
    PacketBitWriter w(*out);
    for (int i = 0; i < 6; ++i) t->encode(w, i % 3, i / 3, 10);
    w.flush();
  }
  EXPECT_EQ(a, b);
}

TEST(TagTree, EmptyAndLimits) {
  auto e = TagTree::create(0, 5);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->width(), 0);
  EXPECT_FALSE(TagTree::create(-1, 2).ok());
  auto big = TagTree::create(1 << 16, 1 << 16);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), ErrorCode::kResourceLimit);
}

}  // namespace
}  // namespace mallat::codec

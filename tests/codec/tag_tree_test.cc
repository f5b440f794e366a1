#include "codec/tier2/tag_tree.h"

#include <gtest/gtest.h>

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

#include "codec/tier2/bit_io.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace mallat::codec {
namespace {

// B.10.1: eight 1 bits make 0xFF; the next byte then holds 7 bits behind a 0.
TEST(PacketBitIo, StuffsAfterFF) {
  std::vector<uint8_t> out;
  PacketBitWriter w(out);
  w.put_bits(0xFF, 8);
  w.put_bits(0x7F, 7);  // fills the stuffed byte: 0x7F
  w.put_bits(0b101, 3);
  w.flush();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], 0xFF);
  EXPECT_EQ(out[1], 0x7F);
  EXPECT_EQ(out[2], 0xA0);

  PacketBitReader r(out);
  EXPECT_EQ(r.get_bits(8), 0xFFu);
  EXPECT_EQ(r.get_bits(7), 0x7Fu);
  EXPECT_EQ(r.get_bits(3), 0b101u);
  r.align();
  EXPECT_EQ(r.position(), 3u);
  EXPECT_FALSE(r.overrun());
}

// A header ending in 0xFF is followed by a 0x00 so the body cannot form a marker.
TEST(PacketBitIo, FlushAfterFFAddsZeroByte) {
  std::vector<uint8_t> out;
  PacketBitWriter w(out);
  w.put_bits(0xFF, 8);
  w.flush();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1], 0x00);
  PacketBitReader r(out);
  EXPECT_EQ(r.get_bits(8), 0xFFu);
  r.align();
  EXPECT_EQ(r.position(), 2u);
  EXPECT_FALSE(r.overrun());
}

// Seven 1 bits and padding give 0xFE: no extra byte.
TEST(PacketBitIo, PaddingWithZeros) {
  std::vector<uint8_t> out;
  PacketBitWriter w(out);
  w.put_bits(0x7F, 7);
  w.flush();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], 0xFE);
  w.flush();  // nothing more
  EXPECT_EQ(out.size(), 1u);
}

TEST(PacketBitIo, ReaderStopsAtEnd) {
  const std::vector<uint8_t> data = {0xAB};
  PacketBitReader r(data);
  EXPECT_EQ(r.get_bits(8), 0xABu);
  EXPECT_FALSE(r.overrun());
  EXPECT_EQ(r.get_bit(), 0);
  EXPECT_TRUE(r.overrun());
  EXPECT_EQ(r.position(), 1u);
}

// put_bits, which puts up to a byte's room at once, writes what putting
// the same bits one by one writes (bits above `count` ignored), over runs
// of ones that make many stuffed bytes.
TEST(PacketBitIo, PutBitsIsBitByBit) {
  std::mt19937 rng(9);
  for (int iter = 0; iter < 300; ++iter) {
    std::vector<uint8_t> at_once, one_by_one;
    PacketBitWriter w(at_once), plain(one_by_one);
    const int n = static_cast<int>(rng() % 80);
    for (int i = 0; i < n; ++i) {
      const int bits = static_cast<int>(rng() % 33);
      const uint32_t v = (rng() % 3 != 0) ? 0xFFFFFFFFu : static_cast<uint32_t>(rng());
      w.put_bits(v, bits);
      for (int b = bits - 1; b >= 0; --b) plain.put_bit(static_cast<int>(v >> b) & 1);
    }
    w.flush();
    plain.flush();
    ASSERT_EQ(at_once, one_by_one) << iter;
  }
}

// The reader's get_bits takes what the byte has left at once: the bits
// get_bit gives one by one, stuffed bits skipped, and the same overrun,
// over random bytes rich in 0xFF.
TEST(PacketBitIo, GetBitsIsBitByBit) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 300; ++iter) {
    std::vector<uint8_t> bytes(rng() % 20);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng() % 3 == 0 ? 0xFF : rng());
    PacketBitReader at_once(bytes), plain(bytes);
    for (int i = 0; i < 40; ++i) {
      const int bits = static_cast<int>(rng() % 33);
      uint32_t v = 0;
      for (int b = 0; b < bits; ++b) v = v << 1 | static_cast<uint32_t>(plain.get_bit());
      ASSERT_EQ(at_once.get_bits(bits), v) << iter << " read " << i;
      ASSERT_EQ(at_once.overrun(), plain.overrun()) << iter << " read " << i;
      ASSERT_EQ(at_once.position(), plain.position()) << iter << " read " << i;
      if (rng() % 7 == 0) {
        at_once.align();
        plain.align();
      }
    }
  }
}

TEST(PacketBitIo, RandomRoundTripNeverMarker) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 200; ++iter) {
    std::vector<std::pair<uint32_t, int>> fields;
    std::vector<uint8_t> out;
    PacketBitWriter w(out);
    const int n = static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) {
      const int bits = static_cast<int>(rng() % 33);
      // Mostly ones, to make many 0xFF bytes.
      uint32_t v = (rng() % 4 != 0) ? 0xFFFFFFFFu : static_cast<uint32_t>(rng());
      if (bits < 32) v &= (1u << bits) - 1;
      fields.emplace_back(v, bits);
      w.put_bits(v, bits);
    }
    w.flush();
    for (size_t i = 0; i + 1 < out.size(); ++i) {
      if (out[i] == 0xFF) {
        ASSERT_LT(out[i + 1], 0x80);
      }
    }
    if (!out.empty()) {
      ASSERT_NE(out.back(), 0xFF);
    }
    PacketBitReader r(out);
    for (auto [v, bits] : fields) ASSERT_EQ(r.get_bits(bits), v);
    r.align();
    EXPECT_FALSE(r.overrun());
    EXPECT_EQ(r.position(), out.size());
  }
}

// Bits written in pieces by unstuffed writers (many 1 bits, so that 0xFF
// bytes come often, at any offset), then joined by a stuffed writer, give
// the bytes of the same bits put on it one by one.
TEST(PacketBitIo, UnstuffedPiecesJoinAsTheBitsPutOneByOne) {
  std::mt19937 rng(5);
  for (int iter = 0; iter < 500; ++iter) {
    std::vector<uint8_t> plain, joined;
    PacketBitWriter one_by_one(plain), join(joined);
    const int pieces = 1 + static_cast<int>(rng() % 5);
    for (int p = 0; p < pieces; ++p) {
      std::vector<uint8_t> bytes;
      PacketBitWriter piece(bytes, false);
      const int bits = static_cast<int>(rng() % 70);
      for (int b = 0; b < bits; ++b) {
        const int bit = rng() % 8 != 0 ? 1 : 0;
        piece.put_bit(bit);
        one_by_one.put_bit(bit);
      }
      EXPECT_EQ(bytes.size() * 8 + static_cast<size_t>(piece.pending_bits()), static_cast<size_t>(bits));
      join.put_unstuffed(bytes, piece.pending(), piece.pending_bits());
    }
    one_by_one.flush();
    join.flush();
    ASSERT_EQ(joined, plain) << iter;
  }
}

}  // namespace
}  // namespace mallat::codec

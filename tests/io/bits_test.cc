#include "io/bits.h"

#include <gtest/gtest.h>

#include <vector>

namespace mallat::io {
namespace {

TEST(Bits, UnpacksKnownPatterns) {
  // 1011 0011 0111 0001 read in threes: 101 100 110 111 000, then 1 spare bit.
  const uint8_t three[] = {0xB3, 0x71};
  std::vector<int32_t> out(5);
  unpack_msb_first(three, 3, 5, out.data());
  EXPECT_EQ(out, (std::vector<int32_t>{5, 4, 6, 7, 0}));
  // 12-bit pair 0xABC, 0xDEF packs as AB CD EF.
  const uint8_t twelve[] = {0xAB, 0xCD, 0xEF};
  std::vector<int32_t> pair(2);
  unpack_msb_first(twelve, 12, 2, pair.data());
  EXPECT_EQ(pair, (std::vector<int32_t>{0xABC, 0xDEF}));
  const uint8_t sixteen[] = {0x12, 0x34};
  unpack_msb_first(sixteen, 16, 1, pair.data());
  EXPECT_EQ(pair[0], 0x1234);  // big-endian
}

TEST(Bits, PackThenUnpackIsExactForEveryWidth) {
  for (int bits = 1; bits <= 31; ++bits) {
    std::vector<int32_t> in(37);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = static_cast<int32_t>((i * 2654435761u) & ((1u << bits) - 1));
    std::vector<uint8_t> packed(packed_bytes(in.size(), bits), 0xFF);
    pack_msb_first(in.data(), 1, bits, static_cast<int64_t>(in.size()), packed.data());
    std::vector<int32_t> out(in.size());
    unpack_msb_first(packed.data(), bits, static_cast<int64_t>(out.size()), out.data());
    EXPECT_EQ(out, in) << bits << " bits";
  }
}

TEST(Bits, PaddingBitsAreZero) {
  const int32_t ones[] = {1, 1, 1};
  uint8_t byte = 0xFF;
  pack_msb_first(ones, 1, 1, 3, &byte);
  EXPECT_EQ(byte, 0xE0);
}

}  // namespace
}  // namespace mallat::io

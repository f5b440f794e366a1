#include "codec/codestream/byte_reader.h"

#include <gtest/gtest.h>

#include "codec/codestream/byte_writer.h"

namespace mallat::codec {
namespace {

TEST(ByteReader, ReadsBigEndian) {
  const uint8_t d[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F};
  ByteReader r(d, 100);
  EXPECT_EQ(r.u8(), 0x01);
  EXPECT_EQ(r.u16(), 0x0203);
  EXPECT_EQ(r.u32(), 0x04050607u);
  EXPECT_EQ(r.u64(), 0x08090A0B0C0D0E0Full);
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.at_end());
  EXPECT_EQ(r.offset(), 115u);
}

TEST(ByteReader, OverrunIsStickyAndReadsZero) {
  const uint8_t d[] = {0xAA, 0xBB, 0xCC};
  ByteReader r(d);
  EXPECT_EQ(r.u16(), 0xAABB);
  EXPECT_EQ(r.u16(), 0);  // only one byte left
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.at_end());
  EXPECT_EQ(r.u8(), 0);
  EXPECT_FALSE(r.ok());
}

TEST(ByteReader, SubReaderIsBoundedAndKeepsOffsets) {
  const uint8_t d[] = {1, 2, 3, 4, 5, 6};
  ByteReader r(d, 10);
  r.skip(1);
  ByteReader s = r.sub(3);
  EXPECT_EQ(s.offset(), 11u);
  EXPECT_EQ(s.u16(), 0x0203);
  EXPECT_EQ(s.u16(), 0);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.u8(), 5);
  ByteReader t = r.sub(5);  // only one byte left
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(t.ok());
  EXPECT_EQ(t.size(), 1u);
}

TEST(ByteReader, BytesNeverPastTheEnd) {
  const uint8_t d[] = {1, 2, 3};
  ByteReader r(d);
  EXPECT_EQ(r.bytes(2).size(), 2u);
  EXPECT_TRUE(r.bytes(2).empty());
  EXPECT_FALSE(r.ok());
}

TEST(ByteReader, CorruptAtNamesWhatAndWhere) {
  Status s = corrupt_at("COD", 47, "code-block width exponent 11 > 10");
  EXPECT_EQ(s.code(), ErrorCode::kCorruptData);
  EXPECT_EQ(s.message(), "COD at byte 47: code-block width exponent 11 > 10");
}

TEST(ByteWriter, WritesAndPatchesBigEndian) {
  ByteWriter w;
  w.u8(0x11);
  w.u16(0x2233);
  w.u32(0);
  w.u64(0x0102030405060708ull);
  w.patch_u32(3, 0xDEADBEEF);
  w.patch_u16(1, 0x4455);
  const std::vector<uint8_t> want = {0x11, 0x44, 0x55, 0xDE, 0xAD, 0xBE, 0xEF, 1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(w.data(), want);
}

}  // namespace
}  // namespace mallat::codec

#include "codec/codestream/byte_writer.h"

#include <algorithm>
#include <cassert>

namespace mallat::codec {

void ByteWriter::u16(uint16_t v) {
  buf_.push_back(static_cast<uint8_t>(v >> 8));
  buf_.push_back(static_cast<uint8_t>(v));
}

void ByteWriter::u32(uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) buf_.push_back(static_cast<uint8_t>(v >> shift));
}

void ByteWriter::u64(uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) buf_.push_back(static_cast<uint8_t>(v >> shift));
}

void ByteWriter::patch_u16(size_t at, uint16_t v) {
  assert(at + 2 <= buf_.size());
  buf_[at] = static_cast<uint8_t>(v >> 8);
  buf_[at + 1] = static_cast<uint8_t>(v);
}

void ByteWriter::patch_u32(size_t at, uint32_t v) {
  assert(at + 4 <= buf_.size());
  for (int i = 0; i < 4; ++i) buf_[at + i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}

void ByteWriter::patch_bytes(size_t at, std::span<const uint8_t> b) {
  assert(at + b.size() <= buf_.size());
  std::copy(b.begin(), b.end(), buf_.begin() + static_cast<std::ptrdiff_t>(at));
}

}  // namespace mallat::codec

#include "codec/tier2/bit_io.h"

#include <algorithm>

namespace mallat::codec {

void PacketBitWriter::emit_byte() {
  const auto b = static_cast<uint8_t>(byte_);
  out_.push_back(b);
  byte_ = 0;
  used_ = 0;
  free_ = b == 0xFF && stuffed_ ? 7 : 8;  // B.10.1: bit stuffing after 0xFF
}

void PacketBitWriter::put_unstuffed(std::span<const uint8_t> bytes, uint32_t pending, int pending_bits) {
  // A byte's eight bits at once: its first into the byte being filled,
  // which they end, the rest into the next (which they end too where it
  // is stuffed and they are seven), as put_bits would put them.
  for (const uint8_t b : bytes) {
    const int n = free_ - used_;  // 1..8
    byte_ = byte_ << n | (uint32_t{b} >> (8 - n));
    emit_byte();
    used_ = 8 - n;
    byte_ = b & ((1u << used_) - 1);
    if (used_ == free_) emit_byte();
  }
  put_bits(pending, pending_bits);
}

void PacketBitWriter::put_bits(uint32_t value, int count) {
  // As many bits at once as the byte has room for (at most 8), so a byte
  // is emitted, stuffed or not, exactly where bit by bit would emit it.
  while (count > 0) {
    const int n = std::min(count, free_ - used_);
    byte_ = byte_ << n | ((value >> (count - n)) & ((1u << n) - 1));
    used_ += n;
    count -= n;
    if (used_ == free_) emit_byte();
  }
}

void PacketBitWriter::flush() {
  if (used_ > 0) {
    byte_ <<= free_ - used_;
    emit_byte();
  }
  if (!out_.empty() && out_.back() == 0xFF && free_ == 7) {
    out_.push_back(0x00);
    free_ = 8;
  }
}

void PacketBitReader::load_byte() {
  if (pos_ >= data_.size()) {
    overrun_ = true;
    byte_ = 0;
    left_ = 8;
    last_was_ff_ = false;
    return;
  }
  const uint8_t b = data_[pos_++];
  left_ = last_was_ff_ ? 7 : 8;  // B.10.1: the stuffed bit is skipped
  byte_ = b;
  last_was_ff_ = b == 0xFF;
}

uint32_t PacketBitReader::get_bits(int count) {
  // As many bits at once as the byte has left: the bits get_bit would give
  // one by one, the stuffed bit after a 0xFF skipped as load_byte skips it.
  uint32_t v = 0;
  while (count > 0) {
    if (left_ == 0) load_byte();
    const int n = std::min(count, left_);
    left_ -= n;
    v = v << n | ((byte_ >> left_) & ((1u << n) - 1));
    count -= n;
  }
  return v;
}

void PacketBitReader::align() {
  left_ = 0;
  if (last_was_ff_) {
    if (pos_ >= data_.size()) {
      overrun_ = true;
    } else {
      ++pos_;
    }
    last_was_ff_ = false;
  }
}

}  // namespace mallat::codec

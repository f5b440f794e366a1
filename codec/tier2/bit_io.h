// B.10.1: the bit packing of packet headers. Bits go most significant first
// into bytes; after a byte of value 0xFF the next byte carries only 7 bits
// (its most significant bit is a stuffed 0), so that no marker code (0xFF90
// and above) can appear inside a header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace mallat::codec {

// Appends packet-header bits to a byte vector. Unstuffed (stuffed false),
// it packs 8 bits to every byte: a piece of a header coded apart (one
// subband's code-blocks of a packet, on a thread of their own), which the
// header's writer takes later (put_unstuffed), stuffing it as it would have
// had the bits been put there one by one.
class PacketBitWriter {
 public:
  explicit PacketBitWriter(std::vector<uint8_t>& out, bool stuffed = true) : out_(out), stuffed_(stuffed) {}

  // Inline: a packet header is written a bit at a time (B.10), several bits
  // for each code-block of a precinct, in every sizing of rate control.
  void put_bit(int bit) {
    byte_ = byte_ << 1 | static_cast<uint32_t>(bit & 1);
    if (++used_ == free_) emit_byte();
  }
  // The low `count` bits of value, most significant first; count in 0..32.
  void put_bits(uint32_t value, int count);
  // B.10.1: end the header on a byte boundary, padding with 0 bits. A header
  // whose last byte is 0xFF gets one more byte (0x00), so that the packet body
  // that follows cannot form a marker with it.
  void flush();

  // Unstuffed: the bits not yet in a whole byte (the last `pending_bits`
  // of pending()), which the piece ends with.
  uint32_t pending() const { return byte_; }
  int pending_bits() const { return used_; }
  // The bits of a piece an unstuffed writer wrote: its bytes, then its
  // pending bits.
  void put_unstuffed(std::span<const uint8_t> bytes, uint32_t pending, int pending_bits);

 private:
  void emit_byte();

  std::vector<uint8_t>& out_;
  bool stuffed_ = true;
  uint32_t byte_ = 0;   // bits gathered for the next byte
  int free_ = 8;        // bits still free in it (7 after a 0xFF)
  int used_ = 0;        // bits put into it
};

// Reads packet-header bits from a byte span. Never reads past the span: a
// read beyond it returns 0 bits and sets a sticky overrun flag that callers
// check once per syntax element group.
class PacketBitReader {
 public:
  explicit PacketBitReader(std::span<const uint8_t> data) : data_(data) {}

  // Inline: a packet header is read a bit at a time (B.10), several bits
  // for each code-block of a precinct.
  int get_bit() {
    if (left_ == 0) load_byte();
    --left_;
    return static_cast<int>(byte_ >> left_) & 1;
  }
  // `count` bits (0..32), most significant first.
  uint32_t get_bits(int count);
  // B.10.1: skip to the next byte boundary; after a 0xFF byte also skip the
  // stuffed byte that follows it.
  void align();

  bool overrun() const { return overrun_; }
  // Bytes consumed so far (after align(): the header length).
  size_t position() const { return pos_; }

 private:
  void load_byte();

  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  uint32_t byte_ = 0;
  int left_ = 0;           // bits left in byte_
  bool last_was_ff_ = false;
  bool overrun_ = false;
};

}  // namespace mallat::codec

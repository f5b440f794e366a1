// The HT cleanup pass's bit streams (15444-15 Annex C) read the fast way,
// for entropy/ht/cpu/cleanup_decoder_kernel.h: MagSgn and VLC from copies with the stuffed
// bits taken out (8 bytes at a time where none of them can be stuffed, else
// byte by byte), and MEL through a 64-bit accumulator. Same bits as the
// plain readers of entropy/ht/bit_streams.h (the reference decoder's). Internal.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "entropy/ht/bit_streams.h"

namespace mallat::entropy::ht::fast {

inline constexpr uint64_t kByteLows = 0x0101010101010101u;
inline constexpr uint64_t kByteHighs = 0x8080808080808080u;

// 8 bytes from p, p[0] lowest.
inline uint64_t load_le64(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  return w;
}

// The high bit of each byte of w that is 0xFF (exact in the lowest such
// byte; above it a byte may be flagged wrongly, which only matters to a
// caller that looks past the first flag, and none does).
inline uint64_t ff_bytes(uint64_t w) { return ((~w) - kByteLows) & w & kByteHighs; }

// Masks of the low n bytes, 1 <= n <= 8.
inline uint64_t low_bytes(int n) { return n >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1; }

// MagSgn: forward, fill 0xFF, the MSB after a 0xFF byte dropped (as
// ht::ForwardReader), read from a copy of the stream with the stuffed bits
// taken out (`destuff`, once per segment): the next bits at any position
// are then one unaligned load, with no refill to test for, and a vector
// decoder can fetch several samples' bits at their own positions.
class ForwardReader {
 public:
  // Bytes a segment's MagSgn stream of `size` bytes needs.
  static size_t buffer_size(size_t size) { return size + kPadding; }

  // `flat` holds buffer_size(size) bytes.
  ForwardReader(const uint8_t* data, size_t size, uint8_t* flat) : flat_(flat) { destuff(data, size); }

  // The next 57 bits or more, first bit lowest (every read may take 57).
  uint64_t bits() const { return load_le64(flat_ + byte_at(position_)) >> (position_ & 7); }
  void advance(int n) { position_ += static_cast<uint64_t>(n); }
  // The next n <= 56 bits, taken.
  uint64_t take(int n) {
    const uint64_t v = low_bits(bits(), n);
    advance(n);
    return v;
  }
  uint64_t position() const { return position_; }
  const uint8_t* flat() const { return flat_; }
  // The byte a read at bit `position` starts at: past the stream's bits
  // (where the fill gives 1s) the first byte of all 1s, so a corrupt
  // segment's reads stay in the buffer.
  uint64_t byte_at(uint64_t position) const { return std::min(position >> 3, ones_); }

 private:
  static constexpr size_t kPadding = 24;

  void destuff(const uint8_t* p, size_t size) {
    const uint8_t* end = p + size;
    uint8_t* o = flat_;
    uint64_t acc = 0;  // nb < 8 bits not yet written
    int nb = 0;
    bool stuff = false;
    while (p < end) {
      if (!stuff && end - p >= 8) {
        const uint64_t w = load_le64(p);
        if (ff_bytes(w) == 0) {  // no 0xFF: 8 bytes of 8 bits each
          const uint64_t out = acc | w << nb;
          std::memcpy(o, &out, 8);
          acc = nb > 0 ? w >> (64 - nb) : 0;
          o += 8;
          p += 8;
          continue;
        }
      }
      const uint8_t byte = *p++;
      const int count = stuff ? 7 : 8;
      acc |= low_bits(byte, count) << nb;
      nb += count;
      stuff = byte == 0xFF;
      if (nb >= 8) {
        *o++ = static_cast<uint8_t>(acc);
        acc >>= 8;
        nb -= 8;
      }
    }
    // The fill's 1s above the last bits, then whole bytes of them.
    *o++ = static_cast<uint8_t>(acc | (~uint64_t{0} << nb));
    ones_ = static_cast<uint64_t>(o - flat_);
    std::memset(o, 0xFF, kPadding - 1);
  }

  uint8_t* flat_;
  uint64_t position_ = 0;
  uint64_t ones_ = 0;
};

// VLC: backward from `end` down to `begin`, fill 0; a byte whose low 7 bits
// are 1 after a byte above 0x8F carries 7 bits (as ht::BackwardReader).
// Read from a copy in reading order with the stuffed bits taken out
// (`destuff`, once per segment), through an accumulator that `refill` tops
// up to 56 bits or more without a branch: one refill serves a quad pair's
// two codewords and UVLC (at most 7 + 7 + 16 bits). Past the stream's end
// (a corrupt segment) reads give the fill's zeros from a padding long
// enough for `refills` refills, after which `clamp` brings them back into
// it: a refill need not test where it reads.
class BackwardReader {
 public:
  // Bytes a segment's VLC stream of `size` bytes needs.
  static size_t buffer_size(size_t size, size_t refills) { return size + padding(refills); }

  // acc, bits: the stream's first bits (from the locator byte); `flat`
  // holds buffer_size(end - begin, refills) bytes.
  BackwardReader(const uint8_t* begin, const uint8_t* end, uint64_t acc, int bits, bool above_8f, uint8_t* flat,
                 size_t refills) {
    destuff(begin, end, acc, bits, above_8f, flat, refills);
    next_ = flat;
    refill();
  }

  // At least 56 valid bits, first bit lowest.
  void refill() {
    const uint32_t bits = bits_ & 63;
    acc_ |= load_le64(next_) << bits;
    next_ += (63 - bits) >> 3;
    bits_ = bits | 56;
  }
  // Reads past the stream's end back to its fill's first byte, so that the
  // next `refills` refills (each moving at most 7 bytes on) stay in the
  // padding.
  void clamp() { next_ = std::min(next_, zeros_); }
  // The bits after the last refill, less those taken since.
  uint64_t look() const { return acc_; }
  void advance(int n) {
    acc_ >>= n;
    bits_ -= static_cast<uint32_t>(n);
  }
  // Takes n % 64 bits, n's low 6 bits without a mask (x86's variable
  // shifts read the count's low 6 bits only; the count of valid bits is
  // kept modulo 64, in 0..63 in truth).
  void advance_low6(uint32_t n) {
    acc_ >>= n & 63;
    bits_ -= n;
  }

 private:
  // The fill's zeros after the last byte: a refill loads 8 bytes and moves
  // at most 7 on.
  static size_t padding(size_t refills) { return 7 * refills + 16; }

  void destuff(const uint8_t* begin, const uint8_t* p, uint64_t acc, int nb, bool above_8f, uint8_t* flat,
               size_t refills) {
    uint8_t* o = flat;
    while (p > begin) {
      if (p - begin >= 8) {
        // The 8 bytes below p, the one just below p lowest. Only a byte with
        // its low 7 bits all 1 can be a stuffed one: without such, 8 bits
        // each.
        const uint64_t w = __builtin_bswap64(load_le64(p - 8));
        if (ff_bytes(w | kByteHighs) == 0) {
          const uint64_t out = acc | w << nb;
          std::memcpy(o, &out, 8);
          acc = nb > 0 ? w >> (64 - nb) : 0;
          o += 8;
          p -= 8;
          above_8f = p[0] > 0x8F;
          continue;
        }
      }
      const uint8_t byte = *--p;
      const int count = above_8f && (byte & 0x7F) == 0x7F ? 7 : 8;
      acc |= low_bits(byte, count) << nb;
      nb += count;
      above_8f = byte > 0x8F;
      while (nb >= 8) {
        *o++ = static_cast<uint8_t>(acc);
        acc >>= 8;
        nb -= 8;
      }
    }
    // The last bits, then the fill's 0s.
    *o++ = static_cast<uint8_t>(acc);
    zeros_ = o;
    std::memset(o, 0, padding(refills) - 1);
  }

  uint64_t acc_ = 0;
  uint32_t bits_ = 0;  // valid bits in acc_, modulo 64
  const uint8_t* next_ = nullptr;   // the next byte to load
  const uint8_t* zeros_ = nullptr;  // where the fill begins
};

// MEL (as ht::MelDecoder): MSB first through an accumulator whose first bit
// is its top bit; the segment's last byte's low nibble read as 1s; past the
// end 1s. Decoded ahead into a word of events (Annex C's MEL symbols
// expanded: a run of 2^e zeros, or r zeros and a 1), first event lowest,
// under a sentinel 1 just above the last: the VLC pass takes an event with
// a shift, without a branch, and asks for more when fewer than a quad
// pair's three are left (the word is then below 8). The events are those
// ht::MelDecoder::decode gives, in order, whatever was decoded ahead.
class MelDecoder {
 public:
  MelDecoder(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}

  // No events yet: the first refill gives them.
  static constexpr uint64_t kNoEvents = 1;
  static constexpr int kRefillEvents = 48;

  // `events` (a word as above) with at least kRefillEvents events. The
  // decoder's state is in locals for the loop (as members it would go to
  // memory at every symbol).
  [[gnu::noinline]] uint64_t refill(uint64_t events) {
    int count = 63 - std::countl_zero(events);
    events ^= uint64_t{1} << count;
    uint64_t acc = acc_;
    int bits = bits_, k = k_, zeros = zeros_;
    bool one = one_;
    // The rest of the last symbol, then whole symbols: each symbol's events
    // (zeros: the word's bits above `count` are 0) where they fit, else the
    // word filled to 63 and the rest kept.
    for (;;) {
      if (zeros + (one ? 1 : 0) > 63 - count) {
        zeros -= 63 - count;
        count = 63;
        break;
      }
      count += zeros;
      events |= uint64_t{one} << count;
      count += one ? 1 : 0;
      zeros = 0;
      one = false;
      if (count >= kRefillEvents) break;
      decode_symbol(acc, bits, k, zeros, one);
    }
    acc_ = acc;
    bits_ = bits;
    k_ = k;
    zeros_ = zeros;
    one_ = one;
    return events | uint64_t{1} << count;
  }

 private:
  // The next symbol's zeros, and whether a 1 follows them (15444-15
  // Annex C.2's MEL decoding, k the state, E[k] its exponent).
  [[gnu::always_inline]] void decode_symbol(uint64_t& acc, int& bits, int& k, int& zeros, bool& one) {
    if (bits < 8) refill_bits(acc, bits);
    const int e = kMelExponents[k];
    if (acc >> 63) {
      // A run of 2^e zeros.
      acc <<= 1;
      bits -= 1;
      k += k < 12 ? 1 : 0;
      zeros = 1 << e;
      one = false;
      return;
    }
    // e bits of run length (below the 0 just read), then a 1.
    zeros = static_cast<int>(acc >> (63 - e));
    one = true;
    acc <<= 1 + e;
    bits -= 1 + e;
    k -= k > 0 ? 1 : 0;
  }

  // mel_exponent(k) for each k.
  static constexpr uint8_t kMelExponents[13] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5};
  static_assert(kMelExponents[12] == mel_exponent(12) && kMelExponents[10] == mel_exponent(10));

  void refill_bits(uint64_t& acc, int& bits) {
    while (bits <= 56) {
      uint8_t byte = 0xFF;
      if (p_ < end_) {
        byte = *p_++;
        if (p_ == end_) byte |= 0x0F;
      }
      const int count = stuff_ ? 7 : 8;
      acc |= low_bits(byte, count) << (64 - bits - count);
      bits += count;
      stuff_ = byte == 0xFF;
    }
  }
  const uint8_t* p_;
  const uint8_t* end_;
  uint64_t acc_ = 0;
  int bits_ = 0;
  int k_ = 0;
  int zeros_ = 0;     // zeros of the last symbol not yet in a word
  bool one_ = false;  // and a 1 after them
  bool stuff_ = false;
};

}  // namespace mallat::entropy::ht::fast

// The bit streams of the HT block coder (15444-15 Annex C): the MEL run
// coder, the forward-growing streams (MagSgn, SigProp) and the
// backward-growing ones (VLC, MagRef), each with its bit-stuffing rule so
// that no two bytes read as a marker. Readers never read outside the bytes
// they are given: past the end they supply the standard's fill (1s for
// MagSgn and MEL, 0s for the others). The writers put their bytes into a
// growing std::vector, or on the device into a bounded buffer (BoundedBytes);
// the readers run on both (host_device.h). Internal to the HT coder.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/host_device.h"
#include "common/plane_view.h"

namespace mallat::entropy::ht {

// MEL exponent of state k (Annex C, MEL decoding: 0 0 0 1 1 1 2 2 2 3 3 4
// 5 for k = 0..12): a run of 2^e zero events is one bit.
MALLAT_HD constexpr int mel_exponent(int k) { return k < 11 ? k / 3 : k - 7; }

// A byte sink of fixed capacity with std::vector's few calls the writers
// make: bytes past the capacity are not written but remembered as an
// overflow, which the caller checks once at the end.
class BoundedBytes {
 public:
  MALLAT_HD BoundedBytes(uint8_t* data, uint32_t capacity) : data_(data), capacity_(capacity) {}
  MALLAT_HD void push_back(uint8_t byte) {
    if (size_ < capacity_) {
      data_[size_++] = byte;
    } else {
      overflow_ = true;
    }
  }
  MALLAT_HD void pop_back() { --size_; }
  MALLAT_HD void clear() { size_ = 0; }
  MALLAT_HD uint32_t size() const { return size_; }
  MALLAT_HD uint8_t* data() const { return data_; }
  MALLAT_HD bool overflow() const { return overflow_; }
  MALLAT_HD void fail() { overflow_ = true; }

 private:
  uint8_t* data_;
  uint32_t capacity_;
  uint32_t size_ = 0;
  bool overflow_ = false;
};

// ---- writers ---------------------------------------------------------------

// Bytes written most significant bit first (MEL) or least significant bit
// first (the others) into a growing buffer.
template <class Out>
class BasicMelEncoder {
 public:
  MALLAT_HD explicit BasicMelEncoder(Out& out) : out_(out) { out_.clear(); }

  // One event: true when the quad (or quad pair) is significant.
  MALLAT_HD void encode(bool event) {
    if (!event) {
      if (++run_ >= (1 << mel_exponent(k_))) {
        emit(1);
        run_ = 0;
        if (k_ < 12) ++k_;
      }
      return;
    }
    emit(0);
    for (int t = mel_exponent(k_); t > 0;) emit((run_ >> --t) & 1);
    run_ = 0;
    if (k_ > 0) --k_;
  }

  // An unfinished run ends with a 1 (a full run: the decoder stops short
  // of it). Gives the last byte's bits (left-aligned) and the mask of the
  // bits that matter in it (a stuffed MSB included); nothing is written for
  // it yet, since it may be fused with the VLC stream's last byte.
  MALLAT_HD void finish(uint8_t& last, uint8_t& mask) {
    if (run_ > 0) emit(1);
    last = static_cast<uint8_t>(tmp_ << remaining_);
    mask = static_cast<uint8_t>(0xFF << remaining_);
  }
  MALLAT_HD const Out& bytes() const { return out_; }

 private:
  MALLAT_HD void emit(int bit) {
    tmp_ = (tmp_ << 1) | bit;
    if (--remaining_ == 0) {
      out_.push_back(static_cast<uint8_t>(tmp_));
      // After 0xFF the next byte carries 7 bits: its MSB is a stuffed 0.
      remaining_ = tmp_ == 0xFF ? 7 : 8;
      tmp_ = 0;
    }
  }
  Out& out_;
  int k_ = 0, run_ = 0;
  uint32_t tmp_ = 0;
  int remaining_ = 8;
};
using MelEncoder = BasicMelEncoder<std::vector<uint8_t>>;

MALLAT_HD inline uint64_t low_bits(uint64_t v, int n) { return v & ((uint64_t{1} << n) - 1); }

// A stream written least significant bit first through a 64-bit
// accumulator; `Stream::emit_byte` takes whole bytes off it, by its own
// stuffing rule.
template <class Stream, class Out>
class BitWriter {
 public:
  // The low `n` bits of v, n <= 32.
  MALLAT_HD void put(uint64_t v, int n) {
    acc_ |= low_bits(v, n) << bits_;
    bits_ += n;
    while (bits_ >= 8) static_cast<Stream*>(this)->emit_byte();
  }
  MALLAT_HD int pending_bits() const { return bits_; }
  MALLAT_HD uint8_t pending() const { return static_cast<uint8_t>(acc_); }
  MALLAT_HD Out& bytes() { return out_; }

 protected:
  MALLAT_HD BitWriter(Out& out, uint64_t acc, int bits) : out_(out), acc_(acc), bits_(bits) { out_.clear(); }
  MALLAT_HD void take(uint8_t byte, int n) {
    out_.push_back(byte);
    acc_ >>= n;
    bits_ -= n;
  }
  Out& out_;
  uint64_t acc_;
  int bits_;
};

// MagSgn and SigProp: least significant bit first; after a 0xFF byte the
// next byte's MSB is a stuffed 0.
template <class Out>
class BasicForwardWriter : public BitWriter<BasicForwardWriter<Out>, Out> {
  using Base = BitWriter<BasicForwardWriter<Out>, Out>;

 protected:
  using Base::acc_, Base::bits_, Base::out_, Base::take;

 public:
  MALLAT_HD explicit BasicForwardWriter(Out& out) : Base(out, 0, 0) {}
  MALLAT_HD bool after_ff() const { return stuff_; }

  MALLAT_HD void emit_byte() {
    const auto byte = static_cast<uint8_t>(acc_ & (stuff_ ? 0x7F : 0xFF));
    take(byte, stuff_ ? 7 : 8);
    stuff_ = byte == 0xFF;
  }

  // MagSgn's termination: the last byte padded with 1s (the decoder's fill
  // past the end), and dropped if that makes it 0xFF, as is a final 0xFF
  // byte: a segment does not end in 0xFF, and the fill supplies it.
  MALLAT_HD void finish_with_ones() {
    while (bits_ >= 8) emit_byte();
    if (bits_ > 0) {
      const int capacity = stuff_ ? 7 : 8;
      const auto byte = static_cast<uint8_t>((acc_ | (0xFFu << bits_)) & ((1u << capacity) - 1));
      if (byte != 0xFF) out_.push_back(byte);
      bits_ = 0;
      acc_ = 0;
    } else if (stuff_) {
      out_.pop_back();
    }
  }

 protected:
  bool stuff_ = false;
};

// VLC and MagRef: bytes in reverse order (the first one written ends the
// segment), least significant bit first; after a byte above 0x8F, a byte
// whose low 7 bits are all 1 carries only those 7 (its MSB a stuffed 0).
template <class Out>
class BasicBackwardWriter : public BitWriter<BasicBackwardWriter<Out>, Out> {
  using Base = BitWriter<BasicBackwardWriter<Out>, Out>;

 protected:
  using Base::acc_, Base::bits_, Base::take;

 public:
  // `out` receives the bytes in writing order (reverse of the stream's);
  // the stream starts with `initial_count` bits already in its first byte.
  MALLAT_HD BasicBackwardWriter(Out& out, uint32_t initial_bits, int initial_count)
      : Base(out, initial_bits, initial_count) {}

  MALLAT_HD void emit_byte() {
    const bool stuffed = above_8f_ && (acc_ & 0x7F) == 0x7F;
    const auto byte = static_cast<uint8_t>(stuffed ? 0x7F : acc_);
    take(byte, stuffed ? 7 : 8);
    above_8f_ = byte > 0x8F;
  }

  // Writes the pending bits as a byte of their own (zeros above them).
  MALLAT_HD void flush() {
    if (bits_ > 0) take(static_cast<uint8_t>(acc_), bits_);
  }

 protected:
  // The stream starts as if after a byte above 0x8F (VLC: the interface
  // locator byte; MagRef: the standard's initial state).
  bool above_8f_ = true;
};

using ForwardWriter = BasicForwardWriter<std::vector<uint8_t>>;
using BackwardWriter = BasicBackwardWriter<std::vector<uint8_t>>;

// ---- readers ---------------------------------------------------------------

// A stream read least significant bit first through a 64-bit accumulator
// that `Stream::refill` tops up to more than 56 bits.
template <class Stream>
class BitReader {
 public:
  // At least 32 valid bits, first bit lowest.
  MALLAT_HD uint64_t look() {
    if (bits_ < 32) static_cast<Stream*>(this)->refill();
    return acc_;
  }
  MALLAT_HD void advance(int n) {
    acc_ >>= n;
    bits_ -= n;
  }
  // n <= 32.
  MALLAT_HD uint64_t read(int n) {
    const uint64_t v = low_bits(look(), n);
    advance(n);
    return v;
  }

 protected:
  MALLAT_HD BitReader(uint64_t acc, int bits) : acc_(acc), bits_(bits) {}
  MALLAT_HD void add(uint8_t byte, int n) {
    acc_ |= low_bits(byte, n) << bits_;
    bits_ += n;
  }
  uint64_t acc_;
  int bits_;
};

// MagSgn (fill 0xFF) and SigProp (fill 0): forward, the MSB after a 0xFF
// byte dropped.
class ForwardReader : public BitReader<ForwardReader> {
 public:
  MALLAT_HD ForwardReader(const uint8_t* data, size_t size, uint8_t fill)
      : BitReader(0, 0), p_(data), end_(data + size), fill_(fill) {}
  MALLAT_HD void refill() {
    while (bits_ <= 56) {
      const uint8_t byte = p_ < end_ ? *p_++ : fill_;
      add(byte, stuff_ ? 7 : 8);
      stuff_ = byte == 0xFF;
    }
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  uint8_t fill_;
  bool stuff_ = false;
};

// VLC and MagRef: backward from `end` down to `begin`, fill 0.
class BackwardReader : public BitReader<BackwardReader> {
 public:
  // Reads [begin, end) from end - 1 down. `acc`/`bits` are bits already
  // taken from the byte at `end` (VLC: the locator byte's upper nibble), and
  // `above_8f` whether that byte counts as above 0x8F for unstuffing.
  MALLAT_HD BackwardReader(const uint8_t* begin, const uint8_t* end, uint64_t acc, int bits, bool above_8f)
      : BitReader(acc, bits), begin_(begin), p_(end), above_8f_(above_8f) {}
  MALLAT_HD void refill() {
    while (bits_ <= 56) {
      const uint8_t byte = p_ > begin_ ? *--p_ : 0;
      add(byte, above_8f_ && (byte & 0x7F) == 0x7F ? 7 : 8);
      above_8f_ = byte > 0x8F;
    }
  }

 private:
  const uint8_t* begin_;
  const uint8_t* p_;
  bool above_8f_;
};

// MEL: forward from the start of the MEL+VLC part of the cleanup segment,
// MSB first, a 0xFF byte's successor carrying 7 bits; the segment's last
// byte but one shares its low nibble with the interface locator word, read
// as 1s (OpenJPH and the standard's decoder do the same); past the end 1s.
class MelDecoder {
 public:
  MALLAT_HD MelDecoder(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}

  MALLAT_HD bool decode() {
    for (;;) {
      if (zeros_ > 0) {
        --zeros_;
        return false;
      }
      if (one_) {
        one_ = false;
        return true;
      }
      const int e = mel_exponent(k_);
      if (bit()) {
        zeros_ = 1 << e;
        if (k_ < 12) ++k_;
      } else {
        int run = 0;
        for (int t = 0; t < e; ++t) run = run << 1 | bit();
        zeros_ = run;
        one_ = true;
        if (k_ > 0) --k_;
      }
    }
  }

 private:
  MALLAT_HD int bit() {
    if (bits_ == 0) {
      uint8_t byte = 0xFF;
      if (p_ < end_) {
        byte = *p_++;
        if (p_ == end_) byte |= 0x0F;
      }
      bits_ = stuff_ ? 7 : 8;
      cur_ = byte;
      stuff_ = byte == 0xFF;
    }
    return (cur_ >> --bits_) & 1;
  }
  const uint8_t* p_;
  const uint8_t* end_;
  int k_ = 0;
  int zeros_ = 0;
  bool one_ = false;
  uint32_t cur_ = 0;
  int bits_ = 0;
  bool stuff_ = false;
};

// Where a cleanup segment's streams lie (Annex C): MagSgn in the first
// Pcup bytes, MEL forward from Pcup over Scup - 1 bytes, VLC backward from
// the byte before the last, starting in that byte's high nibble (3 bits of
// it when they are all 1: unstuffing, the last byte counting as above
// 0x8F). Scup is the interface locator: its high 8 bits in the last byte,
// its low 4 in the low nibble of the byte before.
struct CleanupLayout {
  int64_t pcup = 0, scup = 0;
  uint64_t vlc_bits = 0;  // the locator byte's VLC bits, first lowest
  int vlc_count = 0;
  bool vlc_above_8f = false;
};

// false when the segment cannot be a cleanup segment (Lcup < 2, Scup
// below 2, beyond Lcup or beyond 4079, whose high byte would be 0xFF).
MALLAT_HD inline bool cleanup_layout(const uint8_t* segment, int64_t lcup, CleanupLayout& layout) {
  if (lcup < 2) return false;
  const uint8_t locator = segment[static_cast<size_t>(lcup - 2)];
  layout.scup = segment[static_cast<size_t>(lcup - 1)] << 4 | (locator & 0xF);
  if (layout.scup < 2 || layout.scup > lcup || layout.scup > 4079) return false;
  layout.pcup = lcup - layout.scup;
  const int nibble = locator >> 4;
  layout.vlc_count = (nibble & 7) == 7 ? 3 : 4;
  layout.vlc_bits = static_cast<uint64_t>(nibble & ((1 << layout.vlc_count) - 1));
  layout.vlc_above_8f = (locator | 0x0F) > 0x8F;
  return true;
}

inline bool cleanup_layout(std::span<const uint8_t> segment, CleanupLayout& layout) {
  return cleanup_layout(segment.data(), static_cast<int64_t>(segment.size()), layout);
}

// A block all zero: what a segment that cannot be decoded gives.
inline void clear(PlaneView<int32_t> out) {
  for (int64_t y = 0; y < out.height; ++y) std::fill(out.row(y), out.row(y) + out.width, 0);
}

}  // namespace mallat::entropy::ht

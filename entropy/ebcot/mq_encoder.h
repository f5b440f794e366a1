// The MQ arithmetic encoder of Annex C.2, with the registers of Table C.1
// (A, C, CT, and BP pointing at the byte B). Small and copyable on purpose:
// the Tier-1 passes copy it into locals so A, C and CT live in registers.
// Host and device code (host_device.h): the shared Tier-1 encoder
// (entropy/ebcot/shared_encoder.h) runs it on the GPU too, bounded by its output slot.
#pragma once

#include <cstddef>
#include <cstdint>

#include "entropy/host_device.h"
#include "entropy/ebcot/mq_states.h"

namespace mallat::entropy {

// The registers at the end of a pass that does not end its segment, for
// shortest_truncation(); offsets count from the encoder's buffer.
struct MqTruncationPoint {
  size_t b_offset = 0;  // where B is
  uint32_t c = 0, a = 0;
  int ct = 0;
  uint8_t b = 0;        // B then; a later carry may still add 1 to it
};

// kBounded: the coder writes only below `end` (set after init); a byte that
// does not fit sets `overflow` and is dropped, so a fixed output slot (the
// GPU's) is never overrun. The CPU coder grows its buffer between passes
// instead and uses the unbounded MqEncoder, whose code is as before.
template <bool kBounded>
struct BasicMqEncoder {
  using TruncationPoint = MqTruncationPoint;

  uint32_t a = 0x8000;
  uint32_t c = 0;
  int ct = 12;
  uint8_t* bp = nullptr;     // the byte B; the segment starts at bp + 1 after init
  // B's value (*bp), kept so that BYTEOUT tests it without reading it back
  // (on the GPU a thread waits for every load it uses).
  uint8_t b = 0;
  uint8_t* start = nullptr;  // first byte of the codeword segment
  uint8_t* end = nullptr;    // kBounded: one past the last writable byte
  bool overflow = false;     // kBounded: a byte did not fit before `end`

  // C.2.8 INITENC: the segment's first byte goes to `segment_start`; the byte
  // before it must be readable (it is the previous segment's last byte, or a
  // zero placeholder) and is never changed, because no carry can reach it.
  MALLAT_HD void init(uint8_t* segment_start) {
    a = 0x8000;
    c = 0;
    start = segment_start;
    bp = segment_start - 1;
    b = *bp;
    ct = b == 0xFF ? 13 : 12;
  }

  // C.2.2 ENCODE, with CODEMPS (C.2.4) and CODELPS (C.2.3); `state` is the
  // context's byte 2 * I + MPS.
  MALLAT_HD inline void encode(uint8_t& state, uint32_t d) {
    const MqState& s = MALLAT_T1_TABLE(kMqStates)[state];
    const uint32_t qe = s.qe;
    const uint32_t mps = s.mps;
    a -= qe;
    if (d == mps) {
      if (a & 0x8000) {
        c += qe;
        return;
      }
      if (a < qe) {
        a = qe;
      } else {
        c += qe;
      }
      state = s.next_mps;
    } else {
      if (a < qe) {
        c += qe;
      } else {
        a = qe;
      }
      state = s.next_lps;
    }
    renorm();
  }

  // The same coding as encode() without a branch on the decision, for the
  // Tier-1 passes whose decisions are close to coin tosses (branches on
  // them mostly mispredict). With `exchange` = A < Qe after A -= Qe: C
  // grows by Qe for an MPS without exchange and for an LPS with it (C.2.3,
  // C.2.4), and A becomes Qe in the other two cases; the next state is a
  // byte of kMqBranchlessStates picked by shifting.
  [[gnu::always_inline]] MALLAT_HD inline void encode_branchless(uint8_t& state, uint32_t d) {
    const uint64_t t = MALLAT_T1_TABLE(kMqBranchlessStates)[state];
    const uint32_t qe = static_cast<uint16_t>(t);
    const uint32_t lps = d ^ (static_cast<uint32_t>(t >> 16) & 1);
    a -= qe;
    const uint32_t add = static_cast<uint32_t>(a < qe) ^ lps ^ 1;
    c += qe & (0u - add);
    a ^= (a ^ qe) & (add - 1);
    const int n = shifts_to_normalise(a);  // 0 when A is still normalised
    const uint32_t renormalised = n != 0;
    state = static_cast<uint8_t>(t >> (24 + 8 * (2 * renormalised + lps)));
    shift_out(n);
  }

  // C.2.6 RENORME: shift until A >= 0x8000, emitting a byte each time CT runs out.
  MALLAT_HD inline void renorm() { shift_out(shifts_to_normalise(a)); }

  // Shifts A and C left by n, emitting a byte each time CT runs out; n = 0
  // does nothing (CT is at least 1 between decisions).
  [[gnu::always_inline]] MALLAT_HD inline void shift_out(int n) {
    while (n >= ct) {
      a <<= ct;
      c <<= ct;
      n -= ct;
      ct = 0;
      byte_out();
    }
    a <<= n;
    c <<= n;
    ct -= n;
  }

  // C.2.7 BYTEOUT, with the bit stuffing after 0xFF and carry propagation.
  MALLAT_HD void byte_out() {
    if (b == 0xFF) {
      put(static_cast<uint8_t>(c >> 20));
      c &= 0xFFFFF;
      ct = 7;
    } else if (c < 0x8000000) {
      put(static_cast<uint8_t>(c >> 19));
      c &= 0x7FFFF;
      ct = 8;
    } else {
      *bp = ++b;
      if (b == 0xFF) {
        c &= 0x7FFFFFF;
        put(static_cast<uint8_t>(c >> 20));
        c &= 0xFFFFF;
        ct = 7;
      } else {
        put(static_cast<uint8_t>(c >> 19));
        c &= 0x7FFFF;
        ct = 8;
      }
    }
  }

  // The next byte after B becomes B.
  [[gnu::always_inline]] MALLAT_HD inline void put(uint8_t byte) {
    if constexpr (kBounded) {
      if (bp + 1 >= end) {
        overflow = true;
        return;
      }
    }
    *++bp = byte;
    b = byte;
  }

  // The registers now, for shortest_truncation(); `base` is the buffer the
  // offsets count from.
  MALLAT_HD TruncationPoint truncation_point(const uint8_t* base) const {
    return {static_cast<size_t>(bp - base), c, a, ct, b};
  }

  // C.2.9 FLUSH: terminate the segment; returns its length in bytes. A final
  // 0xFF is dropped (the decoder supplies 0xFF past the end).
  MALLAT_HD uint32_t flush() {
    // C.2.9 SETBITS: the largest C inside the final interval with the most
    // trailing one bits, so the fewest bytes are needed.
    const uint32_t temp = c + a;
    c |= 0xFFFF;
    if (c >= temp) c -= 0x8000;
    c <<= ct;
    byte_out();
    c <<= ct;
    byte_out();
    if (*bp != 0xFF) ++bp;
    return static_cast<uint32_t>(bp - start);
  }

  // D.4.2 predictable termination (ERTERM): emit just enough bits that any
  // decoder reading past the end sees a predictable state.
  MALLAT_HD uint32_t flush_predictable() {
    // Push out enough of C that the decoder's 0xFF padding lands predictably.
    int k = 11 - ct + 1;
    while (k > 0) {
      c <<= ct;
      ct = 0;
      byte_out();
      k -= ct;
    }
    if (*bp != 0xFF) ++bp;
    return static_cast<uint32_t>(bp - start);
  }
};

using MqEncoder = BasicMqEncoder<false>;

// The end (an offset into `buffer`) of the shortest prefix of a finished MQ
// codeword segment, occupying buffer[segment_begin, segment_end), from which
// a decoder recovers every symbol coded up to `point`. Past the prefix the
// decoder reads 1 bits (C.3.4: 0xFF then a byte above 0x8F adds 0xFF00), so
// the prefix decodes those symbols exactly when the value it stands for,
// padded with ones, lies in the interval [C, C + A) the encoder had at the
// point (C.2: every later interval lies inside it). On the random symbol
// streams of tests/entropy/mq_coder_test.cc this is 2.15 bytes shorter on
// average than a bound that covers all of C, and 0.72 bytes shorter than
// OpenJPEG's count of 3 bytes after the settled ones, which fell short (the
// last symbols decoded wrong) at 1.4% of the points.
MALLAT_HD inline size_t shortest_truncation(const MqTruncationPoint& point, const uint8_t* buffer,
                                            size_t segment_begin, size_t segment_end) {
  // Values are relative to the register frame at the point, scaled by 2^24
  // so that bits below C's bit 0 stay whole: C's bit 0 has weight 2^24, B's
  // lowest bit 2^(24 + 27 - CT) (C.2.7: BYTEOUT takes bits 19..26 of C, or
  // 20..26 after 0xFF, into the byte after B, and a carry out of bit 27
  // into B), and B's own value at the point counts as 0 on both sides. Each
  // later byte's lowest bit sits 8 bits lower, or 7 after 0xFF: a byte after
  // 0xFF carries in its top bit the carry that 0xFF could not take.
  constexpr int kScale = 24;
  if (point.b_offset >= segment_end) return segment_end;
  const uint64_t lower = uint64_t{point.c} << kScale;
  const uint64_t upper = (uint64_t{point.c} + point.a) << kScale;
  int weight = kScale + 27 - point.ct;
  uint64_t prefix = 0;
  size_t end = point.b_offset + 1;   // the prefix ends after B
  if (point.b_offset >= segment_begin) {
    prefix = uint64_t{static_cast<uint8_t>(buffer[point.b_offset] - point.b)} << weight;
  } else {
    // B is the byte ahead of the segment: the prefix starts empty. The
    // segment's first byte lies 8 bits below B, or 7 after 0xFF (C.2.8
    // starts CT at 13 then), and the decoder reads it as a whole byte.
    end = segment_begin;
    weight += 8 - (point.b == 0xFF ? 7 : 8);
  }
  // The prefix followed by ones stands for a value just below prefix +
  // 2^weight: inside [C, C + A) when C < prefix + 2^weight <= C + A.
  while (weight >= 0) {
    const uint64_t padded = prefix + (uint64_t{1} << weight);
    if (lower < padded && padded <= upper) return end;
    if (end >= segment_end) return segment_end;
    weight -= end > segment_begin && buffer[end - 1] == 0xFF ? 7 : 8;
    if (weight >= 0) prefix += uint64_t{buffer[end]} << weight;
    ++end;
  }
  return segment_end;   // the whole segment decodes everything
}


}  // namespace mallat::entropy

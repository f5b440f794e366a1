#include "entropy/mq_encoder.h"

namespace mallat::entropy {

uint32_t MqEncoder::flush() {
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

uint32_t MqEncoder::flush_predictable() {
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

size_t shortest_truncation(const MqEncoder::TruncationPoint& point, const uint8_t* buffer,
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

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

}  // namespace mallat::entropy

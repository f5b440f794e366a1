// A pass's MQ decisions recorded, then coded: the shared encoder's split of
// a coding pass (D.3) into its context modelling, which only reads and sets
// the state's flags, and the MQ coding of the decisions it forms (C.2),
// which only needs them in order. On the GPU the warp's lanes each code a
// block of their own; coding a decision where it is formed makes a lane run
// the MQ coder at every sample where its block has a symbol, and the warp
// runs the coder once for every sample at which any lane has one. Recorded,
// every lane codes its k-th decision at the same time, so the lanes run the
// coder together. The bytes are the same either way: the same decisions in
// the same contexts, in the same order. Host and device code (host_device.h).
#pragma once

#include <cstdint>

#include "entropy/host_device.h"
#include "entropy/ebcot/contexts.h"
#include "entropy/ebcot/ebcot.h"

namespace mallat::entropy {

// The most decisions one pass forms in a block of A.6.1's largest area
// (4096 samples): a cleanup pass's stripe column of four codes at most ten
// (a run-length decision, two UNIFORM decisions and its first sample's
// sign, then the three samples after it, each its bit and sign), the
// significance pass two a sample, the refinement pass one.
inline constexpr uint32_t kMaxPassDecisions = kMaxCodeBlockSamples / 4 * 10;

// Where a block's decisions go, four to a 32-bit word (the first in the
// low byte): word k at words[k * stride] (the GPU interleaves the lanes of
// a warp, so that the lanes' k-th words lie side by side, and each lane
// stores a word where it would store four bytes). Room for
// kMaxPassDecisions / 4 words.
struct DecisionBuffer {
  uint32_t* words = nullptr;
  uint32_t stride = 1;
};

namespace detail {

// A symbol coder for entropy/ebcot/passes.h that records each decision as
// one byte, its context number above the bit, and returns the bit (the
// encoder's decisions are known). finish() stores the last, partial word.
struct RecordedMqSymbols {
  static constexpr bool kEncoder = true, kRaw = false;
  uint32_t* words = nullptr;
  uint32_t stride = 1;
  uint32_t count = 0;
  uint32_t pending = 0;  // the decisions of the word not stored yet
  [[gnu::always_inline]] MALLAT_HD inline uint32_t code(int ctx, uint32_t bit) {
    pending |= static_cast<uint32_t>((ctx << 1) | bit) << (8 * (count & 3));
    if ((++count & 3) == 0) {
      words[(count / 4 - 1) * stride] = pending;
      pending = 0;
    }
    return bit;
  }
  [[gnu::always_inline]] MALLAT_HD inline uint32_t code_skewed(int ctx, uint32_t bit) { return code(ctx, bit); }
  MALLAT_HD inline void finish() {
    if ((count & 3) != 0) words[(count / 4) * stride] = pending;
  }
};

// Codes `count` recorded decisions with `mq` (BasicMqEncodeSymbols), in order.
template <class Mq>
MALLAT_HD inline void code_recorded(Mq& mq, const uint32_t* words, uint32_t stride, uint32_t count) {
  uint32_t word = 0;
  for (uint32_t k = 0; k < count; ++k) {
    if ((k & 3) == 0) word = words[(k / 4) * stride];
    const uint32_t s = (word >> (8 * (k & 3))) & 0xFF;
    mq.code(static_cast<int>(s >> 1), s & 1);
  }
}

}  // namespace detail
}  // namespace mallat::entropy

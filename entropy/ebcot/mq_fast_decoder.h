// The CPU Tier-1 decoder's MQ decoder (C.3): the decisions of MqDecoder
// (entropy/ebcot/mq_decoder.h), made faster three ways:
// - each context holds its whole state entry rather than a state byte, so
//   a decision's Qe is one load away from the context number instead of
//   two (the byte, then the state table);
// - A and Qe are kept 16 bits up, in C's high half's place, so C.3.2's
//   comparisons of C's high half with Qe are plain comparisons;
// - C is wide enough to hold four bytes read at once where no 0xFF among
//   them needs BYTEIN's care (C.3.4).
// Reads a WidePaddedSegment with no bounds checks. CPU only; internal to
// the entropy module.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "entropy/ebcot/contexts.h"
#include "entropy/ebcot/mq_decoder.h"
#include "entropy/ebcot/mq_states.h"

namespace mallat::entropy::detail {

// A context's state as the fast decoder holds it: a whole entry of
// kFastMqStates (entropy/ebcot/mq_states.h).
using FastMqState = uint64_t;

// The 19 contexts (Table D.7) as whole state entries.
using FastMqContexts = std::array<FastMqState, kNumContexts>;

inline FastMqContexts fast_contexts(const MqContexts& cx) {
  FastMqContexts out;
  for (int i = 0; i < kNumContexts; ++i) out[i] = kFastMqStates[cx[i]];
  return out;
}

// A copy of a codeword segment followed by 0xFF 0xFF (a marker: past the
// end the decoder is fed 1 bits, as MqDecoder is) and room for the
// MqFastDecoder's four-byte reads. One per thread, reused.
class WidePaddedSegment {
 public:
  const uint8_t* assign(std::span<const uint8_t> segment) {
    bytes_.assign(segment.begin(), segment.end());
    bytes_.insert(bytes_.end(), {0xFF, 0xFF, 0, 0, 0, 0, 0, 0});
    return bytes_.data();
  }

 private:
  std::vector<uint8_t> bytes_;
};

struct MqFastDecoder {
  uint32_t a = 0;  // A << 16
  // C << 32: C's high half in bits 48..63 and, below, CT bits of bytes
  // already read (up to 32; C.3 holds at most the current byte's 8).
  uint64_t c = 0;
  int ct = 0;
  const uint8_t* bp = nullptr;  // the byte B of C.3.4

  // C.3.5 INITDEC on a WidePaddedSegment's copy of `size` bytes.
  void init(const uint8_t* data, size_t size) {
    MqDecoder d;
    d.init(data, size);
    a = d.a << 16;
    c = uint64_t{d.c} << 32;
    ct = d.ct;
    bp = d.bp;
  }

  // A decision without a branch on its outcome (mq_entry_step), for
  // decisions close to coin tosses; the next state's entry loaded after.
  [[gnu::always_inline]] inline uint32_t decode_branchless(FastMqState& state) {
    return decode_branchless(state, state);
  }
  // The same with the context's entry `t` loaded ahead by the caller.
  [[gnu::always_inline]] inline uint32_t decode_branchless(FastMqState& state, uint64_t t) {
    const MqEntryStep step = mq_entry_step(a, c, t);
    state = kFastMqStates[step.next];
    shift_out(step.shifts);
    return step.decision;
  }

  // C.3.2 with its branches, for decisions that are mostly the MPS: then
  // the branches predict well and the common path is short.
  [[gnu::always_inline]] inline uint32_t decode(FastMqState& state) {
    const uint64_t t = state;
    const uint32_t qe = static_cast<uint32_t>(t);
    const uint64_t qe_c = t << 32;
    const uint32_t mps = static_cast<uint32_t>(t >> 32) & 1;
    a -= qe;
    uint32_t d;
    if (c < qe_c) {
      // LPS_EXCHANGE
      if (a < qe) {
        d = mps;
        state = kFastMqStates[static_cast<uint8_t>(t >> 48)];
      } else {
        d = mps ^ 1;
        state = kFastMqStates[static_cast<uint8_t>(t >> 56)];
      }
      a = qe;
    } else {
      c -= qe_c;
      if (a & 0x80000000u) return mps;
      // MPS_EXCHANGE
      if (a < qe) {
        d = mps ^ 1;
        state = kFastMqStates[static_cast<uint8_t>(t >> 56)];
      } else {
        d = mps;
        state = kFastMqStates[static_cast<uint8_t>(t >> 48)];
      }
    }
    shift_out(__builtin_clz(a));
    return d;
  }

  // C.3.4 RENORMD by n shifts. Bytes are added where C.3.4 adds them, when
  // CT runs out; where none of B and the three bytes after it is 0xFF the
  // next four are added at once (no 0xFF among them, so each goes where
  // BYTEIN would put it, below the one before, and none carries into
  // another), else one by BYTEIN's rules.
  [[gnu::always_inline]] inline void shift_out(int n) {
    if (n > ct) [[unlikely]] {
      const Filled f = filled(a, c, ct, bp, n);
      a = f.a;
      c = f.c;
      ct = f.ct;
      bp = f.bp;
      return;
    }
    a <<= n;
    c <<= n;
    ct -= n;
  }

  // The rare reading of bytes, out of line and on copies of the
  // registers: a pass's decoder, whose address is then never taken, can
  // stay in registers (a call given its address would keep it in memory
  // for the whole pass, and every decision would wait on a store and a
  // load of A and C; the decoder passed whole, 32 bytes, goes through
  // memory too).
  struct Filled {
    uint32_t a;
    int ct;
    uint64_t c;
    const uint8_t* bp;
  };
  [[gnu::noinline]] static Filled filled(uint32_t a, uint64_t c, int ct, const uint8_t* bp, int n) {
    MqFastDecoder d;
    d.a = a;
    d.c = c;
    d.ct = ct;
    d.bp = bp;
    d.fill(n);
    return {d.a, d.ct, d.c, d.bp};
  }

  [[gnu::always_inline]] inline void fill(int n) {
    while (n > ct) {
      a <<= ct;
      c <<= ct;
      n -= ct;
      uint32_t next4;
      __builtin_memcpy(&next4, bp, 4);
      const uint32_t inverted = ~next4;
      if (((inverted - 0x01010101u) & ~inverted & 0x80808080u) == 0) {
        const uint64_t bytes = uint64_t{bp[1]} << 24 | uint64_t{bp[2]} << 16 | uint64_t{bp[3]} << 8 | bp[4];
        c += bytes << 16;
        bp += 4;
        ct = 32;
      } else if (bp[0] == 0xFF) {
        if (bp[1] > 0x8F) {
          c += uint64_t{0xFF00} << 32;
          ct = 8;
        } else {
          ++bp;
          c += uint64_t{bp[0]} << 41;
          ct = 7;
        }
      } else {
        ++bp;
        c += uint64_t{bp[0]} << 40;
        ct = 8;
      }
    }
    a <<= n;
    c <<= n;
    ct -= n;
  }
};

}  // namespace mallat::entropy::detail

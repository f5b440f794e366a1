// The shared Tier-1 decoder's MQ decoder (C.3; entropy/ebcot/shared_decoder.h,
// what the GPU's decoding kernel runs): MqDecoder's decisions with fewer
// dependent steps each, as the CPU decoder's MqFastDecoder
// (entropy/ebcot/mq_fast_decoder.h) makes them, but bounded by the codeword
// segment and host and device code (host_device.h):
// - each context holds its whole kFastMqStates entry rather than a state
//   byte, so a decision's Qe is one load from the context number instead
//   of two (the byte, then the state table);
// - A and Qe are kept 16 bits up, in the place of C's high half, so C.3.2's
//   comparisons are plain comparisons;
// - C is wide enough to hold four bytes read at once where they all lie
//   inside the segment and no 0xFF among them needs BYTEIN's care (C.3.4).
// Other bytes are read by MqDecoder's BYTEIN, which never leaves the
// segment and feeds 0xFF past its end.
#pragma once

#include <cstddef>
#include <cstdint>

#include "entropy/host_device.h"
#include "entropy/ebcot/contexts.h"
#include "entropy/ebcot/mq_decoder.h"
#include "entropy/ebcot/mq_states.h"

namespace mallat::entropy::detail {

// The 19 contexts (Table D.7) as whole kFastMqStates entries.
struct MqEntryContexts {
  uint64_t entry[kNumContexts];

  MALLAT_HD uint64_t& operator[](int i) { return entry[i]; }

  // Table D.7's initial states (initial_contexts()).
  MALLAT_HD void reset() {
    constexpr uint64_t kFirst = fast_mq_state(mq_state(0, 0));
    for (int i = 0; i < kNumContexts; ++i) entry[i] = kFirst;
    entry[kZeroCodingContexts] = fast_mq_state(mq_state(4, 0));
    entry[kRunLengthContext] = fast_mq_state(mq_state(3, 0));
    entry[kUniformContext] = fast_mq_state(mq_state(46, 0));
  }
};

// What MqEntryDecoder::fill changes: A, C, CT and B's place.
struct MqEntryFill {
  uint64_t c;
  uint32_t a;
  int ct;
  const uint8_t* bp;
};

// C.3.4 RENORMD by n shifts, reading bytes when CT runs out, the segment
// ending at `end`. Bytes are added where C.3.4 adds them, when CT runs
// out. Where B and the four bytes after it lie inside the segment and none
// of B and the three after it is 0xFF, the next four are added at once (no
// 0xFF among them, so each goes where BYTEIN would put it, below the one
// before, and none carries into another); else one by MqDecoder's BYTEIN,
// which never reads past the segment.
MALLAT_HD inline void mq_entry_fill(MqEntryFill& s, const uint8_t* end, int n) {
  while (n > s.ct) {
    s.a <<= s.ct;
    s.c <<= s.ct;
    n -= s.ct;
    const uint8_t* b = s.bp;
    if (end - b > 4 && b[0] != 0xFF && b[1] != 0xFF && b[2] != 0xFF && b[3] != 0xFF) {
      const uint32_t bytes = uint32_t{b[1]} << 24 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 8 | b[4];
      s.c += uint64_t{bytes} << 16;
      s.bp = b + 4;
      s.ct = 32;
    } else {
      MqDecoder r;
      r.bp = b;
      r.end = end;
      r.byte_in();
      s.c += uint64_t{r.c} << 32;
      s.bp = r.bp;
      s.ct = r.ct;
    }
  }
  s.a <<= n;
  s.c <<= n;
  s.ct -= n;
}

#if defined(__CUDA_ARCH__)
// The GPU's fill, one copy in the kernel rather than one inlined at every
// place the passes decode (each row's significance and sign, run-length,
// UNIFORM): inlined, the decoding kernel's code outgrew what the SM keeps
// of it at hand when a warp's lanes are in different passes, and its warps
// waited for instructions. A fill comes once in several decisions, so the
// call costs less than that wait (docs/PERFORMANCE.md).
static __device__ __noinline__ MqEntryFill mq_entry_fill_call(MqEntryFill s, const uint8_t* end, int n) {
  mq_entry_fill(s, end, n);
  return s;
}
#endif

struct MqEntryDecoder {
  uint32_t a = 0;  // A << 16
  // C << 32: C's high half in bits 48..63 and, below, CT bits of bytes
  // already read (up to 32; C.3 holds at most the current byte's 8).
  uint64_t c = 0;
  // CT, the byte pointer and the segment's end as MqDecoder holds them
  // (its BYTEIN reads the bytes one at a time); its A and C are unused.
  MqDecoder r;

  // C.3.5 INITDEC on the segment [data, data + size).
  MALLAT_HD void init(const uint8_t* data, size_t size) {
    r.init(data, size);
    a = r.a << 16;
    c = uint64_t{r.c} << 32;
  }

  // A decision without a branch on its outcome (mq_entry_step), for
  // decisions close to coin tosses; `t` is the context's entry, loaded
  // ahead by the caller where it can be.
  [[gnu::always_inline]] MALLAT_HD inline uint32_t decode_branchless(uint64_t& state, uint64_t t) {
    const MqEntryStep step = mq_entry_step(a, c, t);
    state = MALLAT_T1_TABLE(kFastMqStates)[step.next];
    shift_out(step.shifts);
    return step.decision;
  }
  [[gnu::always_inline]] MALLAT_HD inline uint32_t decode_branchless(uint64_t& state) {
    return decode_branchless(state, state);
  }

  // C.3.2 with a branch on the common case, for decisions that are mostly
  // the MPS: an MPS that leaves A normalised returns at once. The others
  // renormalise, and pick the next state out of the entry as
  // decode_branchless does (byte 6 + lps), so they share one table load and
  // one renormalisation.
  [[gnu::always_inline]] MALLAT_HD inline uint32_t decode(uint64_t& state) {
    const uint64_t t = state;
    const uint32_t qe = static_cast<uint32_t>(t);
    const uint32_t high = static_cast<uint32_t>(t >> 32);
    const uint64_t qe_c = uint64_t{qe} << 32;
    const uint32_t mps = high & 1;
    a -= qe;
    const uint32_t lower = c < qe_c;
    if (!lower) {
      c -= qe_c;
      if (a & 0x80000000u) return mps;
    }
    // C.3.3: LPS_EXCHANGE (lower) and MPS_EXCHANGE swap the symbols when
    // A < Qe.
    const uint32_t lps = lower ^ static_cast<uint32_t>(a < qe);
    if (lower) a = qe;
    state = MALLAT_T1_TABLE(kFastMqStates)[(high >> (16 + 8 * lps)) & 0xFF];
    shift_out(leading_zeros(a));
    return mps ^ lps;
  }

  // Decodes up to n decisions in a context whose entry is `t` while each
  // is its MPS with A left normalised (decode's early return, which keeps
  // the context's state), and returns how many it decoded. By C.3.2 on A
  // and C as held here, the i-th such decision in a row needs C >= i Qe
  // and A - i Qe >= 0x8000 (so no RENORMD), so k of them subtract k Qe
  // from both; the decision after them is left to decode, which may
  // renormalise or give the LPS.
  MALLAT_HD int decode_mps_run(uint64_t t, int n) {
    const uint32_t qe = static_cast<uint32_t>(t);
    const uint32_t c_high = static_cast<uint32_t>(c >> 32);
    const uint32_t a_room = a - 0x80000000u;
    const uint32_t k_max = (c_high < a_room ? c_high : a_room) / qe;
    const uint32_t k = k_max < static_cast<uint32_t>(n) ? k_max : static_cast<uint32_t>(n);
    a -= k * qe;
    c -= uint64_t{k * qe} << 32;
    return static_cast<int>(k);
  }

  // C.3.4 RENORMD by n shifts, reading bytes when CT runs out.
  [[gnu::always_inline]] MALLAT_HD inline void shift_out(int n) {
    if (n > r.ct) {
      fill(n);
      return;
    }
    a <<= n;
    c <<= n;
    r.ct -= n;
  }

  // C.3.4's byte reading (mq_entry_fill) on the decoder's registers.
  MALLAT_HD void fill(int n) {
    MqEntryFill s{c, a, r.ct, r.bp};
#if defined(__CUDA_ARCH__)
    s = mq_entry_fill_call(s, r.end, n);
#else
    mq_entry_fill(s, r.end, n);
#endif
    c = s.c;
    a = s.a;
    r.ct = s.ct;
    r.bp = s.bp;
  }
};

// The shared decoder's MQ symbol coder for the passes of entropy/ebcot/
// passes.h: branchless for coin tosses, branchy for the cleanup pass's
// mostly-MPS decisions. The passes copy their coder (its registers) for the
// pass; the contexts, 152 bytes, stay where the caller keeps them.
struct MqEntryDecodeSymbols {
  static constexpr bool kEncoder = false, kRaw = false;
  MqEntryDecoder mq;
  MqEntryContexts* cx;
  [[gnu::always_inline]] MALLAT_HD inline uint32_t code(int ctx, uint32_t) {
    return mq.decode_branchless((*cx)[ctx]);
  }
  [[gnu::always_inline]] MALLAT_HD inline uint32_t code_skewed(int ctx, uint32_t) { return mq.decode((*cx)[ctx]); }
};

}  // namespace mallat::entropy::detail

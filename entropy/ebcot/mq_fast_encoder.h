// The CPU Tier-1 encoder's MQ decisions (C.2.2 ENCODE with CODEMPS, CODELPS
// and RENORME) on the registers of MqEncoder (entropy/ebcot/mq_encoder.h),
// with a shorter chain of dependent steps from one decision to the next:
// - each context holds its whole kMqBranchlessStates entry rather than a
//   state byte, so a decision's Qe is one load away from the context, not
//   two (the byte, then the table), and so is the next decision in the
//   same context;
// - the exchange test A - Qe < Qe is made as A < 2 Qe, beside the
//   subtraction rather than after it (A >= 0x8000 > Qe, so A - Qe does not
//   wrap).
// The same bytes as MqEncoder::encode and encode_branchless. CPU only;
// internal to the entropy module.
#pragma once

#include <array>
#include <cstdint>

#include "entropy/ebcot/contexts.h"
#include "entropy/ebcot/mq_encoder.h"
#include "entropy/ebcot/mq_states.h"

namespace mallat::entropy::detail {

// The 19 contexts (Table D.7) as kMqBranchlessStates entries; the state
// byte 2 * I + MPS is the entry's byte 3.
using FastMqEncodeContexts = std::array<uint64_t, kNumContexts>;

inline FastMqEncodeContexts fast_encode_contexts(const MqContexts& cx) {
  FastMqEncodeContexts out;
  for (int i = 0; i < kNumContexts; ++i) out[i] = kMqBranchlessStates[cx[i]];
  return out;
}

inline MqContexts state_bytes(const FastMqEncodeContexts& cx) {
  MqContexts out;
  for (int i = 0; i < kNumContexts; ++i) out[i] = static_cast<uint8_t>(cx[i] >> 24);
  return out;
}

// A decision without a branch on it, for decisions close to coin tosses:
// A becomes Qe for an MPS with exchange and an LPS without (C.2.3, C.2.4);
// C grows by Qe in the other two cases.
[[gnu::always_inline]] inline void encode_branchless(MqEncoder& mq, uint64_t& state, uint32_t d) {
  const uint64_t t = state;
  const uint32_t qe = static_cast<uint16_t>(t);
  const uint32_t lps = d ^ (static_cast<uint32_t>(t >> 16) & 1);
  const uint32_t exchange = mq.a < 2 * qe;
  const uint32_t a_minus_qe = mq.a - qe;
  const uint32_t becomes_qe = exchange ^ lps;
  mq.c += qe & (becomes_qe - 1);
  mq.a = becomes_qe ? qe : a_minus_qe;
  const uint32_t renormalised = mq.a < 0x8000;
  state = kMqBranchlessStates[static_cast<uint8_t>(t >> (24 + 8 * (2 * renormalised + lps)))];
  mq.shift_out(shifts_to_normalise(mq.a));
}

// C.2.2 with its branches, for decisions that are mostly the MPS: then the
// branches predict well and the common path is short.
[[gnu::always_inline]] inline void encode(MqEncoder& mq, uint64_t& state, uint32_t d) {
  const uint64_t t = state;
  const uint32_t qe = static_cast<uint16_t>(t);
  const uint32_t mps = static_cast<uint32_t>(t >> 16) & 1;
  mq.a -= qe;
  if (d == mps) {
    if (mq.a & 0x8000) {
      mq.c += qe;
      return;
    }
    if (mq.a < qe) {
      mq.a = qe;
    } else {
      mq.c += qe;
    }
    state = kMqBranchlessStates[static_cast<uint8_t>(t >> 40)];
  } else {
    if (mq.a < qe) {
      mq.c += qe;
    } else {
      mq.a = qe;
    }
    state = kMqBranchlessStates[static_cast<uint8_t>(t >> 48)];
  }
  mq.renorm();
}

}  // namespace mallat::entropy::detail

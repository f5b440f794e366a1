// The MQ coder's probability estimation (C.2.5, Table C.2) folded with the
// MPS sense into one byte per context: state = 2 * I + MPS. Each entry gives
// Qe and the state to move to after an MPS or an LPS, with SWITCH applied,
// so the hot loops need one table look-up per decision.
#pragma once

#include <array>
#include <cstdint>

#include "entropy/host_device.h"

namespace mallat::entropy {

struct alignas(8) MqState {
  uint16_t qe;        // Qe(I), Table C.2
  uint8_t mps;        // the more probable symbol in this state
  uint8_t next_mps;   // 2 * NMPS(I) + MPS
  uint8_t next_lps;   // 2 * NLPS(I) + (MPS xor SWITCH(I))
};

inline constexpr int kMqStateCount = 94;  // 47 indices x 2 MPS senses

// A context's state byte for index I and sense MPS.
constexpr uint8_t mq_state(int index, int mps) { return static_cast<uint8_t>(2 * index + mps); }

namespace detail {

// Table C.2: Qe, NMPS, NLPS and SWITCH for each index I.
struct QeRow {
  uint16_t qe;
  uint8_t nmps, nlps, switch_mps;
};

inline constexpr QeRow kTableC2[47] = {
    {0x5601, 1, 1, 1},   {0x3401, 2, 6, 0},   {0x1801, 3, 9, 0},   {0x0AC1, 4, 12, 0},
    {0x0521, 5, 29, 0},  {0x0221, 38, 33, 0}, {0x5601, 7, 6, 1},   {0x5401, 8, 14, 0},
    {0x4801, 9, 14, 0},  {0x3801, 10, 14, 0}, {0x3001, 11, 17, 0}, {0x2401, 12, 18, 0},
    {0x1C01, 13, 20, 0}, {0x1601, 29, 21, 0}, {0x5601, 15, 14, 1}, {0x5401, 16, 14, 0},
    {0x5101, 17, 15, 0}, {0x4801, 18, 16, 0}, {0x3801, 19, 17, 0}, {0x3401, 20, 18, 0},
    {0x3001, 21, 19, 0}, {0x2801, 22, 19, 0}, {0x2401, 23, 20, 0}, {0x2201, 24, 21, 0},
    {0x1C01, 25, 22, 0}, {0x1801, 26, 23, 0}, {0x1601, 27, 24, 0}, {0x1401, 28, 25, 0},
    {0x1201, 29, 26, 0}, {0x1101, 30, 27, 0}, {0x0AC1, 31, 28, 0}, {0x09C1, 32, 29, 0},
    {0x08A1, 33, 30, 0}, {0x0521, 34, 31, 0}, {0x0441, 35, 32, 0}, {0x02A1, 36, 33, 0},
    {0x0221, 37, 34, 0}, {0x0141, 38, 35, 0}, {0x0111, 39, 36, 0}, {0x0085, 40, 37, 0},
    {0x0049, 41, 38, 0}, {0x0025, 42, 39, 0}, {0x0015, 43, 40, 0}, {0x0009, 44, 41, 0},
    {0x0005, 45, 42, 0}, {0x0001, 45, 43, 0}, {0x5601, 46, 46, 0},
};

constexpr std::array<MqState, kMqStateCount> fold_states() {
  std::array<MqState, kMqStateCount> s{};
  for (int i = 0; i < 47; ++i) {
    for (int mps = 0; mps < 2; ++mps) {
      const QeRow& r = kTableC2[i];
      s[2 * i + mps] = MqState{r.qe, static_cast<uint8_t>(mps), mq_state(r.nmps, mps),
                               mq_state(r.nlps, mps ^ r.switch_mps)};
    }
  }
  return s;
}

}  // namespace detail

inline constexpr std::array<MqState, kMqStateCount> kMqStates = detail::fold_states();
MALLAT_DEVICE_TABLE(kMqStates)

// A state as the branchless coders see it (MqDecoder::
// decode_padded_branchless, MqEncoder::encode_branchless): Qe in bits 0..15,
// the MPS in bit 16, and the state that follows a decision in byte
// 3 + 2 * renormalised + lps: byte 3 the state itself (no renormalisation),
// byte 5 NMPS after an MPS, byte 6 NLPS after an LPS (an LPS always
// renormalises). Picking a byte by shifting needs no branch.
inline constexpr std::array<uint64_t, kMqStateCount> kMqBranchlessStates = [] {
  std::array<uint64_t, kMqStateCount> t{};
  for (int i = 0; i < kMqStateCount; ++i) {
    const MqState& s = kMqStates[i];
    t[i] = uint64_t{s.qe} | uint64_t{s.mps} << 16 | uint64_t(i) << 24 | uint64_t{s.next_mps} << 40 |
           uint64_t{s.next_lps} << 48;
  }
  return t;
}();
MALLAT_DEVICE_TABLE(kMqBranchlessStates)

// A context's state as the decoders that hold whole entries in their
// contexts see it (entropy/ebcot/mq_fast_decoder.h, entropy/ebcot/
// mq_entry_decoder.h): Qe << 16 in bits 0..31 (A and C's high half's
// place, so C.3.2's comparisons are plain), the MPS in bit 32, and the state
// byte (2 * I + MPS) that follows a decision in byte 5 + renormalised + lps:
// byte 5 the state itself (no renormalisation), byte 6 NMPS after an MPS,
// byte 7 NLPS after an LPS (an LPS always renormalises).
constexpr uint64_t fast_mq_state(int state) {
  const MqState& s = kMqStates[state];
  return uint64_t{s.qe} << 16 | uint64_t{s.mps} << 32 | uint64_t(state) << 40 |
         uint64_t{s.next_mps} << 48 | uint64_t{s.next_lps} << 56;
}

inline constexpr std::array<uint64_t, kMqStateCount> kFastMqStates = [] {
  std::array<uint64_t, kMqStateCount> t{};
  for (int i = 0; i < kMqStateCount; ++i) t[i] = fast_mq_state(i);
  return t;
}();
MALLAT_DEVICE_TABLE(kFastMqStates)

// The leading zero bits of a non-zero A << 16: RENORMD's shifts.
MALLAT_HD inline int leading_zeros(uint32_t a) {
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(a));
#else
  return __builtin_clz(a);
#endif
}

// One decision of C.3.2, with the exchanges of C.3.3, taking no branch on
// its outcome (for decisions close to coin tosses), on A << 16 and C << 32
// (C's high half in bits 48..63) with the context's whole kFastMqStates
// entry `t`. `lower` is C in the lower (LPS) sub-interval; the exchanges
// swap the symbols when A < Qe. Leaves A and C as the decision does before
// RENORMD, and gives the decision, the state byte that follows it (picked
// out of the entry by shifting) and RENORMD's shifts (0 when A is still
// normalised). The decoders that hold whole entries
// (entropy/ebcot/mq_fast_decoder.h, entropy/ebcot/mq_entry_decoder.h) share
// it; they differ in how they read bytes.
struct MqEntryStep {
  uint32_t decision;
  uint32_t next;
  int shifts;
};
[[gnu::always_inline]] MALLAT_HD inline MqEntryStep mq_entry_step(uint32_t& a, uint64_t& c, uint64_t t) {
  const uint32_t qe = static_cast<uint32_t>(t);
  const uint32_t high = static_cast<uint32_t>(t >> 32);
  const uint64_t qe_c = uint64_t{qe} << 32;  // Qe in C's high half
  a -= qe;
  const uint32_t lower = c < qe_c;
  const uint32_t lps = lower ^ static_cast<uint32_t>(a < qe);
  // Masks, not conditionals, which the compiler may turn into branches.
  const uint32_t upper_mask = lower - 1;
  c -= qe_c & (0 - uint64_t{upper_mask & 1});
  a = (a & upper_mask) | (qe & ~upper_mask);
  const int n = leading_zeros(a);
  const uint32_t renormalised = n != 0;
  return {(high & 1) ^ lps, (high >> (8 + 8 * (renormalised + lps))) & 0xFF, n};
}

// Left shifts that bring A (0 < A < 0x10000) to at least 0x8000 (RENORME,
// RENORMD). A is never 0, so the count-leading-zeros needs no zero check.
MALLAT_HD inline int shifts_to_normalise(uint32_t a) {
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(a)) - 16;
#else
  return __builtin_clz(a) - 16;
#endif
}

}  // namespace mallat::entropy

// The coding lane's half of the split Tier-1 encoder (formed_passes.h says
// how the work divides): a block's formed passes MQ- and raw-coded in order
// through the shared encoder's segment loop (code_shared_passes), the
// contexts as whole state entries where the caller keeps them and BYTEOUT
// (C.2.7) in few branches, for a GPU thread that codes its block beside
// other lanes' blocks in its warp. Host and device code (host_device.h); the CPU's tests run it on
// the CPU's forming (tests/entropy/t1_formed_test.cc).
#pragma once

#include <cstdint>

#include "entropy/host_device.h"
#include "entropy/ebcot/contexts.h"
#include "entropy/ebcot/formed_passes.h"
#include "entropy/ebcot/mq_states.h"
#include "entropy/ebcot/shared_encoder.h"

namespace mallat::entropy {

namespace detail {

// Sixteen formed decisions at once: one 16-byte load on the GPU.
struct FormedChunk {
  uint32_t w[4];
};
MALLAT_HD inline FormedChunk load_formed_chunk(const uint8_t* bytes) {
#if defined(__CUDA_ARCH__)
  const uint4 q = *reinterpret_cast<const uint4*>(bytes);
  return {{q.x, q.y, q.z, q.w}};
#else
  FormedChunk c;
  for (int i = 0; i < 4; ++i) {
    c.w[i] = uint32_t{bytes[4 * i]} | uint32_t{bytes[4 * i + 1]} << 8 | uint32_t{bytes[4 * i + 2]} << 16 |
             uint32_t{bytes[4 * i + 3]} << 24;
  }
  return c;
#endif
}

// Where the coding lane keeps its contexts while it codes a pass: each
// context's whole kMqBranchlessStates entry (Qe, the MPS and the states
// that follow), so that a decision's Qe is one load from its context, not
// two (the state byte, then the table), and its next state's look-up is
// off the path to the next decision in another context. entries[k *
// stride] is context k's (on the GPU a slice of shared memory, the lanes
// interleaved); `table` is kMqBranchlessStates (on the GPU its copy in
// shared memory).
struct FormedMqRoom {
  uint64_t* entries = nullptr;
  uint32_t stride = 1;
  const uint64_t* table = nullptr;
};

// BasicMqEncoder::shift_out with BYTEOUT (C.2.7) in fewer branches: the
// carry into B as one guarded step, then the stuffed and plain cases as
// selects. On the GPU a warp's lanes code 32 blocks, and in most of its
// steps some lane has a byte to emit, so the others wait out this path:
// the shorter, the less they wait. The same bytes and registers.
template <class Encoder>
MALLAT_HD inline void formed_shift_out(Encoder& e, int n) {
  while (n >= e.ct) {
    e.a <<= e.ct;
    e.c <<= e.ct;
    n -= e.ct;
    if (e.b != 0xFF && e.c >= 0x8000000) {
      *e.bp = ++e.b;
      e.c &= 0x7FFFFFF;
    }
    const bool stuffed = e.b == 0xFF;
    e.put(static_cast<uint8_t>(e.c >> (stuffed ? 20 : 19)));
    e.c &= stuffed ? 0xFFFFFu : 0x7FFFFu;
    e.ct = stuffed ? 7 : 8;
  }
  e.a <<= n;
  e.c <<= n;
  e.ct -= n;
}

// Decision i's formed byte in a chunk: its context in bits 1..5, the
// symbol in bit 0.
MALLAT_HD inline uint32_t formed_byte(const FormedChunk& c, uint32_t i) { return (c.w[i / 4] >> (8 * (i % 4))) & 0xFF; }

// The coding lane's registers for one pass besides the MQ encoder's: what
// one decision waits for from the one before it is kept short, since on
// the GPU a block's decisions are one chain.
// - The next decision's context entry is loaded before this decision
//   stores its own, and taken from a register instead where both are in
//   the same context (the load then missed the store).
// - Both states that can follow (NMPS, NLPS; C.2.5, C.2.6) are loaded as
//   soon as the entry is known, and the decision selects between them.
struct FormedCodingLane {
  static constexpr uint32_t kLastContext = kNumContexts - 1;
  uint32_t last = kNumContexts;  // the context of the decision before (none yet)
  uint64_t last_entry = 0;       // its entry after that decision
  uint64_t ahead = 0;            // the next decision's entry as loaded

  // Codes formed byte `s` with `e`; `following` is the next decision's
  // byte (past the pass's last, whatever the room holds: its context is
  // bounded so that the load stays among the entries).
  template <class Encoder>
  [[gnu::always_inline]] MALLAT_HD inline void code(Encoder& e, const FormedMqRoom& room, uint32_t s,
                                                    uint32_t following) {
    const uint32_t cx = s >> 1;
    const uint64_t t = cx == last ? last_entry : ahead;
    const uint32_t next_cx = following >> 1;
    ahead = room.entries[(next_cx < kLastContext ? next_cx : kLastContext) * room.stride];
    const uint64_t nmps = room.table[static_cast<uint8_t>(t >> 40)];
    const uint64_t nlps = room.table[static_cast<uint8_t>(t >> 48)];
    // C.2.2 with CODEMPS and CODELPS, as encode_branchless codes it.
    const uint32_t qe = static_cast<uint16_t>(t);
    const uint32_t lps = (s & 1) ^ (static_cast<uint32_t>(t >> 16) & 1);
    e.a -= qe;
    const uint32_t add = static_cast<uint32_t>(e.a < qe) ^ lps ^ 1;
    e.c += qe & (0u - add);
    e.a ^= (e.a ^ qe) & (add - 1);
    const int shifts = shifts_to_normalise(e.a);
    // An LPS always renormalises; an MPS moves to NMPS only when it does.
    last_entry = lps != 0 ? nlps : shifts != 0 ? nmps : t;
    last = cx;
    room.entries[cx * room.stride] = last_entry;
    formed_shift_out(e, shifts);
  }
};

// Codes `count` formed decisions (bytes at `bytes`, 16-byte aligned, with
// room to read whole 16-byte chunks past the last) with `mq`
// (BasicMqEncodeSymbols) in order, as mq.code would (encode_branchless),
// with the contexts in `room` for the pass. The next chunk is loaded
// before the current one is coded; whole chunks are coded without a test
// a decision, the last part chunk with one.
template <class Mq>
MALLAT_HD inline void code_formed(Mq& mq, const uint8_t* bytes, uint32_t count, const FormedMqRoom& room) {
  if (count == 0) return;
  for (int k = 0; k < kNumContexts; ++k) room.entries[k * room.stride] = room.table[mq.cx[k]];
  auto& e = mq.mq;
  FormedChunk chunk = load_formed_chunk(bytes);
  FormedCodingLane lane;
  lane.ahead = room.entries[(formed_byte(chunk, 0) >> 1) * room.stride];
  const uint32_t whole = count / 16 * 16;
  for (uint32_t k = 0; k < whole; k += 16) {
    const FormedChunk next = k + 16 < count ? load_formed_chunk(bytes + k + 16) : chunk;
    // Unrolled, so that each decision's word of the chunk is a register
    // the GPU names, not an index into memory.
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (uint32_t i = 0; i < 16; ++i) {
      lane.code(e, room, formed_byte(chunk, i), i + 1 < 16 ? formed_byte(chunk, i + 1) : formed_byte(next, 0));
    }
    chunk = next;
  }
  const uint32_t rest = count - whole;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (uint32_t i = 0; i < 15; ++i) {
    if (i == rest) break;
    lane.code(e, room, formed_byte(chunk, i), formed_byte(chunk, i + 1));
  }
  for (int k = 0; k < kNumContexts; ++k) mq.cx[k] = static_cast<uint8_t>(room.entries[k * room.stride] >> 24);
}
template <class Raw>
MALLAT_HD inline void code_formed_raw(Raw& raw, const uint8_t* bytes, uint32_t count) {
  for (uint32_t k = 0; k < count; ++k) raw.code(0, bytes[k] & 1);
}

}  // namespace detail

// The coding lane's step: block `block`'s formed passes (its plan `b`, its
// passes, its stream) MQ- and raw-coded into `out` as
// encode_code_block_shared codes them, the contexts in `room`. The room
// is the caller's alone (on the GPU in shared memory, so that the
// compiler knows the entries' loads for shared memory's).
MALLAT_HD inline SharedT1Result code_formed_block(const FormedBlock& b, const FormedPass* passes,
                                                  const uint8_t* stream, const CodeBlockStyle& style,
                                                  int fraction_bits, const SharedT1Output& out,
                                                  const detail::FormedMqRoom& room) {
  SharedT1Result result;
  result.status = b.status;
  if (b.status != SharedT1Status::kOk) return result;
  result.zero_bitplanes = b.zero_bitplanes;
  result.num_passes = b.num_passes;
  result.cut = b.cut;
  if (b.num_passes == 0) return result;
  auto form = [&](int i, PassType, bool is_raw, int, auto& mq, auto& raw) {
    const FormedPass& pass = passes[i];
    if (is_raw) {
      detail::code_formed_raw(raw, stream + pass.offset, pass.count);
    } else {
      detail::code_formed(mq, stream + pass.offset, pass.count, room);
    }
    return pass.distortion;
  };
  int exact = 0;
  const SharedT1Status status = detail::code_shared_passes(form, b.planes, fraction_bits, style, out, b.num_passes,
                                                           b.cut, result.length, exact);
  if (status != SharedT1Status::kOk) {
    result.status = status;
    return result;
  }
  detail::finish_shared_passes(out, b.num_passes, result.length, fraction_bits);
  result.exact_passes = static_cast<int16_t>(exact);
  return result;
}

// The same with the contexts in a local array and the constant table (the
// CPU's tests).
inline SharedT1Result code_formed_block(const FormedBlock& b, const FormedPass* passes, const uint8_t* stream,
                                        const CodeBlockStyle& style, int fraction_bits, const SharedT1Output& out) {
  uint64_t entries[kNumContexts];
  return code_formed_block(b, passes, stream, style, fraction_bits, out,
                           detail::FormedMqRoom{entries, 1, kMqBranchlessStates.data()});
}

}  // namespace mallat::entropy

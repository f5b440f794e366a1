// The coding lane's half of the split Tier-1 encoder (formed_passes.h says
// how the work divides): a block's formed passes MQ- and raw-coded in order
// through the shared encoder's segment loop (code_shared_passes), the
// contexts as whole state entries where the caller keeps them and BYTEOUT
// (C.2.7) in few branches, for a GPU thread that codes its block beside 31
// others. Host and device code (host_device.h); the CPU's tests run it on
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

// Codes `count` formed decisions (bytes at `bytes`, 16-byte aligned, with
// room to read whole 16-byte chunks past the last) with `mq`
// (BasicMqEncodeSymbols) in order, as mq.code would (encode_branchless),
// with the contexts in `room` for the pass. The next chunk is loaded before
// the current one is coded, so that on the GPU its load overlaps the
// coding.
template <class Mq>
MALLAT_HD inline void code_formed(Mq& mq, const uint8_t* bytes, uint32_t count, const FormedMqRoom& room) {
  if (count == 0) return;
  for (int k = 0; k < kNumContexts; ++k) room.entries[k * room.stride] = room.table[mq.cx[k]];
  auto& e = mq.mq;
  FormedChunk chunk = load_formed_chunk(bytes);
  for (uint32_t k = 0; k < count; k += 16) {
    const FormedChunk next = k + 16 < count ? load_formed_chunk(bytes + k + 16) : chunk;
    const uint32_t n = count - k < 16 ? count - k : 16;
    // Unrolled, so that each decision's word of the chunk is a register
    // the GPU names, not an index into memory.
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (uint32_t i = 0; i < 16; ++i) {
      if (i == n) break;
      const uint32_t s = (chunk.w[i / 4] >> (8 * (i % 4))) & 0xFF;
      uint64_t* const entry = room.entries + (s >> 1) * room.stride;
      // C.2.2 with CODEMPS and CODELPS, as encode_branchless codes it.
      const uint64_t t = *entry;
      const uint32_t qe = static_cast<uint16_t>(t);
      const uint32_t lps = (s & 1) ^ (static_cast<uint32_t>(t >> 16) & 1);
      e.a -= qe;
      const uint32_t add = static_cast<uint32_t>(e.a < qe) ^ lps ^ 1;
      e.c += qe & (0u - add);
      e.a ^= (e.a ^ qe) & (add - 1);
      const int shifts = shifts_to_normalise(e.a);
      const uint32_t renormalised = shifts != 0;
      *entry = room.table[static_cast<uint8_t>(t >> (24 + 8 * (2 * renormalised + lps)))];
      formed_shift_out(e, shifts);
    }
    chunk = next;
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
// encode_code_block_shared codes them, the contexts in `room` (the CPU's
// default: a local array and the constant table).
MALLAT_HD inline SharedT1Result code_formed_block(const FormedBlock& b, const FormedPass* passes,
                                                  const uint8_t* stream, const CodeBlockStyle& style,
                                                  int fraction_bits, const SharedT1Output& out,
                                                  detail::FormedMqRoom room = {}) {
  uint64_t local_entries[kNumContexts];
  if (room.entries == nullptr) room = {local_entries, 1, MALLAT_T1_TABLE(kMqBranchlessStates).data()};
  SharedT1Result result;
  result.status = b.status;
  if (b.status != SharedT1Status::kOk) return result;
  result.zero_bitplanes = b.zero_bitplanes;
  result.num_passes = b.num_passes;
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
  const SharedT1Status status =
      detail::code_shared_passes(form, b.planes, fraction_bits, style, out, b.num_passes, result.length);
  if (status != SharedT1Status::kOk) {
    result.status = status;
    return result;
  }
  detail::finish_shared_passes(out, b.num_passes, result.length, fraction_bits);
  return result;
}


}  // namespace mallat::entropy

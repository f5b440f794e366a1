// The HT cleanup pass, encoder side (15444-15 Annex C), as one plain source
// for the CPU and the GPU (common/host_device.h): quads of 2x2 samples in
// rows of quads, each coded as its significance pattern rho and exponent
// information through the context-adaptive VLC (with MEL events for quads in
// the all-insignificant context), the exponent bound's residual u_q through
// the UVLC, and each significant sample's low magnitude bits and sign in
// MagSgn. On the CPU it is the reference the fast encoder
// (entropy/ht/cpu/cleanup_encoder_kernel.h) is tested against; on the device it is
// what the HT encoding kernel runs (entropy/cuda/ht/). Internal to the HT
// coder.
#pragma once

#include <cstdint>

#include "common/host_device.h"
#include "common/plane_view.h"
#include "entropy/ht/bit_streams.h"
#include "entropy/ht/cleanup_encoding.h"
#include "entropy/ht/exponent_bounds.h"
#include "entropy/ht/quad_rows.h"
#include "entropy/ht/shared_cleanup_decoder.h"
#include "entropy/ht/vlc_tables.h"

namespace mallat::entropy::ht {

// Working state of the cleanup encoder: the quad rows and the MEL and VLC
// streams' bytes until they join MagSgn's in the segment.
struct CleanupEncodeState {
  // At most 1024 quads and 512 pairs of them: per quad a MEL event and a
  // VLC codeword (7 bits) with its UVLC (8), per pair an initial-row MEL
  // event, each MEL event at most 6 bits; every byte may carry only 7.
  static constexpr uint32_t kMelCapacity = (1536 * 6 + 6) / 7 + 4;
  static constexpr uint32_t kVlcCapacity = (1024 * 15 + 6) / 7 + 4;
  QuadRows rows;
  uint8_t mel[kMelCapacity];
  uint8_t vlc[kVlcCapacity];
};

// The most bytes a cleanup segment of `samples` samples with magnitudes
// below 2^planes takes: MagSgn at most planes + 1 bits a sample (the
// exponent bound exceeds the planes by at most one), MEL and VLC, each byte
// possibly carrying 7.
MALLAT_HD constexpr uint32_t cleanup_capacity(uint32_t samples, int planes) {
  return (samples * static_cast<uint32_t>(planes + 1) + 6) / 7 + CleanupEncodeState::kMelCapacity +
         CleanupEncodeState::kVlcCapacity;
}

namespace detail {

// One quad: rho, and per sample v = 2 (mu - 1) + sign and the exponent
// E = bit width of 2 mu - 1 (0 for an insignificant sample). Magnitudes are
// at most 2^31, so 2 mu - 1 and v fit 32 bits: the quad is measured in
// 32-bit arithmetic (one instruction a step on the device, where 64-bit
// takes two).
struct Quad {
  int rho = 0;
  int e_max = 0;
  int e[4] = {0, 0, 0, 0};
  uint32_t v[4] = {0, 0, 0, 0};

  // The samples whose exponent is `e`, as a pattern like rho's.
  MALLAT_HD int samples_at(int e_value) const {
    return (e[0] == e_value ? 1 : 0) | (e[1] == e_value ? 2 : 0) | (e[2] == e_value ? 4 : 0) |
           (e[3] == e_value ? 8 : 0);
  }
};

// Bit width of a nonzero v.
MALLAT_HD inline int bit_width_nonzero(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return 32 - __clz(static_cast<int>(v));
#else
  return 32 - __builtin_clz(v);
#endif
}

// Sample n of a quad, of value `value`, into q; `lowered`: coded one index
// lower (entropy/ht/exponent_bounds.h).
MALLAT_HD inline void add_sample(Quad& q, int n, int32_t value, int shift, bool lowered = false) {
  const uint32_t magnitude = value < 0 ? 0u - static_cast<uint32_t>(value) : static_cast<uint32_t>(value);
  const uint32_t mu = (magnitude >> shift) - (lowered ? 1u : 0u);
  if (mu == 0) return;
  q.rho |= 1 << n;
  q.e[n] = bit_width_nonzero(2 * mu - 1);
  q.v[n] = 2 * (mu - 1) + (value < 0 ? 1u : 0u);
  q.e_max = q.e[n] > q.e_max ? q.e[n] : q.e_max;
}

// Quad q of the quad row whose samples are in rows `top` and `bottom`
// (null for the last row of a block of odd height), `width` samples wide:
// samples 0..3 at (2q, 0), (2q, 1), (2q + 1, 0), (2q + 1, 1) of the pair
// (C.1); those outside the block are insignificant. Each sample by its own
// call, so that the quad's arrays stay in registers on the device.
// `lowered`: the samples coded one index lower, a pattern like rho's.
MALLAT_HD inline Quad load_quad(const int32_t* top, const int32_t* bottom, int width, int q, int shift,
                                int lowered = 0) {
  const int x = 2 * q;
  const bool right = x + 1 < width;
  Quad quad;
  add_sample(quad, 0, top[x], shift, (lowered & 1) != 0);
  add_sample(quad, 1, bottom ? bottom[x] : 0, shift, (lowered & 2) != 0);
  add_sample(quad, 2, right ? top[x + 1] : 0, shift, (lowered & 4) != 0);
  add_sample(quad, 3, right && bottom ? bottom[x + 1] : 0, shift, (lowered & 8) != 0);
  return quad;
}

// Quad q's lowered samples in the row pair from row y, as load_quad takes them.
MALLAT_HD inline int lowered_pattern(const LoweredSamples& l, int width, int height, int y, int q) {
  const int x = 2 * q;
  const bool right = x + 1 < width, bottom = y + 1 < height;
  return (is_lowered(l, width, x, y) ? 1 : 0) | (bottom && is_lowered(l, width, x, y + 1) ? 2 : 0) |
         (right && is_lowered(l, width, x + 1, y) ? 4 : 0) |
         (right && bottom && is_lowered(l, width, x + 1, y + 1) ? 8 : 0);
}

}  // namespace detail

// Encodes the cleanup segment coding every magnitude |c| >> shift (below
// 2^31, not all zero; a block at most 1024 wide and 4096 samples) into
// `segment`, which the caller checks for overflow; the samples `lowered`
// names (if any) one index lower.
MALLAT_HD inline void encode_cleanup_shared(PlaneView<const int32_t> coefficients, int shift,
                                            const SharedVlcTables& tables, CleanupEncodeState& state,
                                            BoundedBytes& segment, const LoweredSamples* lowered = nullptr) {
  BoundedBytes mel_bytes(state.mel, CleanupEncodeState::kMelCapacity);
  BoundedBytes vlc_bytes(state.vlc, CleanupEncodeState::kVlcCapacity);
  BasicMelEncoder<BoundedBytes> mel(mel_bytes);
  // MagSgn straight into the segment: it comes first there.
  BasicForwardWriter<BoundedBytes> ms(segment);
  // The VLC stream starts below the interface locator: a whole byte for
  // Scup's high 8 bits, then the low nibble of the next one (filled in at
  // the end; 0xF while coding, as the decoder's unstuffing sees 1s there).
  BasicBackwardWriter<BoundedBytes> vlc(vlc_bytes, 0xF, 4);
  vlc_bytes.push_back(0xFF);

  // Indices in 32 bits (a block has at most 4096 samples), as the quads.
  const int width = static_cast<int>(coefficients.width), height = static_cast<int>(coefficients.height);
  const int quads_wide = (width + 1) / 2;
  QuadRows& rows = state.rows;
  rows.reset(quads_wide);
  for (int y = 0; y < height; y += 2, rows.next_row()) {
    const bool initial = rows.initial();
    const uint16_t* table = initial ? tables.encode_initial : tables.encode_other;
    const int32_t* top = coefficients.row(y);
    const int32_t* bottom = y + 1 < height ? coefficients.row(y + 1) : nullptr;
    // c_q and kappa_q (C.3.1, C.3.3) from sliding windows over the row
    // above, each value read once: the patterns of the quads above-left,
    // above and above-right of quad q, and the exponents of the four
    // samples above columns 2q - 1 .. 2q + 2; rho_left is the pattern of
    // the quad to the left (0 at the row's start).
    const uint8_t* rho_above = rows.rho_above();
    const uint8_t* e_above = rows.e_above();
    int rho_left = 0, rho_nw = rho_above[0], rho_n = rho_above[1];
    int e_w = e_above[0], e_n = e_above[1];
    for (int qx = 0; qx < quads_wide; qx += 2) {
      int u[2] = {0, 0};
      for (int j = 0; j < 2 && qx + j < quads_wide; ++j) {
        const int q = qx + j;
        const detail::Quad quad = detail::load_quad(
            top, bottom, width, q, shift, lowered ? detail::lowered_pattern(*lowered, width, height, y, q) : 0);
        const int rho_ne = rho_above[q + 2];
        const int e_s = e_above[2 * q + 2], e_e = e_above[2 * q + 3];
        const int c_q = initial ? initial_row_context(rho_left) : other_row_context(rho_left, rho_nw, rho_n, rho_ne);
        const int kappa = kappa_of(quad.rho, e_w, e_n, e_s, e_e);
        const int bound = quad.e_max > kappa ? quad.e_max : kappa;  // U_q
        u[j] = bound - kappa;
        const int emb = u[j] > 0 ? quad.samples_at(bound) : 0;
        const uint16_t entry = table[c_q << 8 | quad.rho << 4 | emb];
        vlc.put(encoded_bits(entry), encoded_length(entry));
        if (c_q == 0) mel.encode(quad.rho != 0);
        const int e_k = encoded_e_k(entry);
        for (int n = 0; n < 4; ++n) {
          if (quad.rho >> n & 1) ms.put(quad.v[n], bound - (e_k >> n & 1));
        }
        rows.set(q, quad.rho, quad.e[1], quad.e[3]);
        rho_left = quad.rho;
        rho_nw = rho_n;
        rho_n = rho_ne;
        e_w = e_s;
        e_n = e_e;
      }
      put_uvlc(vlc, mel, initial, u);
    }
  }

  ms.finish_with_ones();
  append_mel_vlc(mel, vlc, mel_bytes, vlc_bytes, segment);
  if (mel_bytes.overflow() || vlc_bytes.overflow()) segment.fail();
}

}  // namespace mallat::entropy::ht

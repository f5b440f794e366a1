// The HT cleanup pass, decoder side (15444-15 Annex C), as one plain source
// for the CPU and the GPU (common/host_device.h): the VLC (with MEL events)
// and UVLC of a pair of quads, then their samples' MagSgn bits, on the
// fixed-size QuadRows, no allocation. On the CPU it is the reference the fast
// decoder (entropy/ht/cpu/cleanup_decoder_kernel.h) is tested against; on the device it
// is what the HT decoding kernel runs (entropy/cuda/ht/). Every read stays
// inside the segment (bit_streams.h's readers supply the fill past it).
// Internal to the HT coder.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/host_device.h"
#include "common/plane_view.h"
#include "entropy/ht/bit_streams.h"
#include "entropy/ht/quad_rows.h"
#include "entropy/ht/vlc_tables.h"

namespace mallat::entropy::ht {

namespace detail {

MALLAT_HD inline void clear(PlaneView<int32_t> out) {
  for (int64_t y = 0; y < out.height; ++y) {
    for (int64_t x = 0; x < out.width; ++x) out.row(y)[x] = 0;
  }
}

// Bit width of v (0 for 0).
MALLAT_HD inline int bit_width(uint64_t v) {
#if defined(__CUDA_ARCH__)
  return 64 - __clzll(static_cast<long long>(v));
#else
  return v == 0 ? 0 : 64 - __builtin_clzll(v);
#endif
}

// The UVLC prefix at the head of `bits` (first bit lowest), Annex C.3.3:
// u's base value and the lengths of prefix and suffix.
struct UvlcPrefix {
  int base, prefix_length, suffix_length;
};
MALLAT_HD inline UvlcPrefix uvlc_prefix(uint64_t bits) {
  if (bits & 1) return {1, 1, 0};
  if (bits & 2) return {2, 2, 0};
  if (bits & 4) return {3, 3, 1};
  return {5, 3, 5};
}

MALLAT_HD inline UvlcPrefix take_uvlc_prefix(BackwardReader& vlc) {
  const UvlcPrefix prefix = uvlc_prefix(vlc.look());
  vlc.advance(prefix.prefix_length);
  return prefix;
}

MALLAT_HD inline int read_suffix(BackwardReader& vlc, const UvlcPrefix& prefix) {
  return prefix.base + static_cast<int>(vlc.read(prefix.suffix_length));
}

// Residuals u_q of a quad pair whose u_off flags are `off0`, `off1`.
MALLAT_HD inline void read_uvlc_pair(BackwardReader& vlc, MelDecoder& mel, bool initial, int off0, int off1,
                                     int u[2]) {
  u[0] = u[1] = 0;
  if (initial && off0 && off1) {
    if (mel.decode()) {
      // Both exceed 2 and are coded less 2.
      const UvlcPrefix a = take_uvlc_prefix(vlc);
      const UvlcPrefix b = take_uvlc_prefix(vlc);
      u[0] = 2 + read_suffix(vlc, a);
      u[1] = 2 + read_suffix(vlc, b);
      return;
    }
    const UvlcPrefix a = take_uvlc_prefix(vlc);
    if (a.base > 2) {
      // The second is 1 or 2: one bit.
      u[1] = 1 + static_cast<int>(vlc.read(1));
      u[0] = read_suffix(vlc, a);
      return;
    }
    const UvlcPrefix b = take_uvlc_prefix(vlc);
    u[0] = read_suffix(vlc, a);
    u[1] = read_suffix(vlc, b);
    return;
  }
  UvlcPrefix a{0, 0, 0}, b{0, 0, 0};
  if (off0) a = take_uvlc_prefix(vlc);
  if (off1) b = take_uvlc_prefix(vlc);
  if (off0) u[0] = read_suffix(vlc, a);
  if (off1) u[1] = read_suffix(vlc, b);
}

}  // namespace detail

// Decodes a cleanup segment of `length` bytes at plane p into `out` (values
// at their true weight, every sample written); `planes_above` K = Mb - p
// bounds the magnitudes (below 2^K at plane p). Returns false when the
// segment is corrupt (Lcup < 2, Scup out of range, an exponent bound beyond
// K + 1); `out` is then all zero. `rows` is working state.
MALLAT_HD inline bool decode_cleanup_shared(const uint8_t* segment, int64_t length, int p, int planes_above,
                                            PlaneView<int32_t> out, const SharedVlcTables& tables,
                                            QuadRows& rows) {
  CleanupLayout layout;
  if (!cleanup_layout(segment, length, layout)) {
    detail::clear(out);
    return false;
  }
  const int64_t pcup = layout.pcup;
  ForwardReader ms(segment, static_cast<size_t>(pcup), 0xFF);
  MelDecoder mel(segment + pcup, static_cast<size_t>(layout.scup - 1));
  BackwardReader vlc(segment + pcup, segment + length - 2, layout.vlc_bits, layout.vlc_count, layout.vlc_above_8f);

  const int width = static_cast<int>(out.width), height = static_cast<int>(out.height);
  const int quads_wide = (width + 1) / 2;
  rows.reset(quads_wide);
  const uint64_t mu_limit = (uint64_t{1} << planes_above) - 1;  // magnitudes at p are below 2^K

  for (int y = 0; y < height; y += 2, rows.next_row()) {
    const bool initial = rows.initial();
    const uint16_t* table = initial ? tables.decode_initial : tables.decode_other;
    int32_t* top = out.row(y);
    int32_t* bottom = y + 1 < height ? out.row(y + 1) : nullptr;
    // c_q and kappa_q (C.3.1, C.3.3) from sliding windows over the row
    // above, as the encoder's (shared_cleanup_encoder.h): the patterns of
    // the quads above-left and above of the next quad to decode with the
    // pattern of the last one decoded, and the exponents above columns
    // 2q - 1 and 2q of the next quad whose samples come.
    const uint8_t* rho_above = rows.rho_above();
    const uint8_t* e_above = rows.e_above();
    int rho_left = 0, rho_nw = rho_above[0], rho_n = rho_above[1];
    int e_w = e_above[0], e_n = e_above[1];
    for (int qx = 0; qx < quads_wide; qx += 2) {
      uint16_t entry[2] = {0, 0};
      for (int j = 0; j < 2 && qx + j < quads_wide; ++j) {
        const int q = qx + j;
        const int rho_ne = rho_above[q + 2];
        const int c_q = initial ? initial_row_context(rho_left) : other_row_context(rho_left, rho_nw, rho_n, rho_ne);
        // In context 0 a MEL event says whether the quad is significant
        // at all; only then does it have a codeword.
        if (c_q != 0 || mel.decode()) {
          entry[j] = table[c_q << 7 | (vlc.look() & 0x7F)];
          vlc.advance(decoded_length(entry[j]));
        }
        rho_left = decoded_rho(entry[j]);
        rho_nw = rho_n;
        rho_n = rho_ne;
      }
      int u[2];
      detail::read_uvlc_pair(vlc, mel, initial, decoded_u_off(entry[0]), decoded_u_off(entry[1]), u);

      for (int j = 0; j < 2 && qx + j < quads_wide; ++j) {
        const int q = qx + j;
        const int rho = decoded_rho(entry[j]);
        const int e_s = e_above[2 * q + 2], e_e = e_above[2 * q + 3];
        const int bound = u[j] + kappa_of(rho, e_w, e_n, e_s, e_e);  // U_q
        e_w = e_s;
        e_n = e_e;
        if (bound > planes_above + 1) {
          detail::clear(out);
          return false;
        }
        const int e_k = decoded_e_k(entry[j]), e_1 = decoded_e_1(entry[j]);
        int e[4] = {0, 0, 0, 0};
        int32_t value[4] = {0, 0, 0, 0};
        for (int n = 0; n < 4; ++n) {
          if (!(rho >> n & 1)) continue;
          const int m = bound - (e_k >> n & 1);
          // v = 2 (mu - 1) + sign: m bits from MagSgn, and the bit above
          // them known from e_1 where the exponent is U_q.
          const uint64_t v = ms.read(m) | static_cast<uint64_t>(e_1 >> n & 1) << m;
          e[n] = detail::bit_width(v | 1);
          const uint64_t mu = (v >> 1) + 1 < mu_limit ? (v >> 1) + 1 : mu_limit;
          const auto magnitude = static_cast<int32_t>(mu << p);
          value[n] = (v & 1) ? -magnitude : magnitude;
        }
        const int x = 2 * q;
        top[x] = value[0];
        if (bottom) bottom[x] = value[1];
        if (x + 1 < width) {
          top[x + 1] = value[2];
          if (bottom) bottom[x + 1] = value[3];
        }
        rows.set(q, rho, e[1], e[3]);
      }
    }
  }
  return true;
}

}  // namespace mallat::entropy::ht

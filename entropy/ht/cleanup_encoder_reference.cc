// The HT cleanup pass, encoder side (15444-15 Annex C), the plain reference
// the fast encoder (entropy/ht/cleanup_encoder.cc) is tested against: quads of 2x2
// samples in rows of quads, each coded as its significance pattern rho and
// exponent information through the context-adaptive VLC (with MEL events
// for quads in the all-insignificant context), the exponent bound's
// residual u_q through the UVLC, and each significant sample's low
// magnitude bits and sign in MagSgn.
#include <algorithm>
#include <bit>
#include <vector>

#include "entropy/ht/bit_streams.h"
#include "entropy/ht/cleanup_encoding.h"
#include "entropy/ht/passes.h"
#include "entropy/ht/quad_rows.h"
#include "entropy/ht/vlc_tables.h"

namespace mallat::entropy::ht {
namespace {

// One quad: rho, and per sample v = 2 (mu - 1) + sign and the exponent
// E = bit width of 2 mu - 1 (0 for an insignificant sample).
struct Quad {
  int rho = 0;
  int e_max = 0;
  int e[4] = {0, 0, 0, 0};
  uint64_t v[4] = {0, 0, 0, 0};

  // The samples whose exponent is `e`, as a pattern like rho's.
  int samples_at(int e_value) const {
    return (e[0] == e_value ? 1 : 0) | (e[1] == e_value ? 2 : 0) | (e[2] == e_value ? 4 : 0) | (e[3] == e_value ? 8 : 0);
  }
};

Quad load_quad(PlaneView<const int32_t> c, int64_t x, int64_t y, int shift) {
  Quad q;
  for (int n = 0; n < 4; ++n) {
    const int64_t xx = x + (n >> 1), yy = y + (n & 1);
    if (xx >= c.width || yy >= c.height) continue;
    const int32_t value = c.at(xx, yy);
    const uint32_t magnitude = value < 0 ? 0u - static_cast<uint32_t>(value) : static_cast<uint32_t>(value);
    const uint64_t mu = magnitude >> shift;
    if (mu == 0) continue;
    q.rho |= 1 << n;
    q.e[n] = std::bit_width(2 * mu - 1);
    q.v[n] = 2 * (mu - 1) + (value < 0 ? 1 : 0);
    q.e_max = std::max(q.e_max, q.e[n]);
  }
  return q;
}

}  // namespace

void encode_cleanup_reference(PlaneView<const int32_t> coefficients, int shift, std::vector<uint8_t>& segment) {
  const VlcEncodeTables& tables = vlc_encode_tables();
  // The streams in buffers of the thread's own, joined at the end into
  // `segment` in one allocation.
  thread_local std::vector<uint8_t> ms_bytes, mel_bytes, vlc_bytes;
  MelEncoder mel(mel_bytes);
  ForwardWriter ms(ms_bytes);
  // The VLC stream starts below the interface locator: a whole byte for
  // Scup's high 8 bits, then the low nibble of the next one (filled in at
  // the end; 0xF while coding, as the decoder's unstuffing sees 1s there).
  BackwardWriter vlc(vlc_bytes, 0xF, 4);
  vlc_bytes.push_back(0xFF);

  const int64_t width = coefficients.width, height = coefficients.height;
  const int64_t quads_wide = (width + 1) / 2;
  thread_local QuadRows rows;
  rows.reset(quads_wide);
  for (int64_t y = 0; y < height; y += 2, rows.next_row()) {
    const bool initial = rows.initial();
    const uint16_t* table = initial ? tables.initial_row.data() : tables.other_rows.data();
    for (int64_t qx = 0; qx < quads_wide; qx += 2) {
      int u[2] = {0, 0};
      for (int j = 0; j < 2 && qx + j < quads_wide; ++j) {
        const int64_t q = qx + j;
        const Quad quad = load_quad(coefficients, 2 * q, y, shift);
        const int c_q = rows.context(q);
        const int kappa = rows.kappa(q, quad.rho);
        const int bound = std::max(quad.e_max, kappa);  // U_q
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
      }
      put_uvlc(vlc, mel, initial, u);
    }
  }

  ms.finish_with_ones();
  finish_segment(mel, vlc, ms_bytes, mel_bytes, vlc_bytes, segment);
}

}  // namespace mallat::entropy::ht

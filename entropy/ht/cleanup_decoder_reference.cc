// The HT cleanup pass, decoder side (15444-15 Annex C), the plain reference
// the fast decoder (entropy/ht/cleanup_decoder.cc) is tested against: the mirror
// of entropy/ht/cleanup_encoder.cc, reading the VLC (with MEL events) and
// UVLC for a pair of quads, then their samples' MagSgn bits.
#include <algorithm>
#include <bit>
#include <vector>

#include "entropy/ht/bit_streams.h"
#include "entropy/ht/passes.h"
#include "entropy/ht/quad_rows.h"
#include "entropy/ht/vlc_tables.h"

namespace mallat::entropy::ht {
namespace {

// The UVLC prefix at the head of `bits` (first bit lowest): u's base value
// and the lengths of prefix and suffix.
struct UvlcPrefix {
  int base, prefix_length, suffix_length;
};
UvlcPrefix uvlc_prefix(uint64_t bits) {
  if (bits & 1) return {1, 1, 0};
  if (bits & 2) return {2, 2, 0};
  if (bits & 4) return {3, 3, 1};
  return {5, 3, 5};
}

int read_suffix(BackwardReader& vlc, const UvlcPrefix& prefix) {
  return prefix.base + static_cast<int>(vlc.read(prefix.suffix_length));
}

// Residuals u_q of a quad pair whose u_off flags are `off0`, `off1`.
void read_uvlc_pair(BackwardReader& vlc, MelDecoder& mel, bool initial, int off0, int off1, int u[2]) {
  u[0] = u[1] = 0;
  if (initial && off0 && off1) {
    if (mel.decode()) {
      // Both exceed 2 and are coded less 2.
      const UvlcPrefix a = uvlc_prefix(vlc.look());
      vlc.advance(a.prefix_length);
      const UvlcPrefix b = uvlc_prefix(vlc.look());
      vlc.advance(b.prefix_length);
      u[0] = 2 + read_suffix(vlc, a);
      u[1] = 2 + read_suffix(vlc, b);
      return;
    }
    const UvlcPrefix a = uvlc_prefix(vlc.look());
    vlc.advance(a.prefix_length);
    if (a.base > 2) {
      // The second is 1 or 2: one bit.
      u[1] = 1 + static_cast<int>(vlc.read(1));
      u[0] = read_suffix(vlc, a);
      return;
    }
    const UvlcPrefix b = uvlc_prefix(vlc.look());
    vlc.advance(b.prefix_length);
    u[0] = read_suffix(vlc, a);
    u[1] = read_suffix(vlc, b);
    return;
  }
  UvlcPrefix a{0, 0, 0}, b{0, 0, 0};
  if (off0) {
    a = uvlc_prefix(vlc.look());
    vlc.advance(a.prefix_length);
  }
  if (off1) {
    b = uvlc_prefix(vlc.look());
    vlc.advance(b.prefix_length);
  }
  if (off0) u[0] = read_suffix(vlc, a);
  if (off1) u[1] = read_suffix(vlc, b);
}

}  // namespace

bool decode_cleanup_reference(std::span<const uint8_t> segment, int p, int planes_above, PlaneView<int32_t> out) {
  CleanupLayout layout;
  if (!cleanup_layout(segment, layout)) {
    clear(out);
    return false;
  }
  const uint8_t* data = segment.data();
  const int64_t pcup = layout.pcup;
  ForwardReader ms(data, static_cast<size_t>(pcup), 0xFF);
  MelDecoder mel(data + pcup, static_cast<size_t>(layout.scup - 1));
  BackwardReader vlc(data + pcup, data + segment.size() - 2, layout.vlc_bits, layout.vlc_count, layout.vlc_above_8f);

  const VlcDecodeTables& tables = vlc_decode_tables();
  const int64_t width = out.width, height = out.height;
  const int64_t quads_wide = (width + 1) / 2;
  thread_local QuadRows rows;
  rows.reset(quads_wide);
  const uint64_t mu_limit = (uint64_t{1} << planes_above) - 1;  // magnitudes at p are below 2^K

  for (int64_t y = 0; y < height; y += 2, rows.next_row()) {
    const bool initial = rows.initial();
    const uint16_t* table = initial ? tables.initial_row.data() : tables.other_rows.data();
    int32_t* top = out.row(y);
    int32_t* bottom = y + 1 < height ? out.row(y + 1) : nullptr;
    for (int64_t qx = 0; qx < quads_wide; qx += 2) {
      uint16_t entry[2] = {0, 0};
      for (int j = 0; j < 2 && qx + j < quads_wide; ++j) {
        const int64_t q = qx + j;
        const int c_q = rows.context(q);
        // In context 0 a MEL event says whether the quad is significant
        // at all; only then does it have a codeword.
        if (c_q != 0 || mel.decode()) {
          entry[j] = table[c_q << 7 | (vlc.look() & 0x7F)];
          vlc.advance(decoded_length(entry[j]));
        }
        rows.set_rho(q, decoded_rho(entry[j]));
      }
      int u[2];
      read_uvlc_pair(vlc, mel, initial, decoded_u_off(entry[0]), decoded_u_off(entry[1]), u);

      for (int j = 0; j < 2 && qx + j < quads_wide; ++j) {
        const int64_t q = qx + j;
        const int rho = decoded_rho(entry[j]);
        const int bound = u[j] + rows.kappa(q, rho);  // U_q
        if (bound > planes_above + 1) {
          clear(out);
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
          e[n] = std::bit_width(v | 1);
          const uint64_t mu = std::min((v >> 1) + 1, mu_limit);
          const auto magnitude = static_cast<int32_t>(mu << p);
          value[n] = (v & 1) ? -magnitude : magnitude;
        }
        const int64_t x = 2 * q;
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

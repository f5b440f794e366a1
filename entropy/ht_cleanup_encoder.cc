// The HT cleanup pass, encoder side (15444-15 Annex C): quads of 2x2
// samples in rows of quads, each coded as its significance pattern rho and
// exponent information through the context-adaptive VLC (with MEL events
// for quads in the all-insignificant context), the exponent bound's
// residual u_q through the UVLC, and each significant sample's low
// magnitude bits and sign in MagSgn.
#include <algorithm>
#include <bit>
#include <vector>

#include "entropy/ht_bit_streams.h"
#include "entropy/ht_passes.h"
#include "entropy/ht_quad_rows.h"
#include "entropy/ht_vlc_tables.h"

namespace mallat::entropy::ht {
namespace {

// One quad: rho, and per sample v = 2 (mu - 1) + sign and the exponent
// E = bit width of 2 mu - 1 (0 for an insignificant sample).
struct Quad {
  int rho = 0;
  int e_max = 0;
  int e[4] = {0, 0, 0, 0};
  uint64_t v[4] = {0, 0, 0, 0};
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

// The UVLC prefix and suffix of u (Annex C): 1, 01, 001 + 1 bit, 000 + 5
// bits, first bit lowest. The encoder's u is at most 31, below the
// extension's range.
struct Uvlc {
  uint32_t prefix = 0, suffix = 0;
  int prefix_length = 0, suffix_length = 0;
};
Uvlc uvlc(int u) {
  if (u == 0) return {};
  if (u == 1) return {1, 0, 1, 0};
  if (u == 2) return {2, 0, 2, 0};
  if (u <= 4) return {4, static_cast<uint32_t>(u - 3), 3, 1};
  return {0, static_cast<uint32_t>(u - 5), 3, 5};
}

// Two quads' residuals: both prefixes, then both suffixes.
void put_uvlc_pair(BackwardWriter& vlc, int u0, int u1) {
  const Uvlc a = uvlc(u0), b = uvlc(u1);
  vlc.put(a.prefix, a.prefix_length);
  vlc.put(b.prefix, b.prefix_length);
  vlc.put(a.suffix, a.suffix_length);
  vlc.put(b.suffix, b.suffix_length);
}

// The MEL and VLC streams meet in the middle of the MEL+VLC part: their
// last bytes are fused into one when the bits each needs agree (Annex C,
// as OpenJPH terminates them), else written one each.
void terminate_mel_vlc(MelEncoder& mel, BackwardWriter& vlc, std::vector<uint8_t>& mel_bytes) {
  uint8_t mel_last = 0, mel_mask = 0;
  mel.finish(mel_last, mel_mask);
  const int vlc_bits = vlc.pending_bits();
  const auto vlc_mask = static_cast<uint8_t>(vlc_bits == 0 ? 0 : 0xFF >> (8 - vlc_bits));
  const uint8_t vlc_last = vlc.pending();
  if ((mel_mask | vlc_mask) == 0) return;
  const auto fuse = static_cast<uint8_t>(mel_last | vlc_last);
  if ((((fuse ^ mel_last) & mel_mask) | ((fuse ^ vlc_last) & vlc_mask)) == 0 && fuse != 0xFF &&
      vlc.bytes().size() > 1) {
    mel_bytes.push_back(fuse);
  } else {
    mel_bytes.push_back(mel_last);
    vlc.flush();
  }
}

}  // namespace

void encode_cleanup(PlaneView<const int32_t> coefficients, int shift, std::vector<uint8_t>& segment) {
  const VlcEncodeTables& tables = vlc_encode_tables();
  thread_local std::vector<uint8_t> mel_bytes, vlc_bytes;
  MelEncoder mel(mel_bytes);
  ForwardWriter ms(segment);
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
        int emb = 0;
        if (u[j] > 0) {
          for (int n = 0; n < 4; ++n) emb |= (quad.e[n] == bound ? 1 : 0) << n;
        }
        const uint16_t entry = table[c_q << 8 | quad.rho << 4 | emb];
        vlc.put(encoded_bits(entry), encoded_length(entry));
        if (c_q == 0) mel.encode(quad.rho != 0);
        const int e_k = encoded_e_k(entry);
        for (int n = 0; n < 4; ++n) {
          if (quad.rho >> n & 1) ms.put(quad.v[n], bound - (e_k >> n & 1));
        }
        rows.set(q, quad.rho, quad.e[1], quad.e[3]);
      }
      if (initial && u[0] > 0 && u[1] > 0) {
        // In the initial row a quad pair with both residuals non-zero says
        // by a MEL event whether both exceed 2 (then each is coded less 2);
        // if not and the first exceeds 2, the second (1 or 2) is one bit.
        const bool both_above_2 = std::min(u[0], u[1]) > 2;
        mel.encode(both_above_2);
        if (both_above_2) {
          put_uvlc_pair(vlc, u[0] - 2, u[1] - 2);
        } else if (u[0] > 2) {
          const Uvlc a = uvlc(u[0]);
          vlc.put(a.prefix, a.prefix_length);
          vlc.put(static_cast<uint32_t>(u[1] - 1), 1);
          vlc.put(a.suffix, a.suffix_length);
        } else {
          put_uvlc_pair(vlc, u[0], u[1]);
        }
      } else {
        put_uvlc_pair(vlc, u[0], u[1]);
      }
    }
  }

  ms.finish_with_ones();
  terminate_mel_vlc(mel, vlc, mel_bytes);
  const size_t scup = mel_bytes.size() + vlc_bytes.size();
  segment.insert(segment.end(), mel_bytes.begin(), mel_bytes.end());
  segment.insert(segment.end(), vlc_bytes.rbegin(), vlc_bytes.rend());
  // The interface locator word: Scup's high 8 bits in the last byte, its
  // low 4 in the low nibble of the byte before.
  const size_t lcup = segment.size();
  segment[lcup - 1] = static_cast<uint8_t>(scup >> 4);
  segment[lcup - 2] = static_cast<uint8_t>((segment[lcup - 2] & 0xF0) | (scup & 0xF));
}

}  // namespace mallat::entropy::ht

// The HT cleanup pass, decoder side (15444-15 Annex C), the fast way: the
// same decoding as ht_cleanup_decoder_reference.cc (the tests hold the two
// to the same samples), with the streams of ht_fast_readers.h, the UVLC
// prefixes of a quad pair from one small table, and the MagSgn bits of a
// quad taken from one refill.
#include <algorithm>
#include <bit>
#include <vector>

#include "entropy/ht_cleanup_isa.h"
#include "entropy/ht_fast_readers.h"
#include "entropy/ht_passes.h"
#include "entropy/ht_quad_rows.h"
#include "entropy/ht_vlc_tables.h"

namespace mallat::entropy::ht {
namespace {

// A UVLC prefix (Annex C, Table C.4's u_pfx): 1, 01, 001 or 000 (first bit
// lowest) read from the next 3 bits: u's base, the prefix's and the
// suffix's lengths.
struct UvlcPrefix {
  uint8_t base, prefix_length, suffix_length;
};
constexpr UvlcPrefix kUvlcPrefix[8] = {{5, 3, 5}, {1, 1, 0}, {2, 2, 0}, {1, 1, 0},
                                       {3, 3, 1}, {1, 1, 0}, {2, 2, 0}, {1, 1, 0}};
constexpr UvlcPrefix kNoUvlc = {0, 0, 0};

// u_q of a quad pair: prefixes, then suffixes, of those whose u_off is set
// (every case but the initial row's pair with both set).
inline void read_uvlc_pair(fast::BackwardReader& vlc, bool off0, bool off1, int u[2]) {
  const uint64_t bits = vlc.look();
  const UvlcPrefix a = off0 ? kUvlcPrefix[bits & 7] : kNoUvlc;
  const UvlcPrefix b = off1 ? kUvlcPrefix[(bits >> a.prefix_length) & 7] : kNoUvlc;
  vlc.advance(a.prefix_length + b.prefix_length);
  const uint64_t suffixes = vlc.look();
  u[0] = a.base + static_cast<int>(low_bits(suffixes, a.suffix_length));
  u[1] = b.base + static_cast<int>(low_bits(suffixes >> a.suffix_length, b.suffix_length));
  vlc.advance(a.suffix_length + b.suffix_length);
}

// The initial row's pair with both u_off set: a MEL event says whether both
// exceed 2 (then each is coded less 2); if not and the first's prefix says
// it exceeds 2, the second (1 or 2) is one bit before the first's suffix.
inline void read_initial_uvlc_pair(fast::BackwardReader& vlc, fast::MelDecoder& mel, int u[2]) {
  if (mel.decode()) {
    read_uvlc_pair(vlc, true, true, u);
    u[0] += 2;
    u[1] += 2;
    return;
  }
  const UvlcPrefix a = kUvlcPrefix[vlc.look() & 7];
  if (a.base <= 2) {
    read_uvlc_pair(vlc, true, true, u);
    return;
  }
  vlc.advance(a.prefix_length);
  const uint64_t bits = vlc.look();
  u[1] = 1 + static_cast<int>(bits & 1);
  u[0] = a.base + static_cast<int>(low_bits(bits >> 1, a.suffix_length));
  vlc.advance(1 + a.suffix_length);
}

// The decoder, inlined into one function per instruction set.
[[gnu::always_inline]] inline bool decode(std::span<const uint8_t> segment, int p, int planes_above,
                                          PlaneView<int32_t> out) {
  CleanupLayout layout;
  if (!cleanup_layout(segment, layout)) {
    clear(out);
    return false;
  }
  const uint8_t* data = segment.data();
  const int64_t pcup = layout.pcup;
  fast::ForwardReader ms(data, static_cast<size_t>(pcup));
  fast::MelDecoder mel(data + pcup, static_cast<size_t>(layout.scup - 1));
  fast::BackwardReader vlc(data + pcup, data + segment.size() - 2, layout.vlc_bits, layout.vlc_count, layout.vlc_above_8f);

  const VlcDecodeTables& tables = vlc_decode_tables();
  const int64_t width = out.width, height = out.height;
  const int64_t quads_wide = (width + 1) / 2;
  thread_local QuadRows rows;
  rows.reset(quads_wide);
  const uint64_t mu_limit = (uint64_t{1} << planes_above) - 1;  // magnitudes at p are below 2^K
  const int max_bound = planes_above + 1;

  for (int64_t y = 0; y < height; y += 2, rows.next_row()) {
    const bool initial = rows.initial();
    const uint16_t* table = initial ? tables.initial_row.data() : tables.other_rows.data();
    int32_t* top = out.row(y);
    int32_t* bottom = y + 1 < height ? out.row(y + 1) : nullptr;
    for (int64_t qx = 0; qx < quads_wide; qx += 2) {
      const bool pair = qx + 1 < quads_wide;
      uint16_t entry[2] = {0, 0};
      for (int j = 0; j < 1 + (pair ? 1 : 0); ++j) {
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
      int u[2] = {0, 0};
      const bool off0 = decoded_u_off(entry[0]) != 0, off1 = decoded_u_off(entry[1]) != 0;
      if (initial && off0 && off1) {
        read_initial_uvlc_pair(vlc, mel, u);
      } else if (off0 || off1) {
        read_uvlc_pair(vlc, off0, off1, u);
      }

      for (int j = 0; j < 1 + (pair ? 1 : 0); ++j) {
        const int64_t q = qx + j;
        const int64_t x = 2 * q;
        const int rho = decoded_rho(entry[j]);
        const int bound = u[j] + rows.kappa(q, rho);  // U_q
        if (bound > max_bound) {
          clear(out);
          return false;
        }
        // Without branches on rho's bits (they do not predict): an
        // insignificant sample reads no bits and comes out 0.
        const int e_k = decoded_e_k(entry[j]), e_1 = decoded_e_1(entry[j]);
        // Sample n's value, and its exponent in e (scalars, not arrays:
        // a store of 4 bytes read back as 8 stalls).
        auto sample = [&](int n, int& e) -> int32_t {
          const int significant = rho >> n & 1;
          const int m = significant ? bound - (e_k >> n & 1) : 0;
          // v = 2 (mu - 1) + sign: m bits from MagSgn, and the bit above
          // them known from e_1 where the exponent is U_q.
          ms.ensure(m);
          const uint64_t v = low_bits(ms.bits(), m) | static_cast<uint64_t>(e_1 >> n & 1) << m;
          ms.advance(m);
          e = significant * std::bit_width(v | 1);
          const uint64_t mu = std::min((v >> 1) + 1, mu_limit);
          const auto magnitude = static_cast<int32_t>(mu << p);
          return significant ? ((v & 1) ? -magnitude : magnitude) : 0;
        };
        int e_top = 0, e_bottom_left = 0, e_bottom_right = 0;
        const int32_t top_left = sample(0, e_top);
        const int32_t bottom_left = sample(1, e_bottom_left);
        const int32_t top_right = sample(2, e_top);
        const int32_t bottom_right = sample(3, e_bottom_right);
        top[x] = top_left;
        if (bottom) bottom[x] = bottom_left;
        if (x + 1 < width) {
          top[x + 1] = top_right;
          if (bottom) bottom[x + 1] = bottom_right;
        }
        rows.set(q, rho, e_bottom_left, e_bottom_right);
      }
    }
  }
  return true;
}

bool decode_generic(std::span<const uint8_t> segment, int p, int planes_above, PlaneView<int32_t> out) {
  return decode(segment, p, planes_above, out);
}

#if MALLAT_HT_BMI2
[[gnu::target("bmi,bmi2,lzcnt,popcnt")]] bool decode_bmi2(std::span<const uint8_t> segment, int p,
                                                         int planes_above, PlaneView<int32_t> out) {
  return decode(segment, p, planes_above, out);
}
#endif

}  // namespace

bool decode_cleanup(std::span<const uint8_t> segment, int p, int planes_above, PlaneView<int32_t> out,
                    CleanupIsa isa) {
#if MALLAT_HT_BMI2
  if (resolve_cleanup_isa(isa) == CleanupIsa::kBmi2) return decode_bmi2(segment, p, planes_above, out);
#endif
  (void)isa;
  return decode_generic(segment, p, planes_above, out);
}

}  // namespace mallat::entropy::ht

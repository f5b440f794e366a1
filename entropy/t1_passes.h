// The three coding passes of D.3 over the fast state (t1_flags.h), written
// once for both directions: a symbol coder's code(context, bit) encodes `bit`
// and returns it, or ignores `bit` and returns the decoded one. Internal to
// the entropy module.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "entropy/mq_decoder.h"
#include "entropy/mq_encoder.h"
#include "entropy/raw_coder.h"
#include "entropy/t1_contexts.h"
#include "entropy/t1_flags.h"
#include "entropy/t1_schedule.h"

namespace mallat::entropy::detail {

// Sign of the sample itself, kept in its flag word.
inline constexpr uint32_t kNegSelf = 1u << 15;

// The state of one code-block during coding, in scan order: for each stripe
// of four rows (D.1), for each column, the four samples of that column are
// adjacent, so one column's flags are tested together. A border of one
// column each side and one stripe above and below means neighbours need no
// bounds checks. Magnitudes use the same layout.
struct T1State {
  int width = 0;
  int height = 0;
  int stripe_stride = 0;  // words from a stripe to the next: 4 * (width + 2)
  std::vector<uint32_t> flag_storage;
  std::vector<uint32_t> magnitude_storage;
  double distortion = 0.0;  // encoder: running sum for the current pass

  void reset(int w, int h) {
    width = w;
    height = h;
    stripe_stride = 4 * (w + 2);
    const size_t words = static_cast<size_t>(stripe_stride) * ((h + 3) / 4 + 2);
    flag_storage.assign(words, 0);
    magnitude_storage.assign(words, 0);
    distortion = 0.0;
  }
  size_t index(int x, int y) const {
    return static_cast<size_t>((y / 4 + 1) * stripe_stride + (x + 1) * 4 + (y % 4));
  }
  uint32_t* flags(int x, int y) { return flag_storage.data() + index(x, y); }
  uint32_t* magnitude(int x, int y) { return magnitude_storage.data() + index(x, y); }
};

// Squared-error decrease (integer domain) when bit-plane p of a magnitude
// becomes known, the decoder reconstructing at the middle of the interval
// left (E.1.1.2; exact at p = 0). With r_p the bits below p and
// h_p = 2^(p-1) (0 at p = 0), the error is r_p - h_p once significant.
struct PlaneGains {
  uint64_t low_mask;  // 2^p - 1
  int64_t half;       // h_p
  int64_t half_above; // h_(p+1) = 2^p
  explicit PlaneGains(int p)
      : low_mask((uint64_t{1} << p) - 1), half(p > 0 ? int64_t{1} << (p - 1) : 0),
        half_above(int64_t{1} << p) {}

  double significance(uint32_t mag) const {
    const int64_t e = static_cast<int64_t>(mag & low_mask) - half;
    return static_cast<double>(static_cast<int64_t>(uint64_t{mag} * mag - static_cast<uint64_t>(e * e)));
  }
  double refinement(uint32_t mag) const {
    const int64_t before = static_cast<int64_t>(mag & (2 * low_mask + 1)) - half_above;
    const int64_t after = static_cast<int64_t>(mag & low_mask) - half;
    return static_cast<double>(before * before - after * after);
  }
};

// Symbol coders. MQ ones take the context number; raw ones ignore it.
// MQ ones carry their contexts by value so a pass works on a local copy.
struct MqEncodeSymbols {
  static constexpr bool kEncoder = true, kRaw = false;
  MqEncoder mq;
  MqContexts cx;
  inline uint32_t code(int ctx, uint32_t bit) {
    mq.encode(cx[ctx], bit);
    return bit;
  }
};
struct MqDecodeSymbols {
  static constexpr bool kEncoder = false, kRaw = false;
  MqDecoder mq;
  MqContexts cx;
  inline uint32_t code(int ctx, uint32_t) { return mq.decode(cx[ctx]); }
};
struct RawEncodeSymbols {
  static constexpr bool kEncoder = true, kRaw = true;
  RawEncoder raw;
  inline uint32_t code(int, uint32_t bit) {
    raw.encode(bit);
    return bit;
  }
};
struct RawDecodeSymbols {
  static constexpr bool kEncoder = false, kRaw = true;
  RawDecoder raw;
  inline uint32_t code(int, uint32_t) { return raw.decode(); }
};

// D.3.2 / D.3.3: the sample in row r of its stripe column becomes
// significant: tell its eight neighbours. The vertical neighbours of rows 0
// and 3 are in the stripes above and below.
inline void become_significant(uint32_t* f, int r, int stripe_stride, uint32_t negative) {
  const int up = r > 0 ? -1 : 3 - stripe_stride;
  const int down = r < 3 ? 1 : stripe_stride - 3;
  f[0] |= kSig | (negative ? kNegSelf : 0);
  f[up] |= kSigS | (negative ? kNegS : 0);
  f[down] |= kSigN | (negative ? kNegN : 0);
  f[-4] |= kSigE | (negative ? kNegE : 0);
  f[4] |= kSigW | (negative ? kNegW : 0);
  f[up - 4] |= kSigSE;
  f[up + 4] |= kSigSW;
  f[down - 4] |= kSigNE;
  f[down + 4] |= kSigNW;
}

// D.3.2 sign coding for a sample just found significant; returns 1 if negative.
template <class Coder>
inline uint32_t code_sign(Coder& c, uint32_t masked_flags, uint32_t own_flags) {
  const uint32_t negative = (own_flags & kNegSelf) ? 1 : 0;  // known to the encoder only
  if constexpr (Coder::kRaw) {
    return c.code(0, negative);
  } else {
    const uint32_t lut = kSignLut[sign_lut_index(masked_flags)];
    const uint32_t x = lut >> 7;
    return c.code(static_cast<int>(lut & 31), negative ^ x) ^ x;
  }
}

// A sample found significant at bit-plane p: its sign, its neighbours'
// flags, and its magnitude (decoder) or the distortion it removes (encoder).
template <class Coder>
inline void code_new_significance(Coder& c, uint32_t* f, uint32_t* m, uint32_t masked_flags,
                                  int r, int stripe_stride, int p, const PlaneGains& gains,
                                  double& dist) {
  const uint32_t neg = code_sign(c, masked_flags, *f);
  become_significant(f, r, stripe_stride, neg);
  if constexpr (Coder::kEncoder) {
    dist += gains.significance(*m);
  } else {
    *m = 1u << p;
  }
}

// D.3.1 significance propagation pass for bit-plane p.
template <class Coder, bool kVsc>
void significance_pass(Coder& coder, T1State& s, const uint8_t* zc_lut, int p) {
  Coder c = coder;
  const int stride = s.stripe_stride;
  const int width = s.width;
  const int height = s.height;
  uint32_t* const flags0 = s.flags(0, 0);
  uint32_t* const mag0 = s.magnitude(0, 0);
  const PlaneGains gains(p);
  double dist = 0.0;
  for (int y0 = 0; y0 < height; y0 += 4) {
    const int rows = height - y0 < 4 ? height - y0 : 4;
    uint32_t* f = flags0 + y0 / 4 * stride - 4;
    uint32_t* m = mag0 + y0 / 4 * stride - 4;
    for (int x = 0; x < width; ++x) {
      f += 4;
      m += 4;
      // Nothing to do in a column with no significant neighbour anywhere.
      if (((f[0] | f[1] | f[2] | f[3]) & kNeighbourSig) == 0) continue;
      for (int r = 0; r < rows; ++r) {
        uint32_t fl = f[r];
        if (fl & kSig) continue;
        if (kVsc && r == 3) fl &= ~kBelowStripe;
        if ((fl & kNeighbourSig) == 0) continue;
        const uint32_t bit = c.code(zc_lut[fl & kNeighbourSig], (m[r] >> p) & 1);
        f[r] |= kVisited;
        if (bit) code_new_significance(c, f + r, m + r, fl, r, stride, p, gains, dist);
      }
    }
  }
  s.distortion += dist;
  coder = c;
}

// D.3.3 magnitude refinement pass for bit-plane p.
template <class Coder, bool kVsc>
void refinement_pass(Coder& coder, T1State& s, int p) {
  Coder c = coder;
  const int stride = s.stripe_stride;
  const int width = s.width;
  const int height = s.height;
  uint32_t* const flags0 = s.flags(0, 0);
  uint32_t* const mag0 = s.magnitude(0, 0);
  const PlaneGains gains(p);
  double dist = 0.0;
  for (int y0 = 0; y0 < height; y0 += 4) {
    const int rows = height - y0 < 4 ? height - y0 : 4;
    uint32_t* f = flags0 + y0 / 4 * stride - 4;
    uint32_t* m = mag0 + y0 / 4 * stride - 4;
    for (int x = 0; x < width; ++x) {
      f += 4;
      m += 4;
      if (((f[0] | f[1] | f[2] | f[3]) & kSig) == 0) continue;
      for (int r = 0; r < rows; ++r) {
        uint32_t fl = f[r];
        if ((fl & (kSig | kVisited)) != kSig) continue;
        if (kVsc && r == 3) fl &= ~kBelowStripe;
        const int ctx = (fl & kRefined) ? 16 : (fl & kNeighbourSig) ? 15 : 14;
        const uint32_t bit = c.code(ctx, (m[r] >> p) & 1);
        f[r] |= kRefined;
        if constexpr (Coder::kEncoder) {
          dist += gains.refinement(m[r]);
        } else {
          m[r] |= bit << p;
        }
      }
    }
  }
  s.distortion += dist;
  coder = c;
}

// D.3.4 cleanup pass for bit-plane p, with the run-length mode; clears the
// visited marks for the next bit-plane.
template <class Coder, bool kVsc>
void cleanup_pass(Coder& coder, T1State& s, const uint8_t* zc_lut, int p) {
  Coder c = coder;
  const int stride = s.stripe_stride;
  const int width = s.width;
  const int height = s.height;
  uint32_t* const flags0 = s.flags(0, 0);
  uint32_t* const mag0 = s.magnitude(0, 0);
  const PlaneGains gains(p);
  double dist = 0.0;
  auto code_sample = [&](uint32_t* f, uint32_t* m, int r) {
    uint32_t fl = *f;
    if ((fl & (kSig | kVisited)) == 0) {
      if (kVsc && r == 3) fl &= ~kBelowStripe;
      if (c.code(zc_lut[fl & kNeighbourSig], (*m >> p) & 1)) {
        code_new_significance(c, f, m, fl, r, stride, p, gains, dist);
      }
    }
    *f &= ~kVisited;
  };
  for (int y0 = 0; y0 < height; y0 += 4) {
    const int rows = height - y0 < 4 ? height - y0 : 4;
    uint32_t* f = flags0 + y0 / 4 * stride - 4;
    uint32_t* m = mag0 + y0 / 4 * stride - 4;
    for (int x = 0; x < width; ++x) {
      f += 4;
      m += 4;
      int r = 0;
      if (rows == 4) {
        constexpr uint32_t kBusy = kSig | kVisited | kNeighbourSig;
        const uint32_t last = kVsc ? f[3] & ~kBelowStripe : f[3];
        if (((f[0] | f[1] | f[2] | last) & kBusy) == 0) {
          // Run-length mode: one symbol says whether any of the four
          // becomes significant, two UNIFORM symbols say which is first.
          uint32_t first = 4;
          if constexpr (Coder::kEncoder) {
            for (uint32_t k = 0; k < 4; ++k) {
              if ((m[k] >> p) & 1) {
                first = k;
                break;
              }
            }
          }
          if (!c.code(kRunLengthContext, first < 4)) continue;
          r = static_cast<int>(c.code(kUniformContext, (first >> 1) & 1) << 1);
          r |= static_cast<int>(c.code(kUniformContext, first & 1));
          uint32_t* fr = f + r;
          uint32_t* mr = m + r;
          uint32_t fl = *fr;
          if (kVsc && r == 3) fl &= ~kBelowStripe;
          code_new_significance(c, fr, mr, fl, r, stride, p, gains, dist);
          ++r;
        }
      }
      for (; r < rows; ++r) code_sample(f + r, m + r, r);
    }
  }
  s.distortion += dist;
  coder = c;
}

// Runs pass `type` for bit-plane p with the MQ coder, or the raw one where
// BYPASS says so (the cleanup pass is never raw).
template <bool kVsc, class Mq, class Raw>
void run_pass(PassType type, bool raw, Mq& mq, Raw& rw, T1State& s, const uint8_t* zc_lut, int p) {
  switch (type) {
    case PassType::kSignificance:
      if (raw) {
        significance_pass<Raw, kVsc>(rw, s, zc_lut, p);
      } else {
        significance_pass<Mq, kVsc>(mq, s, zc_lut, p);
      }
      break;
    case PassType::kRefinement:
      if (raw) {
        refinement_pass<Raw, kVsc>(rw, s, p);
      } else {
        refinement_pass<Mq, kVsc>(mq, s, p);
      }
      break;
    case PassType::kCleanup:
      cleanup_pass<Mq, kVsc>(mq, s, zc_lut, p);
      break;
  }
}

}  // namespace mallat::entropy::detail

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

// The state of one code-block during coding: magnitudes (w x h) and flag
// words with a one-sample border all round, so neighbours need no checks.
struct T1State {
  int width = 0;
  int height = 0;
  int flag_stride = 0;
  std::vector<uint32_t> flag_storage;
  std::vector<uint32_t> magnitude;
  double distortion = 0.0;  // encoder: running sum for the current pass

  void reset(int w, int h) {
    width = w;
    height = h;
    flag_stride = w + 2;
    flag_storage.assign(static_cast<size_t>(w + 2) * (h + 2), 0);
    magnitude.assign(static_cast<size_t>(w) * h, 0);
    distortion = 0.0;
  }
  uint32_t* flags(int x, int y) { return flag_storage.data() + (y + 1) * flag_stride + x + 1; }
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

// D.3.2 / D.3.3: a sample becomes significant: tell its eight neighbours.
inline void become_significant(uint32_t* f, int stride, uint32_t negative) {
  f[0] |= kSig | (negative ? kNegSelf : 0);
  f[-stride] |= kSigS | (negative ? kNegS : 0);
  f[stride] |= kSigN | (negative ? kNegN : 0);
  f[-1] |= kSigE | (negative ? kNegE : 0);
  f[1] |= kSigW | (negative ? kNegW : 0);
  f[-stride - 1] |= kSigSE;
  f[-stride + 1] |= kSigSW;
  f[stride - 1] |= kSigNE;
  f[stride + 1] |= kSigNW;
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
                                  int stride, int p, const PlaneGains& gains, double& dist) {
  const uint32_t neg = code_sign(c, masked_flags, *f);
  become_significant(f, stride, neg);
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
  const int stride = s.flag_stride;
  const int width = s.width;
  const int height = s.height;
  uint32_t* const flags0 = s.flags(0, 0);
  uint32_t* const mag0 = s.magnitude.data();
  const PlaneGains gains(p);
  double dist = 0.0;
  for (int y0 = 0; y0 < height; y0 += 4) {
    const int rows = height - y0 < 4 ? height - y0 : 4;
    for (int x = 0; x < width; ++x) {
      uint32_t* f = flags0 + y0 * stride + x;
      uint32_t* m = mag0 + y0 * width + x;
      for (int r = 0; r < rows; ++r, f += stride, m += width) {
        uint32_t fl = *f;
        if (fl & kSig) continue;
        if (kVsc && r == 3) fl &= ~kBelowStripe;
        if ((fl & kNeighbourSig) == 0) continue;
        const uint32_t bit = c.code(zc_lut[fl & kNeighbourSig], (*m >> p) & 1);
        *f |= kVisited;
        if (bit) code_new_significance(c, f, m, fl, stride, p, gains, dist);
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
  const int stride = s.flag_stride;
  const int width = s.width;
  const int height = s.height;
  uint32_t* const flags0 = s.flags(0, 0);
  uint32_t* const mag0 = s.magnitude.data();
  const PlaneGains gains(p);
  double dist = 0.0;
  for (int y0 = 0; y0 < height; y0 += 4) {
    const int rows = height - y0 < 4 ? height - y0 : 4;
    for (int x = 0; x < width; ++x) {
      uint32_t* f = flags0 + y0 * stride + x;
      uint32_t* m = mag0 + y0 * width + x;
      for (int r = 0; r < rows; ++r, f += stride, m += width) {
        uint32_t fl = *f;
        if ((fl & (kSig | kVisited)) != kSig) continue;
        if (kVsc && r == 3) fl &= ~kBelowStripe;
        const int ctx = (fl & kRefined) ? 16 : (fl & kNeighbourSig) ? 15 : 14;
        const uint32_t bit = c.code(ctx, (*m >> p) & 1);
        *f |= kRefined;
        if constexpr (Coder::kEncoder) {
          dist += gains.refinement(*m);
        } else {
          *m |= bit << p;
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
  const int stride = s.flag_stride;
  const int width = s.width;
  const int height = s.height;
  uint32_t* const flags0 = s.flags(0, 0);
  uint32_t* const mag0 = s.magnitude.data();
  const PlaneGains gains(p);
  double dist = 0.0;
  auto code_sample = [&](uint32_t* f, uint32_t* m, int r) {
    uint32_t fl = *f;
    if ((fl & (kSig | kVisited)) == 0) {
      if (kVsc && r == 3) fl &= ~kBelowStripe;
      if (c.code(zc_lut[fl & kNeighbourSig], (*m >> p) & 1)) {
        code_new_significance(c, f, m, fl, stride, p, gains, dist);
      }
    }
    *f &= ~kVisited;
  };
  for (int y0 = 0; y0 < height; y0 += 4) {
    const int rows = height - y0 < 4 ? height - y0 : 4;
    for (int x = 0; x < width; ++x) {
      uint32_t* f = flags0 + y0 * stride + x;
      uint32_t* m = mag0 + y0 * width + x;
      int r = 0;
      if (rows == 4) {
        constexpr uint32_t kBusy = kSig | kVisited | kNeighbourSig;
        const uint32_t last = kVsc ? f[3 * stride] & ~kBelowStripe : f[3 * stride];
        if (((f[0] | f[stride] | f[2 * stride]) & kBusy) == 0 && (last & kBusy) == 0) {
          // Run-length mode: one symbol says whether any of the four
          // becomes significant, two UNIFORM symbols say which is first.
          uint32_t first = 4;
          if constexpr (Coder::kEncoder) {
            for (uint32_t k = 0; k < 4; ++k) {
              if ((m[k * width] >> p) & 1) {
                first = k;
                break;
              }
            }
          }
          if (!c.code(kRunLengthContext, first < 4)) continue;
          r = static_cast<int>(c.code(kUniformContext, (first >> 1) & 1) << 1);
          r |= static_cast<int>(c.code(kUniformContext, first & 1));
          uint32_t* fr = f + r * stride;
          uint32_t* mr = m + r * width;
          uint32_t fl = *fr;
          if (kVsc && r == 3) fl &= ~kBelowStripe;
          code_new_significance(c, fr, mr, fl, stride, p, gains, dist);
          ++r;
        }
      }
      for (; r < rows; ++r) code_sample(f + r * stride, m + r * width, r);
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

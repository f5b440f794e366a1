// The three coding passes of D.3 over the fast state (entropy/ebcot/flags.h), written
// once for both directions: a symbol coder's code(context, bit) encodes `bit`
// and returns it, or ignores `bit` and returns the decoded one. Internal to
// the entropy module. Host and device code (host_device.h): the passes are
// templates over the state too, so the shared encoder (entropy/ebcot/shared_encoder.h)
// runs these same passes on a fixed-size state, on the CPU and the GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "entropy/host_device.h"
#include "entropy/ebcot/mq_encoder.h"
#include "entropy/ebcot/raw_coder.h"
#include "entropy/ebcot/contexts.h"
#include "entropy/ebcot/distortion_sum.h"
#include "entropy/ebcot/flags.h"
#include "entropy/ebcot/schedule.h"

namespace mallat::entropy::detail {

// The state of one code-block during coding: a column word (entropy/ebcot/flags.h)
// per stripe column, stripe by stripe, with a border column each side and a
// border stripe above and below so neighbours need no bounds checks; and the
// magnitudes in scan order (the four samples of a column adjacent).
struct T1State {
  // The CPU's coder reads a column's magnitudes where it needs them (an
  // out-of-order core overlaps the loads itself, so loading every column's
  // ahead only adds work, most of it on small magnitudes, which code few
  // symbols); see for_each_column.
  static constexpr bool kLoadAhead = false;
  int width = 0;
  int height = 0;
  int column_stride = 0;  // words from a stripe to the next: width + 2
  std::vector<uint32_t> column_storage;
  std::vector<uint32_t> magnitude_storage;
  double distortion = 0.0;  // encoder: running sum for the current pass

  void reset(int w, int h) {
    width = w;
    height = h;
    column_stride = w + 2;
    const size_t columns = static_cast<size_t>(column_stride) * ((h + 3) / 4 + 2);
    column_storage.assign(columns, 0);
    // Not cleared: the encoder sets every magnitude it reads, and the
    // decoder sets a magnitude when the sample becomes significant and
    // masks the others out.
    magnitude_storage.resize(4 * columns);
    distortion = 0.0;
  }
  uint32_t* column(int x, int y) {
    return column_storage.data() + (y / 4 + 1) * column_stride + x + 1;
  }
  // Magnitude of (x, y); along a row, samples are 4 words apart.
  uint32_t* magnitude(int x, int y) {
    return magnitude_storage.data() + 4 * ((y / 4 + 1) * column_stride + x + 1) + y % 4;
  }
};

// Squared-error decrease (integer domain) when bit-plane p of a magnitude
// becomes known, the decoder reconstructing at the middle of the interval
// left (E.1.1.2; exact at p = 0). With r_p the bits below p and
// h_p = 2^(p-1) (0 at p = 0), the error is r_p - h_p once significant.
struct PlaneGains {
  uint64_t low_mask;  // 2^p - 1
  int64_t half;       // h_p
  int64_t half_above; // h_(p+1) = 2^p
  MALLAT_HD explicit PlaneGains(int p)
      : low_mask((uint64_t{1} << p) - 1), half(p > 0 ? int64_t{1} << (p - 1) : 0),
        half_above(int64_t{1} << p) {}

  MALLAT_HD int64_t significance(uint32_t mag) const {
    const int64_t e = static_cast<int64_t>(mag & low_mask) - half;
    return static_cast<int64_t>(uint64_t{mag} * mag - static_cast<uint64_t>(e * e));
  }
  MALLAT_HD int64_t refinement(uint32_t mag) const {
    const int64_t before = static_cast<int64_t>(mag & (2 * low_mask + 1)) - half_above;
    const int64_t after = static_cast<int64_t>(mag & low_mask) - half;
    return before * before - after * after;
  }
};

// Symbol coders. MQ ones take the context number; raw ones ignore it.
// MQ ones carry their contexts by value so a pass works on a local copy.
// code() is for decisions close to coin tosses, which the MQ encoder codes
// without branches; code_skewed() for the cleanup pass's, mostly the MPS,
// where the branchy coder's short predicted path is faster.
template <class Encoder>
struct BasicMqEncodeSymbols {
  static constexpr bool kEncoder = true, kRaw = false;
  Encoder mq;
  MqContexts cx;
  [[gnu::always_inline]] MALLAT_HD inline uint32_t code(int ctx, uint32_t bit) {
    mq.encode_branchless(cx[ctx], bit);
    return bit;
  }
  [[gnu::always_inline]] MALLAT_HD inline uint32_t code_skewed(int ctx, uint32_t bit) {
    mq.encode(cx[ctx], bit);
    return bit;
  }
};
using MqEncodeSymbols = BasicMqEncodeSymbols<MqEncoder>;
template <class Encoder>
struct BasicRawEncodeSymbols {
  static constexpr bool kEncoder = true, kRaw = true;
  Encoder raw;
  MALLAT_HD inline uint32_t code(int, uint32_t bit) {
    raw.encode(bit);
    return bit;
  }
};
using RawEncodeSymbols = BasicRawEncodeSymbols<RawEncoder>;
struct RawDecodeSymbols {
  static constexpr bool kEncoder = false, kRaw = true;
  RawDecoder raw;
  MALLAT_HD inline uint32_t code(int, uint32_t) { return raw.decode(); }
};

// A stripe column's word with its left and right neighbours' (entropy/ebcot/flags.h),
// held in registers while the column is coded: the passes load each word
// once, ahead of its column, and store it after, instead of reading it
// back after every change. Only a neighbouring stripe's words (the rows
// above and below the window) are changed through memory.
struct ColumnWords {
  uint32_t prev = 0;  // the column to the left
  uint32_t cur = 0;   // this column
  uint32_t next = 0;  // the column to the right
};

// A stripe column's four magnitudes (T1State's layout keeps them
// adjacent), held in registers while the column is coded. The next
// column's are loaded before this one is coded, so on the GPU, where a
// thread waits for each load it uses, the wait overlaps the coding.
struct ColumnMagnitudes {
  uint32_t v[4];
};
// On the GPU the column is one 16-byte access: the shared coder's state
// (T1FixedState) aligns its magnitudes so.
MALLAT_HD inline ColumnMagnitudes load_magnitudes(const uint32_t* m) {
#if defined(__CUDA_ARCH__)
  const uint4 q = *reinterpret_cast<const uint4*>(m);
  return {{q.x, q.y, q.z, q.w}};
#else
  return {{m[0], m[1], m[2], m[3]}};
#endif
}
MALLAT_HD inline void store_magnitudes(uint32_t* m, const ColumnMagnitudes& c) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<uint4*>(m) = make_uint4(c.v[0], c.v[1], c.v[2], c.v[3]);
#else
  m[0] = c.v[0];
  m[1] = c.v[1];
  m[2] = c.v[2];
  m[3] = c.v[3];
#endif
}

// Magnitude of row r of a column: from the registers where the state's
// walk loads them ahead (for_each_column), else from the state.
template <bool kAhead, int r>
MALLAT_HD inline uint32_t magnitude_of(const ColumnMagnitudes& mags, const uint32_t* m) {
  if constexpr (kAhead) {
    return mags.v[r];
  } else {
    return m[r];
  }
}

// D.3.2 / D.3.3: the sample in row r of the column (words `w`, the word
// itself at `f`) becomes significant: set its bit in the windows of its own
// and the neighbouring columns, and, for the stripe's first and last rows,
// in the windows of the stripes above and below.
template <int r>
MALLAT_HD inline void become_significant(ColumnWords& w, uint32_t* f, int column_stride, uint32_t negative) {
  constexpr int j = r + 1;
  w.prev |= window_sig_bit(j, 2);
  w.cur |= window_sig_bit(j, 1) | (negative ? sign_bit(j) : 0);
  w.next |= window_sig_bit(j, 0);
  if constexpr (r == 0) {
    uint32_t* up = f - column_stride;
    up[-1] |= window_sig_bit(5, 2);
    up[0] |= window_sig_bit(5, 1) | (negative ? sign_bit(5) : 0);
    up[1] |= window_sig_bit(5, 0);
  } else if constexpr (r == 3) {
    uint32_t* down = f + column_stride;
    down[-1] |= window_sig_bit(0, 2);
    down[0] |= window_sig_bit(0, 1) | (negative ? sign_bit(0) : 0);
    down[1] |= window_sig_bit(0, 0);
  }
}

// The 3x3 neighbourhood of row r (kNb* bits), without the row below the
// stripe under VSC.
template <bool kVsc, int r>
MALLAT_HD inline uint32_t neighbourhood(uint32_t word) {
  const uint32_t n = (word >> (3 * r)) & 0x1FF;
  return kVsc && r == 3 ? n & ~kNbBelow : n;
}

// D.3.2: the sign context and XOR bit (kSignLut's entry) of row r of the
// column, `n` the row's neighbourhood.
template <int r>
MALLAT_HD inline uint32_t sign_lookup(const ColumnWords& w, uint32_t n) {
  const uint32_t index = ((n >> 1) & 0x55) | (((w.cur >> (18 + r)) & 5) << 1) |
                         (((w.prev >> (19 + r)) & 1) << 5) | (((w.next >> (19 + r)) & 1) << 7);
  return MALLAT_T1_TABLE(kSignLut)[index];
}

// D.3.2 sign coding for row r of the column, just found significant;
// returns 1 if negative. `n` is the row's neighbourhood.
template <int r, class Coder>
MALLAT_HD inline uint32_t code_sign(Coder& c, const ColumnWords& w, uint32_t n) {
  const uint32_t negative = (w.cur >> (19 + r)) & 1;  // known to the encoder only
  if constexpr (Coder::kRaw) {
    return c.code(0, negative);
  } else {
    const uint32_t lut = sign_lookup<r>(w, n);
    const uint32_t x = lut >> 7;
    return c.code(static_cast<int>(lut & 31), negative ^ x) ^ x;
  }
}

// A sample found significant at bit-plane p: its sign, its neighbours'
// flags, and its magnitude (decoder) or the distortion it removes (encoder).
// `mags` are the column's magnitudes (the encoder's), `m` where they are
// stored (the decoder writes the new magnitude there).
template <int r, bool kAhead, class Coder>
MALLAT_HD inline void code_new_significance(Coder& c, ColumnWords& w, uint32_t* f, const ColumnMagnitudes& mags,
                                            uint32_t* m, uint32_t n, int column_stride, int p,
                                            const PlaneGains& gains, DistortionSum& dist) {
  const uint32_t neg = code_sign<r>(c, w, n);
  become_significant<r>(w, f, column_stride, neg);
  if constexpr (Coder::kEncoder) {
    dist.add(gains.significance(magnitude_of<kAhead, r>(mags, m)));
  } else {
    m[r] = 1u << p;
  }
}

// Calls step(std::integral_constant<int, r>) for the rows of a stripe
// column, so each row's shifts and masks are constants.
template <class Step>
MALLAT_HD inline void for_each_row(int rows, Step&& step) {
  step(std::integral_constant<int, 0>{});
  if (rows > 1) step(std::integral_constant<int, 1>{});
  if (rows > 2) step(std::integral_constant<int, 2>{});
  if (rows > 3) step(std::integral_constant<int, 3>{});
}

// Walks the stripe columns of a pass: code(rows, words, f, m, magnitudes)
// codes one column and returns whether it coded anything. The column's
// word and its neighbours' are in registers; the next column's word is
// loaded before the column is coded, and with kMagnitudes (the encoder's,
// read-only) on a state whose kLoadAhead says so (the shared coder's, which
// the GPU runs) its four magnitudes too, so on the GPU, where a thread
// waits for a load only where it uses the value, the wait overlaps the
// coding. The word to the left and this one are stored after a column
// that coded something, and a word changed by its left neighbour when its
// own turn comes (or at the stripe's end: the border column). A state's
// magnitude storage has a column's room past each stripe's last
// (T1State's border, T1FixedState's padding). The decoder writes its
// magnitudes through `m` (it reads few of them, so loading every column's
// ahead would cost it more than it saves).
//
// A decoder's walk (no magnitudes) on a state that keeps its stripes'
// significance (T1FixedState::significant_stripes) notes after each stripe
// whether it holds a significant sample, and a column kind with a
// kStripeReach skips the stripes with no significant sample within that
// many stripes of them, where it can have no work: the significance pass's
// columns (reach 1: D.3.1's neighbourhood spans the stripes above and
// below) and the refinement pass's (reach 0). Significance is only gained,
// and a stripe's significance pass can gain it only where the stripes
// around it hold some, so the bits are exact when a stripe's turn comes.
// A column kind with quiet_run(n) (the decoder's cleanup pass) is told of
// quiet stripes of four rows, with no significant sample in them nor in
// the stripes above and below: all their words are 0, so each column is
// in run-length mode (D.3.4) until its left neighbour gains significance,
// and quiet_run decodes as many of the next n columns' run-length
// decisions as it can prove are 0 at once, leaving their words as they are.
template <class Column>
constexpr int stripe_reach() {
  if constexpr (requires { Column::kStripeReach; }) {
    return Column::kStripeReach;
  } else {
    return -1;
  }
}

template <class State>
MALLAT_HD inline bool stripe_significant(const State& s, int k) {
  return k >= 0 && ((s.significant_stripes[k >> 6] >> (k & 63)) & 1) != 0;
}

template <bool kMagnitudes, class State, class Code>
MALLAT_HD inline void for_each_column(State& s, Code&& code) {
  constexpr bool kAhead = kMagnitudes && State::kLoadAhead;
  constexpr bool kTracks = !kMagnitudes && requires(State& st) { st.significant_stripes[0]; };
  constexpr int kReach = stripe_reach<std::decay_t<Code>>();
  constexpr bool kQuietRuns = kTracks && requires(Code& c) { c.quiet_run(0); };
  for (int y0 = 0; y0 < s.height; y0 += 4) {
    [[maybe_unused]] const int k = y0 / 4;  // the stripe (kTracks)
    const int rows = s.height - y0 < 4 ? s.height - y0 : 4;
    [[maybe_unused]] bool quiet = false;  // kQuietRuns: every word of the stripe is 0
    if constexpr (kTracks && (kReach >= 0 || kQuietRuns)) {
      bool near = stripe_significant(s, k);
      if (kReach != 0) {
        near = near || stripe_significant(s, k - 1) || (y0 + 4 < s.height && stripe_significant(s, k + 1));
      }
      if constexpr (kQuietRuns) {
        quiet = !near && rows == 4;
      } else if (!near) {
        continue;
      }
    }
    [[maybe_unused]] uint32_t seen = 0;  // the stripe's words, or-ed (kTracks)
    uint32_t* f = s.column(0, y0);
    uint32_t* m = s.magnitude(0, y0);
    ColumnWords w{f[-1], f[0], 0};
    uint32_t stored = w.cur;  // what the state holds for this column
    ColumnMagnitudes mags{};
    if constexpr (kAhead) mags = load_magnitudes(m);
    for (int x = 0; x < s.width; ++x, ++f, m += 4) {
      if constexpr (kQuietRuns) {
        // A quiet stripe's column whose left neighbour gained nothing: its
        // word and those after it are 0, so the run-length decisions of
        // the columns from here go by runs. The columns a run decodes keep
        // their words (0), so the walk goes on at the column it stops at,
        // its left neighbour's word 0.
        if (quiet && w.cur == 0) {
          const int run = code.quiet_run(s.width - x);
          x += run;
          f += run;
          m += 4 * run;
          if (run > 0) w.prev = 0;
          if (x == s.width) break;
        }
      }
      w.next = f[1];
      const uint32_t next_stored = w.next;
      ColumnMagnitudes next_mags{};
      if constexpr (kAhead) next_mags = load_magnitudes(m + 4);
      if (code(rows, w, f, m, mags)) {
        f[-1] = w.prev;
        f[0] = w.cur;
      } else if (w.cur != stored) {
        f[0] = w.cur;
      }
      if constexpr (kTracks) seen |= w.cur;
      w.prev = w.cur;
      w.cur = w.next;
      stored = next_stored;
      mags = next_mags;
    }
    if (w.cur != stored) f[0] = w.cur;
    if constexpr (kTracks) {
      if ((seen & kOwnSig) != 0) s.significant_stripes[k >> 6] |= uint64_t{1} << (k & 63);
    }
  }
}

// The lowest set bit's index of a non-zero mask.
MALLAT_HD inline int count_trailing_zeros(uint64_t v) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(v)) - 1;
#else
  return __builtin_ctzll(v);
#endif
}

// A walk over the stripe columns that visits only the columns a pass has
// work in, for the GPU's decoder, where a warp's lanes decode different
// blocks: with for_each_column a lane whose column has nothing to code
// waits while another's codes, column after column; here each lane's next
// coded column is found by a mask, so that the lanes code columns side by
// side. A stripe's columns go 64 at a time: `column.has_work(word)` marks
// the columns of a group (and may change a word it leaves: the cleanup
// pass clears the marks of a column it skips), then `column(rows, words,
// f, m, magnitudes)` codes each marked one, its words loaded and stored
// around it. A column can gain work only from its left neighbour in the
// same pass (the significance pass's new significance), which a column
// with kSpreads marks as it goes. Decoding only: no magnitudes ahead.
template <class State, class Column>
MALLAT_HD inline void for_each_marked_column(State& s, Column&& column) {
  for (int y0 = 0; y0 < s.height; y0 += 4) {
    const int rows = s.height - y0 < 4 ? s.height - y0 : 4;
    uint32_t* const words = s.column(0, y0);
    uint32_t* const magnitudes = s.magnitude(0, y0);
    for (int x0 = 0; x0 < s.width; x0 += 64) {
      const int n = s.width - x0 < 64 ? s.width - x0 : 64;
      uint64_t marked = 0;
      for (int i = 0; i < n; ++i) {
        if (column.has_work(words[x0 + i])) marked |= uint64_t{1} << i;
      }
      while (marked != 0) {
        const int i = count_trailing_zeros(marked);
        marked &= marked - 1;
        uint32_t* f = words + x0 + i;
        ColumnWords w{f[-1], f[0], f[1]};
        const uint32_t next_before = w.next;
        column(rows, w, f, magnitudes + 4 * (x0 + i), ColumnMagnitudes{});
        f[-1] = w.prev;
        f[0] = w.cur;
        f[1] = w.next;
        if (std::decay_t<Column>::kSpreads && w.next != next_before && i + 1 < n) marked |= uint64_t{1} << (i + 1);
      }
    }
  }
}

// What a pass's column coder works with: the symbol coder, the zero-coding
// look-up of the block's orientation, the column words' stride, the
// bit-plane, and the encoder's distortion gains and sum.
template <class Coder>
struct ColumnCoding {
  Coder& c;
  const uint8_t* zc_lut;
  int stride;
  int p;
  const PlaneGains& gains;
  DistortionSum& dist;
};

// One stripe column of the D.3.1 significance propagation pass for
// bit-plane p; whether it coded anything.
template <class Coder, bool kVsc, bool kAhead>
struct SignificanceColumn : ColumnCoding<Coder> {
  using ColumnCoding<Coder>::c, ColumnCoding<Coder>::zc_lut, ColumnCoding<Coder>::stride, ColumnCoding<Coder>::p,
      ColumnCoding<Coder>::gains, ColumnCoding<Coder>::dist;
  static constexpr bool kSpreads = true;

  // Nothing to do in a column without a significant sample in its window.
  // Nor in one whose four samples are all significant already (rows
  // beyond a short stripe never become significant, so this is exact).
  MALLAT_HD static bool has_work(uint32_t word) {
    return (word & kWindowSig) != 0 && (word & kOwnSig) != kOwnSig;
  }
  MALLAT_HD bool operator()(int rows, ColumnWords& w, uint32_t* f, uint32_t* m, const ColumnMagnitudes& mags) {
    if (!has_work(w.cur)) return false;
    for_each_row(rows, [&](auto row) {
      constexpr int r = decltype(row)::value;
      if (w.cur & (window_sig_bit(r + 1, 1))) return;
      const uint32_t n = neighbourhood<kVsc, r>(w.cur);
      if (n == 0) return;
      const uint32_t bit = c.code(zc_lut[n], (magnitude_of<kAhead, r>(mags, m) >> p) & 1);
      w.cur |= visited_bit(r);
      if (bit) code_new_significance<r, kAhead>(c, w, f, mags, m, n, stride, p, gains, dist);
    });
    return true;
  }
};

// One stripe column of the D.3.3 magnitude refinement pass.
template <class Coder, bool kVsc, bool kAhead>
struct RefinementColumn : ColumnCoding<Coder> {
  using ColumnCoding<Coder>::c, ColumnCoding<Coder>::p, ColumnCoding<Coder>::gains, ColumnCoding<Coder>::dist;
  static constexpr bool kSpreads = false;

  MALLAT_HD static bool has_work(uint32_t word) { return (word & kOwnSig) != 0; }
  MALLAT_HD bool operator()(int rows, ColumnWords& w, uint32_t*, uint32_t* m, const ColumnMagnitudes& mags) {
    if (!has_work(w.cur)) return false;
    for_each_row(rows, [&](auto row) {
      constexpr int r = decltype(row)::value;
      constexpr uint32_t kSigHere = window_sig_bit(r + 1, 1);
      if ((w.cur & (kSigHere | visited_bit(r))) != kSigHere) return;
      const int ctx = (w.cur & refined_bit(r))                     ? 16
                      : (neighbourhood<kVsc, r>(w.cur) & kNbAll) ? 15
                                                                   : 14;
      const uint32_t bit = c.code(ctx, (magnitude_of<kAhead, r>(mags, m) >> p) & 1);
      w.cur |= refined_bit(r);
      if constexpr (Coder::kEncoder) {
        dist.add(gains.refinement(magnitude_of<kAhead, r>(mags, m)));
      } else {
        m[r] |= bit << p;
      }
    });
    return true;
  }
};

// One stripe column of the D.3.4 cleanup pass, with the run-length mode;
// it clears the column's visited marks for the next bit-plane.
template <class Coder, bool kVsc, bool kAhead>
struct CleanupColumn : ColumnCoding<Coder> {
  using ColumnCoding<Coder>::c, ColumnCoding<Coder>::zc_lut, ColumnCoding<Coder>::stride, ColumnCoding<Coder>::p,
      ColumnCoding<Coder>::gains, ColumnCoding<Coder>::dist;
  static constexpr bool kSpreads = false;
  // Run-length mode needs all four samples insignificant, unvisited and with
  // no significant neighbour; under VSC the row below does not count.
  static constexpr uint32_t kBusy = kVsc ? (kWindowSig & ~(window_sig_bit(5, 0) | window_sig_bit(5, 1) |
                                                           window_sig_bit(5, 2))) | kVisitedAll
                                         : kWindowSig | kVisitedAll;

  // A column whose samples are all significant or all visited has nothing
  // for the cleanup pass but the clearing of the marks.
  MALLAT_HD static bool has_work(uint32_t& word) {
    if ((word & kOwnSig) == kOwnSig || (word & kVisitedAll) == kVisitedAll) {
      word &= ~kVisitedAll;
      return false;
    }
    return true;
  }
  MALLAT_HD bool operator()(int rows, ColumnWords& w, uint32_t* f, uint32_t* m, const ColumnMagnitudes& mags) {
    if (!has_work(w.cur)) return false;
    int r = 0;
    if (rows == 4 && (w.cur & kBusy) == 0) {
      // Run-length mode: one symbol says whether any of the four becomes
      // significant, two UNIFORM symbols say which is first.
      uint32_t first = 4;
      if constexpr (Coder::kEncoder) {
        const ColumnMagnitudes column = kAhead ? mags : load_magnitudes(m);
        for (uint32_t k = 0; k < 4; ++k) {
          if ((column.v[k] >> p) & 1) {
            first = k;
            break;
          }
        }
      }
      // No visited mark to clear: kBusy includes them.
      if (!c.code_skewed(kRunLengthContext, first < 4)) return false;
      r = static_cast<int>(c.code(kUniformContext, (first >> 1) & 1) << 1);
      r |= static_cast<int>(c.code(kUniformContext, first & 1));
      // The first significant sample's significance is known: code its
      // sign; the samples after it are coded as usual.
      for_each_row(4, [&](auto row) {
        constexpr int k = decltype(row)::value;
        if (k == r) {
          code_new_significance<k, kAhead>(c, w, f, mags, m, neighbourhood<kVsc, k>(w.cur), stride, p, gains,
                                           dist);
        }
      });
      ++r;
    }
    for_each_row(rows, [&](auto row) {
      constexpr int k = decltype(row)::value;
      if (k < r || (w.cur & (window_sig_bit(k + 1, 1) | visited_bit(k))) != 0) return;
      const uint32_t n = neighbourhood<kVsc, k>(w.cur);
      if (c.code_skewed(zc_lut[n], (magnitude_of<kAhead, k>(mags, m) >> p) & 1)) {
        code_new_significance<k, kAhead>(c, w, f, mags, m, n, stride, p, gains, dist);
      }
    });
    w.cur &= ~kVisitedAll;
    return true;
  }
};

// A pass's columns by the walk kMarked chooses (for_each_column, or
// for_each_marked_column for a decoder that asks for it).
template <bool kMarked, bool kMagnitudes, class State, class Column>
MALLAT_HD inline void walk_columns(State& s, Column&& column) {
  if constexpr (kMarked) {
    // The marked walk hands its columns no magnitudes ahead: decoders only.
    static_assert(!kMagnitudes, "the walk of marked columns is for decoding");
    for_each_marked_column(s, column);
  } else {
    for_each_column<kMagnitudes>(s, column);
  }
}

// One pass over a state's columns with Column<Coder, kVsc, kAhead>: the
// coder works on a local copy, and an encoder's distortion decrease is
// summed into the state.
template <bool kMarked, template <class, bool, bool> class Column, class Coder, bool kVsc, class State>
MALLAT_HD inline void code_pass(Coder& coder, State& s, const uint8_t* zc_lut, int p) {
  Coder c = coder;
  const PlaneGains gains(p);
  DistortionSum dist;
  constexpr bool kAhead = Coder::kEncoder && State::kLoadAhead;
  walk_columns<kMarked, Coder::kEncoder>(s, Column<Coder, kVsc, kAhead>{{c, zc_lut, s.column_stride, p, gains, dist}});
  if constexpr (Coder::kEncoder) s.distortion += dist.value();
  coder = c;
}

// D.3.1 significance propagation pass for bit-plane p.
template <class Coder, bool kVsc, bool kMarked = false, class State>
[[gnu::flatten]] MALLAT_HD void significance_pass(Coder& coder, State& s, const uint8_t* zc_lut, int p) {
  code_pass<kMarked, SignificanceColumn, Coder, kVsc>(coder, s, zc_lut, p);
}

// D.3.3 magnitude refinement pass for bit-plane p.
template <class Coder, bool kVsc, bool kMarked = false, class State>
[[gnu::flatten]] MALLAT_HD void refinement_pass(Coder& coder, State& s, int p) {
  code_pass<kMarked, RefinementColumn, Coder, kVsc>(coder, s, nullptr, p);
}

// D.3.4 cleanup pass for bit-plane p; clears the visited marks for the next
// bit-plane.
template <class Coder, bool kVsc, bool kMarked = false, class State>
[[gnu::flatten]] MALLAT_HD void cleanup_pass(Coder& coder, State& s, const uint8_t* zc_lut, int p) {
  code_pass<kMarked, CleanupColumn, Coder, kVsc>(coder, s, zc_lut, p);
}

// Runs pass `type` for bit-plane p with the MQ coder, or the raw one where
// BYPASS says so (the cleanup pass is never raw); kMarked: the decoder's
// walk of marked columns (for_each_marked_column).
template <bool kVsc, bool kMarked = false, class Mq, class Raw, class State>
MALLAT_HD void run_pass(PassType type, bool raw, Mq& mq, Raw& rw, State& s, const uint8_t* zc_lut, int p) {
  switch (type) {
    case PassType::kSignificance:
      if (raw) {
        significance_pass<Raw, kVsc, kMarked>(rw, s, zc_lut, p);
      } else {
        significance_pass<Mq, kVsc, kMarked>(mq, s, zc_lut, p);
      }
      break;
    case PassType::kRefinement:
      if (raw) {
        refinement_pass<Raw, kVsc, kMarked>(rw, s, p);
      } else {
        refinement_pass<Mq, kVsc, kMarked>(mq, s, p);
      }
      break;
    case PassType::kCleanup:
      cleanup_pass<Mq, kVsc, kMarked>(mq, s, zc_lut, p);
      break;
  }
}

// The decoded values of a state's rows as two's-complement samples at their
// true weight into `samples` (rows `stride` apart). Magnitudes are set only
// once a sample is significant (code_new_significance); the others are
// masked out, with masks rather than branches: significance and sign are
// coin tosses. Only the columns first, first + step, ... of each row: the
// GPU's decoding kernel writes a block with a warp's lanes side by side,
// lane k taking columns k, k + 32, ... (entropy/cuda/ebcot/decode_kernel.cuh).
template <class State>
MALLAT_HD void write_decoded_samples(State& s, int32_t* samples, ptrdiff_t stride, int first = 0, int step = 1) {
  for (int y = 0; y < s.height; ++y) {
    int32_t* row = samples + y * stride;
    const uint32_t* mag = s.magnitude(0, y);
    const uint32_t* column = s.column(0, y);
    const int negative = 19 + y % 4;
    const int significant = 3 * (y % 4 + 1) + 1;
    for (int x = first; x < s.width; x += step) {
      const uint32_t word = column[x];
      const uint32_t m = mag[4 * x] & (0u - ((word >> significant) & 1));
      const uint32_t neg = 0u - ((word >> negative) & 1);
      row[x] = static_cast<int32_t>((m ^ neg) - neg);
    }
  }
}

}  // namespace mallat::entropy::detail

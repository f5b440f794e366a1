// The HT refinement passes, both directions, for the CPU. Decoding is the
// shared coder of entropy/ht/shared_refinement.h that the GPU runs too, with
// the working state a thread's own. Encoding is a CPU coder of its own with
// the same scan (15444-15 Annex C) and the same stripe-of-nibbles
// significance: each stripe's magnitude bits, signs and significance are
// taken first as nibbles per column, row by row (loops the compiler runs in
// vector lanes), so that SigProp's bits of a group of 4 columns, their signs
// and MagRef's bits of a column go to the streams as a few words, not one
// call per bit; where the CPU has AVX2 the same body runs compiled for its
// lanes. encode_refinement_reference (entropy/ht/refinement.cc) is what
// both are tested against.
#include <array>
#include <bit>
#include <cstring>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "entropy/ht/passes.h"
#include "entropy/ht/shared_refinement.h"

namespace mallat::entropy::ht {
namespace {

// kCompress[mask << 4 | value]: the bits of a 4-bit value at the set bits of
// a 4-bit mask, packed from bit 0 up (a stripe column's rows top to bottom
// as the scan visits them).
constexpr std::array<uint8_t, 256> make_compress() {
  std::array<uint8_t, 256> t{};
  for (uint32_t mask = 0; mask < 16; ++mask) {
    for (uint32_t value = 0; value < 16; ++value) {
      uint32_t out = 0;
      int n = 0;
      for (int r = 0; r < 4; ++r) {
        if ((mask >> r & 1) == 0) continue;
        out |= (value >> r & 1) << n;
        ++n;
      }
      t[mask << 4 | value] = static_cast<uint8_t>(out);
    }
  }
  return t;
}
constexpr std::array<uint8_t, 256> kCompress = make_compress();

uint32_t compress(uint32_t value, uint32_t mask) { return kCompress[mask << 4 | value]; }

// SigProp down one column of a stripe (15444-15 C.3's scan order), by
// table: kSigPropColumn[may | near << 4 | bits << 8], where `may` are the
// rows that can become significant (not significant after the cleanup,
// inside the block), `near` the rows with a significant neighbour before
// this column's own new ones (the columns either side, the rows above and
// below in this column), and `bits` the magnitude bits at the plane of the
// `may` rows. Going down the column a row is visited when it may and has a
// neighbour, counting the row above it if SigProp just made it significant;
// a visited row codes its bit, and becomes significant when the bit is 1.
// The entry: the new significance (bits 0-3), the coded bits packed in
// visiting order (bits 4-7) and how many (bits 8-10).
constexpr std::array<uint16_t, 4096> make_sigprop_column() {
  std::array<uint16_t, 4096> t{};
  for (uint32_t i = 0; i < 4096; ++i) {
    const uint32_t may = i & 15, near = i >> 4 & 15, bits = i >> 8 & 15;
    uint32_t newly = 0, coded = 0, count = 0;
    for (uint32_t r = 0; r < 4; ++r) {
      const uint32_t above_new = r > 0 ? newly >> (r - 1) & 1 : 0;
      if ((may >> r & 1) == 0 || ((near >> r & 1) | above_new) == 0) continue;
      const uint32_t bit = bits >> r & 1;
      coded |= bit << count;
      ++count;
      newly |= bit << r;
    }
    t[i] = static_cast<uint16_t>(newly | coded << 4 | count << 8);
  }
  return t;
}
constexpr std::array<uint16_t, 4096> kSigPropColumn = make_sigprop_column();

// The set bits of a nibble.
constexpr uint8_t kOnes[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

// The encoder's working state: RefinementState's nibbles per column (index
// x + 1, a zero border each side), and per column of the stripe its
// magnitude bits at the plane and its signs (negative: 1).
struct EncodeState {
  static constexpr int kColumns = RefinementState::kColumns;
  uint8_t above[kColumns];
  uint8_t current[kColumns];
  uint8_t cleanup[kColumns];
  uint8_t below[kColumns];
  uint8_t bits[kColumns];
  uint8_t signs[kColumns];
  // Per column, the rows SigProp may visit before any new significance in
  // the stripe (`near & may` of kSigPropColumn's index); 4 zeros past the
  // last column, so that a group of 4 reads as one word.
  uint8_t candidates[kColumns + 4];
  uint8_t magref[RefinementState::kMagRefCapacity];
};

// MagRef's decreases summed in integers, in any order, equal the
// reference's sum of doubles in scan order while every partial sum is an
// integer below 2^53: each term is at most 4^shift in size, and a block has
// at most 2^12 samples. At shift 0 the terms are not of the form below.
constexpr int kExactShifts = 19;

// One stripe's nibbles from its `rows` rows (and the row below's cleanup
// significance, where there is one); with `shift` at most kExactShifts,
// MagRef's decreases added to `magref_sum`.
[[gnu::always_inline]] inline void load_stripe(EncodeState& s, PlaneView<const int32_t> c, int y0, int rows, int shift, int64_t& magref_sum) {
  const int width = static_cast<int>(c.width), height = static_cast<int>(c.height);
  uint8_t* cleanup = s.cleanup + 1;
  uint8_t* bits = s.bits + 1;
  uint8_t* signs = s.signs + 1;
  for (int r = 0; r < rows; ++r) {
    const int32_t* row = c.row(y0 + r);
    const auto one = static_cast<uint8_t>(1u << r);
    if (r == 0) {
      for (int x = 0; x < width; ++x) cleanup[x] = bits[x] = signs[x] = 0;
    }
    for (int x = 0; x < width; ++x) {
      const uint32_t m = detail::magnitude_of(row[x]);
      cleanup[x] |= (m >> (shift + 1)) != 0 ? one : 0;
      bits[x] |= (m >> shift & 1) != 0 ? one : 0;
      signs[x] |= row[x] < 0 ? one : 0;
    }
    if (shift == 0 || shift > kExactShifts) continue;
    // squared_error at shift + 1 less at shift, for the samples significant
    // above the plane: with a the magnitude's bits below the plane and h
    // half its step, (a - h)^2 less (a - 2h)^2 or a^2 as the bit at the
    // plane is 0 or 1, that is h (3h - 2a) or h (2a - h): no products per
    // sample, so the loop runs in vector lanes.
    const uint32_t low = (1u << shift) - 1;
    const int32_t h = 1 << (shift - 1);
    int32_t sum = 0;  // at most 3h a sample, 2^10 samples a row
    for (int x = 0; x < width; ++x) {
      const uint32_t m = detail::magnitude_of(row[x]);
      const int32_t a2 = static_cast<int32_t>(m & low) * 2;
      const int32_t t = (m >> shift & 1) != 0 ? a2 - h : 3 * h - a2;
      sum += (m >> (shift + 1)) != 0 ? t : 0;
    }
    magref_sum += int64_t{sum} * h;
  }
  uint8_t* below = s.below + 1;
  if (y0 + 4 < height) {
    const int32_t* row = c.row(y0 + 4);
    for (int x = 0; x < width; ++x) below[x] = (detail::magnitude_of(row[x]) >> (shift + 1)) != 0 ? 1 : 0;
  } else {
    for (int x = 0; x < width; ++x) below[x] = 0;
  }
  for (int x = 0; x < width; ++x) s.current[x + 1] = cleanup[x];
}

// Bit k of a column's extended nibble (detail::extended's rule).
[[gnu::always_inline]] inline uint32_t extended(const EncodeState& s, int i, int rows, uint32_t below_mask) {
  return (s.above[i] >> 3 & 1u) | uint32_t{s.current[i]} << 1 | (s.below[i] & below_mask) << (rows + 1);
}

// The rows of column i with a significant neighbour, as `current` stands:
// row r's are side bit r + 1 (the columns either side, rows r - 1 .. r +
// 1) and its own column's bits r and r + 2 (the rows above and below).
[[gnu::always_inline]] inline uint32_t near_rows(const EncodeState& s, int i, int rows, uint32_t below_mask) {
  uint32_t side = extended(s, i - 1, rows, below_mask) | extended(s, i + 1, rows, below_mask);
  side |= side << 1 | side >> 1;
  const uint32_t own = extended(s, i, rows, below_mask);
  return (side >> 1 | own | own >> 2) & 15u;
}

// s.candidates for a stripe of `rows` rows just loaded, in vector lanes:
// the columns either side, the rows above and below, as the cleanup and
// the stripes above left them. A column whose left neighbour SigProp made
// significant may have more; every other column has exactly these.
[[gnu::always_inline]] inline void find_candidates(EncodeState& s, int width, int rows, uint32_t below_mask) {
  const uint32_t row_bits = (1u << rows) - 1;
  for (int i = 1; i <= width; ++i)
    s.candidates[i] = static_cast<uint8_t>(near_rows(s, i, rows, below_mask) & ~uint32_t{s.current[i]} & row_bits);
  for (int i = width + 1; i <= width + 4; ++i) s.candidates[i] = 0;
}

// The decrease a sample's bit at `shift` brings (both passes' rule).
inline double bit_decrease(int32_t v, int shift) {
  const uint32_t m = detail::magnitude_of(v);
  return squared_error(m, shift + 1) - squared_error(m, shift);
}

// The same for a sample SigProp makes significant (below 2^(shift + 1)), in
// integers: m^2 less the error left, both below 2^(2 shift + 2). SigProp's
// decreases summed so, in any order, equal the reference's sum of doubles
// in scan order while every partial sum is an integer below 2^53: at most
// 2^12 terms below 4^(shift + 1), so for shift up to kExactShifts.
inline int64_t newly_significant_decrease(int32_t v, int shift) {
  const uint32_t m = detail::magnitude_of(v);
  const int64_t half = shift > 0 ? int64_t{1} << (shift - 1) : 0;
  const int64_t e = static_cast<int64_t>(m & ((uint32_t{1} << shift) - 1)) - half;
  return static_cast<int64_t>(uint64_t{m} * m) - e * e;
}

}  // namespace

void decode_refinement(std::span<const uint8_t> segment, int passes, int plane, bool vertical_causal,
                       PlaneView<int32_t> samples) {
  thread_local RefinementState state;
  decode_refinement_shared(segment.data(), static_cast<uint32_t>(segment.size()), passes, plane, vertical_causal,
                           samples, state);
}

namespace {

// MagRef's bits of 8 columns of a stripe from x (x + 8 <= the width), the
// rows the cleanup found significant, in scan order (down each column,
// column after column), and how many: each column's nibbles packed side by
// side, then the bits at the significant ones taken out (BMI2's PEXT).
#if defined(__x86_64__)
[[gnu::target("bmi2,popcnt")]] inline uint32_t magref_bits_of_8(const EncodeState& s, int x, int& count) {
  constexpr uint64_t kNibbles = 0x0F0F0F0F0F0F0F0Full;
  uint64_t bits, cleanup;
  std::memcpy(&bits, s.bits + x + 1, sizeof bits);
  std::memcpy(&cleanup, s.cleanup + x + 1, sizeof cleanup);
  const auto mask = static_cast<uint32_t>(_pext_u64(cleanup, kNibbles));
  count = std::popcount(mask);
  return _pext_u32(static_cast<uint32_t>(_pext_u64(bits, kNibbles)), mask);
}
#endif

// encode_refinement's body, compiled once for every CPU and once more for
// AVX2's lanes (the stripes' per-column loops) with BMI2 (MagRef's bits 8
// columns at a time: kPext): the same integer steps and the doubles added
// in the same order, so the same bytes and decreases.
template <bool kPext>
[[gnu::always_inline]] inline RefinementCoded encode_refinement_in(EncodeState& s,
                                                                   PlaneView<const int32_t> coefficients, int shift,
                                                                   bool vertical_causal,
                                                                   std::vector<uint8_t>& segment) {
  RefinementCoded coded;
  const int width = static_cast<int>(coefficients.width), height = static_cast<int>(coefficients.height);
  const auto capacity = refinement_capacity(static_cast<uint32_t>(width * height));
  segment.resize(capacity);
  BoundedBytes bytes(segment.data(), capacity);
  BoundedBytes magref_bytes(s.magref, RefinementState::kMagRefCapacity);
  BasicForwardWriter<BoundedBytes> sigprop(bytes);
  BasicBackwardWriter<BoundedBytes> magref(magref_bytes, 0, 0);
  s.current[0] = s.cleanup[0] = s.below[0] = s.bits[0] = s.signs[0] = 0;
  s.current[width + 1] = s.cleanup[width + 1] = s.below[width + 1] = s.bits[width + 1] = s.signs[width + 1] = 0;
  for (int i = 0; i < width + 2; ++i) s.above[i] = 0;
  const uint32_t below_mask = vertical_causal ? 0u : 1u;
  const bool exact = shift > 0 && shift <= kExactShifts;
  const bool sigprop_exact = shift <= kExactShifts;
  int64_t magref_sum = 0, sigprop_sum = 0;
  for (int y0 = 0; y0 < height; y0 += 4) {
    const int rows = height - y0 < 4 ? height - y0 : 4;
    const uint32_t row_bits = (1u << rows) - 1;
    load_stripe(s, coefficients, y0, rows, shift, magref_sum);
    find_candidates(s, width, rows, below_mask);
    // SigProp, detail::sigprop_stripe's scan with the decisions read from
    // the bits' nibbles; the columns without candidates (most of them)
    // passed over, a group of 4 at once.
    uint32_t left_newly = 0;  // SigProp's new significance in the column before
    for (int x0 = 0; x0 < width; x0 += 4) {
      const int x1 = x0 + 4 < width ? x0 + 4 : width;
      if (left_newly == 0) {
        uint32_t group;
        std::memcpy(&group, s.candidates + x0 + 1, sizeof group);
        if (group == 0) continue;
      }
      uint32_t decisions = 0, newly[4] = {0, 0, 0, 0};
      int decided = 0;
      for (int x = x0; x < x1; ++x) {
        const int i = x + 1;
        if (s.candidates[i] == 0 && left_newly == 0) continue;
        // Unless the column before gained significance, this column's
        // neighbourhood is as find_candidates saw it: its candidates are
        // the rows that may and have a neighbour (kSigPropColumn reads
        // `near` at those rows alone).
        const uint32_t near = left_newly == 0 ? s.candidates[i] : near_rows(s, i, rows, below_mask);
        left_newly = 0;
        const uint32_t cleanup = s.current[i];
        const uint32_t may = ~cleanup & row_bits;
        if ((near & may) == 0) continue;
        // By table, without a branch on the bits, which are as good as random.
        const uint32_t column = kSigPropColumn[may | near << 4 | (s.bits[i] & may) << 8];
        const uint32_t column_newly = column & 15u;
        decisions |= (column >> 4 & 15u) << decided;
        decided += static_cast<int>(column >> 8);
        if (sigprop_exact) {
          for (uint32_t left = column_newly; left != 0; left &= left - 1)
            sigprop_sum += newly_significant_decrease(coefficients.row(y0 + detail::lowest_set(left))[x], shift);
        } else {
          for (uint32_t left = column_newly; left != 0; left &= left - 1)
            coded.sigprop_decrease += bit_decrease(coefficients.row(y0 + detail::lowest_set(left))[x], shift);
        }
        s.current[i] = static_cast<uint8_t>(cleanup | column_newly);
        newly[x - x0] = column_newly;
        left_newly = column_newly;
      }
      if (decided == 0) continue;
      sigprop.put(decisions, decided);
      uint32_t sign_bits = 0;
      int signs = 0;
      for (int x = x0; x < x1; ++x) {
        const uint32_t n = newly[x - x0];
        if (n == 0) continue;
        sign_bits |= compress(s.signs[x + 1], n) << signs;
        signs += kOnes[n];
      }
      if (signs > 0) sigprop.put(sign_bits, signs);
    }
    // MagRef: each column's samples the cleanup found significant.
    int x = 0;
#if defined(__x86_64__)
    if constexpr (kPext) {
      // Where the decreases are summed above (exact), whole groups of 8
      // columns; the bits go to the stream as the loop below would put them.
      for (; exact && x + 8 <= width; x += 8) {
        int count;
        const uint32_t group = magref_bits_of_8(s, x, count);
        if (count > 0) magref.put(group, count);
      }
    }
#endif
    uint32_t word = 0;
    int in_word = 0;
    for (; x < width; ++x) {
      const uint32_t cleanup = s.cleanup[x + 1];
      word |= compress(s.bits[x + 1], cleanup) << in_word;
      in_word += kOnes[cleanup];
      for (uint32_t left = exact ? 0 : cleanup; left != 0; left &= left - 1)
        coded.magref_decrease += bit_decrease(coefficients.row(y0 + detail::lowest_set(left))[x], shift);
      if (in_word > 24) {
        magref.put(word, in_word);
        word = 0;
        in_word = 0;
      }
    }
    if (in_word > 0) magref.put(word, in_word);
    for (int i = 0; i < width + 2; ++i) s.above[i] = s.current[i];
  }
  if (exact) coded.magref_decrease = static_cast<double>(magref_sum);
  if (sigprop_exact) coded.sigprop_decrease = static_cast<double>(sigprop_sum);
  coded.sigprop_length = terminate_refinement(sigprop, magref, bytes);
  for (uint32_t i = magref_bytes.size(); i > 0; --i) bytes.push_back(magref_bytes.data()[i - 1]);
  segment.resize(bytes.size());
  return coded;
}

#if defined(__x86_64__)
[[gnu::target("avx2,bmi2,popcnt")]] RefinementCoded encode_refinement_avx2(EncodeState& s,
                                                                          PlaneView<const int32_t> coefficients,
                                                                          int shift, bool vertical_causal,
                                                                          std::vector<uint8_t>& segment) {
  return encode_refinement_in<true>(s, coefficients, shift, vertical_causal, segment);
}
#endif

}  // namespace

RefinementCoded encode_refinement(PlaneView<const int32_t> coefficients, int shift, bool vertical_causal,
                                  std::vector<uint8_t>& segment) {
  thread_local EncodeState s;
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") &&
                           __builtin_cpu_supports("popcnt");
  if (avx2) return encode_refinement_avx2(s, coefficients, shift, vertical_causal, segment);
#endif
  return encode_refinement_in<false>(s, coefficients, shift, vertical_causal, segment);
}

}  // namespace mallat::entropy::ht

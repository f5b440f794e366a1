// The HT cleanup pass, encoder side (15444-15 Annex C), the fast way: the
// same bytes as entropy/ht/cleanup_encoder_reference.cc (the tests hold the two to
// it), with a quad's samples measured without branches on their
// significance (it does not predict; a whole quad in vector lanes), a
// row's quads measured before they are coded, and MagSgn written 4 bytes
// at a time where no byte of them needs a stuffed bit.
#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "entropy/ht/bit_streams.h"
#include "entropy/ht/cleanup_encoding.h"
#include "entropy/ht/cleanup_isa.h"
#include "entropy/ht/passes.h"
#include "entropy/ht/quad_rows.h"
#include "entropy/ht/vlc_tables.h"

namespace mallat::entropy::ht {
namespace {

// The 4 bytes of `word` appended, its low byte first.
inline void append_word(std::vector<uint8_t>& out, uint32_t word) {
  if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap32(word);
  const size_t at = out.size();
  out.resize(at + 4);  // inline while within capacity (kept across blocks), unlike insert's range path
  std::memcpy(out.data() + at, &word, 4);
}

// MagSgn (as ForwardWriter): up to 63 bits pending; 4 whole bytes leave at
// once unless the stream is after a 0xFF or one of the first 3 is 0xFF
// (then the byte-by-byte rule).
class MagSgnWriter : public ForwardWriter {
 public:
  explicit MagSgnWriter(std::vector<uint8_t>& out) : ForwardWriter(out) {}
  // The low n bits of v, n <= 32.
  [[gnu::always_inline]] void put(uint64_t v, int n) {
    acc_ |= low_bits(v, n) << bits_;
    bits_ += n;
    if (bits_ >= 32) drain();
  }

 private:
  void drain() {
    const auto word = static_cast<uint32_t>(acc_);
    const uint32_t ff = ((~word) - 0x01010101u) & word & 0x80808080u;  // 0xFF bytes (lowest exact)
    if (!stuff_ && (ff & 0x00808080u) == 0) {
      append_word(out_, word);
      acc_ >>= 32;
      bits_ -= 32;
      stuff_ = (word >> 24) == 0xFF;
      return;
    }
    while (bits_ >= 8) emit_byte();
  }
};

// VLC (as BackwardWriter): up to 63 bits pending; 4 whole bytes leave at
// once unless one of them has its low 7 bits all 1 (only such a byte can
// be stuffed), else the byte-by-byte rule. drain() before the segment's
// end leaves fewer than 8 bits, as BackwardWriter's put does.
class VlcWriter : public BackwardWriter {
 public:
  using BackwardWriter::BackwardWriter;
  // The low n bits of v, n <= 32.
  [[gnu::always_inline]] void put(uint64_t v, int n) {
    acc_ |= low_bits(v, n) << bits_;
    bits_ += n;
    if (bits_ >= 32) drain_words();
  }
  void drain() {
    while (bits_ >= 8) emit_byte();
  }

 private:
  void drain_words() {
    const auto word = static_cast<uint32_t>(acc_);
    const uint32_t low7 = word | 0x80808080u;
    if ((((~low7) - 0x01010101u) & low7 & 0x80808080u) == 0) {  // no byte with low 7 bits all 1
      append_word(out_, word);
      acc_ >>= 32;
      bits_ -= 32;
      above_8f_ = (word >> 24) > 0x8F;
      return;
    }
    drain();
  }
};

// A quad pair's VLC bits gathered for one put: its two codewords (at most
// 7 bits each) and its UVLC prefixes and suffixes (at most 16), in the
// order the stream takes them (Annex C.3.2, C.3.3).
struct VlcRun {
  uint64_t bits = 0;
  int length = 0;
  [[gnu::always_inline]] void put(uint64_t v, int n) {
    bits |= low_bits(v, n) << length;
    length += n;
  }
};

// One quad: rho, and per sample v = 2 (mu - 1) + sign and the exponent
// E = bit width of 2 mu - 1 (0 for an insignificant sample).
struct Quad {
  int rho = 0;
  int e_max = 0;
  int e[4];
  uint32_t v[4];  // below 2^32: magnitudes are below 2^31
};

// The quad of samples s (0 for those outside the block) at `shift`.
inline Quad measure(const int32_t s[4], int shift) {
  Quad q;
  for (int n = 0; n < 4; ++n) {
    const uint32_t magnitude = s[n] < 0 ? 0u - static_cast<uint32_t>(s[n]) : static_cast<uint32_t>(s[n]);
    const uint64_t mu = magnitude >> shift;
    const bool significant = mu != 0;
    q.rho |= (significant ? 1 : 0) << n;
    q.e[n] = significant ? std::bit_width(2 * mu - 1) : 0;
    q.v[n] = significant ? static_cast<uint32_t>(2 * (mu - 1) + (s[n] < 0 ? 1 : 0)) : 0;
    q.e_max = std::max(q.e_max, q.e[n]);
  }
  return q;
}

// measure() of a quad with both rows and both columns (top[0..1],
// bottom[0..1]) in vector lanes (GCC/Clang vector extensions): the
// exponent E = bit width of 2 mu - 1 = bit width of mu - 1, plus 1, read
// from the exponent field of mu - 1 as a double (exact: below 2^31).
inline Quad measure_whole(const int32_t* top, const int32_t* bottom, int shift) {
  using I32x4 = int32_t __attribute__((vector_size(16)));
  using U32x4 = uint32_t __attribute__((vector_size(16)));
  using I64x4 = int64_t __attribute__((vector_size(32)));
  using U64x4 = uint64_t __attribute__((vector_size(32)));
  using F64x4 = double __attribute__((vector_size(32)));
  // rho's order: top left, bottom left, top right, bottom right.
  const I32x4 s = {top[0], bottom[0], top[1], bottom[1]};
  const I32x4 negative = s < 0;  // -1 or 0 per lane
  const auto magnitude = __builtin_bit_cast(U32x4, (s ^ negative) - negative);
  const U32x4 mu = magnitude >> shift;
  const auto significant = __builtin_bit_cast(U32x4, mu != 0);
  const U32x4 below = mu - 1;  // mu - 1 (all ones where insignificant: masked below)
  const auto as_double = __builtin_convertvector(__builtin_bit_cast(I32x4, below), F64x4);
  const I64x4 exponent = __builtin_bit_cast(I64x4, (__builtin_bit_cast(U64x4, as_double) >> 52) & 0x7FF) - 1022;
  const I64x4 width = (exponent > 0 ? exponent : I64x4{}) + 1;  // bit width of mu - 1 (0 for 0), plus 1
  const U32x4 e = __builtin_convertvector(width, U32x4) & significant;
  const U32x4 v = ((below << 1) | (__builtin_bit_cast(U32x4, negative) & 1)) & significant;
  Quad q;
#if defined(__SSE2__)
  q.rho = _mm_movemask_ps(__builtin_bit_cast(__m128, significant));
#else
  const U32x4 bits = significant & U32x4{1, 2, 4, 8};
  q.rho = static_cast<int>(bits[0] | bits[1] | bits[2] | bits[3]);
#endif
  // The largest exponent: lanes against their swapped halves, then pairs.
  U32x4 a = e;
  U32x4 b = __builtin_shufflevector(a, a, 2, 3, 0, 1);
  a = a > b ? a : b;
  b = __builtin_shufflevector(a, a, 1, 0, 3, 2);
  a = a > b ? a : b;
  q.e_max = static_cast<int>(a[0]);
  std::memcpy(q.e, &e, sizeof q.e);
  std::memcpy(q.v, &v, sizeof q.v);
  return q;
}

// Per quad row: the row's quads measured first, then coded; what a row
// leaves for the next (significance for contexts, bottom exponents for
// kappa) with a zero border on each side.
struct EncoderRows : QuadRowArrays {
  std::vector<Quad> quads;
  std::vector<uint8_t> kappa_above;  // per quad, kappa_q where it has two or more significant samples
  void reset(int64_t quads_wide) {
    QuadRowArrays::reset(quads_wide);
    quads.resize(static_cast<size_t>(quads_wide));
    kappa_above.resize(static_cast<size_t>(quads_wide));
  }
};

// The encoder, inlined into one function per instruction set.
[[gnu::always_inline]] inline void encode(PlaneView<const int32_t> coefficients, int shift,
                                          std::vector<uint8_t>& segment) {
  const VlcEncodeTables& tables = vlc_encode_tables();
  thread_local std::vector<uint8_t> ms_bytes, mel_bytes, vlc_bytes;
  MelEncoder mel(mel_bytes);
  MagSgnWriter ms(ms_bytes);
  // The VLC stream starts below the interface locator (as the reference).
  VlcWriter vlc(vlc_bytes, 0xF, 4);
  vlc_bytes.push_back(0xFF);

  const int64_t width = coefficients.width, height = coefficients.height;
  const int64_t quads_wide = (width + 1) / 2;
  thread_local EncoderRows rows;
  rows.reset(quads_wide);
  for (int64_t y = 0; y < height; y += 2) {
    const bool initial = y == 0;
    const uint16_t* table = initial ? tables.initial_row.data() : tables.other_rows.data();
    const int32_t* top = coefficients.row(y);
    const int32_t* bottom = y + 1 < height ? coefficients.row(y + 1) : nullptr;
    Quad* quads = rows.quads.data();
    uint8_t* rho_row = rows.rho_row.data() + 1;  // rho_row[-1] is the left border
    uint8_t* e_row = rows.e_row.data();
    // The row's quads, measured (no dependence between them).
    const int64_t whole_quads = bottom ? width / 2 : 0;
    for (int64_t q = 0; q < quads_wide; ++q) {
      const int64_t x = 2 * q;
      if (q < whole_quads) {
        quads[q] = measure_whole(top + x, bottom + x, shift);
      } else {
        const bool right = x + 1 < width;
        const int32_t s[4] = {top[x], bottom ? bottom[x] : 0, right ? top[x + 1] : 0,
                              right && bottom ? bottom[x + 1] : 0};
        quads[q] = measure(s, shift);
      }
      rho_row[q] = static_cast<uint8_t>(quads[q].rho);
      e_row[x + 1] = static_cast<uint8_t>(quads[q].e[1]);
      e_row[x + 2] = static_cast<uint8_t>(quads[q].e[3]);
    }
    if (!initial) contexts_from_above(rows.rho_above.data() + 1, quads_wide, rows.context_above.data());
    // The row's arrays as locals: the byte stores below may alias anything,
    // and would otherwise make the compiler reload them per quad.
    const uint8_t* context_above = rows.context_above.data();
    // kappa_q from the row above for every quad at once (a loop the
    // compiler vectorises), as QuadRowArrays::kappa takes it per quad.
    uint8_t* kappa_above = rows.kappa_above.data();
    if (!initial) {
      const uint8_t* e_above = rows.e_above.data();
      for (int64_t q = 0; q < quads_wide; ++q) {
        const uint8_t* a = e_above + 2 * q;
        const int largest = std::max(std::max(a[0], a[1]), std::max(a[2], a[3]));
        kappa_above[q] = static_cast<uint8_t>(std::max(1, largest - 1));
      }
    }
    // Quad q: its VLC codeword into `pair`, its MEL event, its MagSgn bits;
    // returns its residual u_q.
    const auto code_quad = [&](int64_t q, VlcRun& pair) __attribute__((always_inline)) {
      const Quad& quad = quads[q];
      const int c_q = initial ? initial_row_context(rho_row[q - 1])
                              : context_above[q] | other_row_context(rho_row[q - 1], 0, 0, 0);
      // At most one significant sample, or the initial row (Annex C.3.4): 1.
      const int kappa = initial || (quad.rho & (quad.rho - 1)) == 0 ? 1 : kappa_above[q];
      const int bound = std::max(quad.e_max, kappa);  // U_q
      const int u = bound - kappa;
      // Written out rather than looped: GCC 12 with the sanitizers warns
      // (-Wmaybe-uninitialized) about the loop's counter here.
      const int emb = u == 0 ? 0
                             : (quad.e[0] == bound ? 1 : 0) | (quad.e[1] == bound ? 2 : 0) |
                                   (quad.e[2] == bound ? 4 : 0) | (quad.e[3] == bound ? 8 : 0);
      const uint16_t entry = table[c_q << 8 | quad.rho << 4 | emb];
      pair.put(encoded_bits(entry), encoded_length(entry));
      if (c_q == 0) mel.encode(quad.rho != 0);
      const int e_k = encoded_e_k(entry);
      // An insignificant sample puts no bits; the quad's bits in one put
      // where they fit in one.
      const int m0 = (quad.rho & 1) * (bound - (e_k & 1));
      const int m1 = (quad.rho >> 1 & 1) * (bound - (e_k >> 1 & 1));
      const int m2 = (quad.rho >> 2 & 1) * (bound - (e_k >> 2 & 1));
      const int m3 = (quad.rho >> 3 & 1) * (bound - (e_k >> 3 & 1));
      if (m0 + m1 + m2 + m3 <= 32) {
        const uint64_t bits = low_bits(quad.v[0], m0) | low_bits(quad.v[1], m1) << m0 |
                              low_bits(quad.v[2], m2) << (m0 + m1) | low_bits(quad.v[3], m3) << (m0 + m1 + m2);
        ms.put(bits, m0 + m1 + m2 + m3);
      } else {
        ms.put(quad.v[0], m0);
        ms.put(quad.v[1], m1);
        ms.put(quad.v[2], m2);
        ms.put(quad.v[3], m3);
      }
      return u;
    };
    for (int64_t qx = 0; qx < quads_wide; qx += 2) {
      VlcRun pair;
      int u[2];
      u[0] = code_quad(qx, pair);
      u[1] = qx + 1 < quads_wide ? code_quad(qx + 1, pair) : 0;
      put_uvlc(pair, mel, initial, u);
      vlc.put(pair.bits, pair.length);
    }
    rows.next_row();
  }

  ms.finish_with_ones();
  vlc.drain();
  finish_segment(mel, vlc, ms_bytes, mel_bytes, vlc_bytes, segment);
}

void encode_generic(PlaneView<const int32_t> coefficients, int shift, std::vector<uint8_t>& segment) {
  encode(coefficients, shift, segment);
}

#if MALLAT_HT_BMI2
[[gnu::target("avx2,bmi,bmi2,lzcnt,popcnt")]] void encode_bmi2(PlaneView<const int32_t> coefficients, int shift,
                                                         std::vector<uint8_t>& segment) {
  encode(coefficients, shift, segment);
}
#endif

}  // namespace

void encode_cleanup(PlaneView<const int32_t> coefficients, int shift, std::vector<uint8_t>& segment,
                    CleanupIsa isa) {
#if MALLAT_HT_BMI2
  if (resolve_cleanup_isa(isa) == CleanupIsa::kBmi2) return encode_bmi2(coefficients, shift, segment);
#endif
  (void)isa;
  encode_generic(coefficients, shift, segment);
}

}  // namespace mallat::entropy::ht

// The HT cleanup pass, encoder side (15444-15 Annex C), the fast way, as
// one source for every instruction set's kernel (cleanup_kernels_isa.h
// includes it in namespace MALLAT_HT_ISA): the same bytes as the plain
// reference (entropy/ht/cleanup_encoder_reference.cc; the tests hold every
// build to it). A row of quads is measured first (significance rho, each
// sample's exponent E and MagSgn value v, each quad's largest E) by the
// build's `Steps` (vector lanes, many quads at once), then coded quad by
// quad without branches on significance, MagSgn written 4 bytes at a time
// where no byte of them needs a stuffed bit.
#pragma once

#ifndef MALLAT_HT_ISA
#error "define MALLAT_HT_ISA (the instruction set's namespace) before including this file"
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <vector>

#include "common/plane_view.h"
#include "entropy/ht/bit_streams.h"
#include "entropy/ht/cleanup_encoding.h"
#include "entropy/ht/quad_rows.h"
#include "entropy/ht/vlc_tables.h"

namespace mallat::entropy::ht::cpu::MALLAT_HT_ISA {


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

// A row of quads measured (Steps::measure_quads and measure_quad below):
// per quad q its pattern rho (written where the row's rho goes,
// QuadRowArrays::rho_row), its largest exponent e_max[q], and per sample
// n (rho's order: top left, bottom left, top right, bottom right) at 4 q + n
// the exponent E = bit width of 2 mu - 1 (0 for an insignificant sample)
// and v = 2 (mu - 1) + sign (0 for an insignificant sample; below 2^32 as
// the magnitudes are below 2^31). The bottom samples' exponents go to the
// row's e_row (for the next row's kappa) as the quads are measured.
struct MeasuredQuads {
  uint8_t* rho;  // rho[q], rho[-1] the left border
  uint8_t* e_max;
  uint8_t* e;
  uint32_t* v;
  uint8_t* e_bottom;  // per column x of the row pair: e_bottom[x] (QuadRowArrays::e_row + 1)
};

// Quad q of columns top[x], bottom[x] (and top[x + 1], bottom[x + 1] where
// `right`) at `shift`, as the vector steps measure it.
inline void measure_quad(const int32_t* top, const int32_t* bottom, int64_t q, bool right, int shift,
                         const MeasuredQuads& m) {
  const int64_t x = 2 * q;
  const int32_t s[4] = {top[x], bottom[x], right ? top[x + 1] : 0, right ? bottom[x + 1] : 0};
  int rho = 0, e_max = 0;
  for (int n = 0; n < 4; ++n) {
    const uint32_t magnitude = s[n] < 0 ? 0u - static_cast<uint32_t>(s[n]) : static_cast<uint32_t>(s[n]);
    const uint64_t mu = magnitude >> shift;
    const bool significant = mu != 0;
    rho |= (significant ? 1 : 0) << n;
    const int e = significant ? std::bit_width(2 * mu - 1) : 0;
    m.e[4 * q + n] = static_cast<uint8_t>(e);
    m.v[4 * q + n] = significant ? static_cast<uint32_t>(2 * (mu - 1) + (s[n] < 0 ? 1 : 0)) : 0;
    e_max = std::max(e_max, e);
  }
  m.rho[q] = static_cast<uint8_t>(rho);
  m.e_max[q] = static_cast<uint8_t>(e_max);
  m.e_bottom[x] = m.e[4 * q + 1];
  m.e_bottom[x + 1] = m.e[4 * q + 3];
}

// A row's quads coded ahead of the streams (Steps::code_row, where
// kRowCodes), in the arrays per quad the serial loop takes: the context
// c_q, the VLC table entry (codeword, its length, e_k), u_q, U_q, and the
// quad's MagSgn bits (Annex C.3.5) in one word with their count, which is
// above 32 where they do not fit (then taken sample by sample).
struct RowCodes {
  uint8_t* context;
  uint16_t* entry;
  uint8_t* u;
  uint8_t* bound;
  uint32_t* ms_bits;
  uint8_t* ms_length;
};

// The VLC encoding tables (entropy/ht/vlc_tables.h) widened to 32 bits for
// the lanes' gathers: the initial row's, then the other rows'.
inline const uint32_t* wide_encode_tables() {
  static const std::array<uint32_t, 2 * 8 * 256> wide = [] {
    std::array<uint32_t, 2 * 8 * 256> t{};
    const VlcEncodeTables& tables = vlc_encode_tables();
    for (size_t i = 0; i < 8 * 256; ++i) {
      t[i] = tables.initial_row[i];
      t[8 * 256 + i] = tables.other_rows[i];
    }
    return t;
  }();
  return wide.data();
}

// Per quad row: the measures, and what a row leaves for the next
// (significance for contexts, bottom exponents for kappa) with a zero
// border on each side.
struct EncoderRows : QuadRowArrays {
  std::vector<uint8_t> e_max, e;
  std::vector<uint32_t> v;
  std::vector<uint8_t> kappa_above;  // per quad, kappa_q where it has two or more significant samples
  std::vector<int32_t> zero_row;     // the bottom row of a last, half quad row
  std::vector<uint8_t> code_context, code_u, code_bound, code_ms_length;
  std::vector<uint16_t> code_entry;
  std::vector<uint32_t> code_ms_bits;
  void reset(int64_t quads_wide) {
    for (auto* a : {&code_context, &code_u, &code_bound, &code_ms_length}) a->resize(static_cast<size_t>(quads_wide));
    code_entry.resize(static_cast<size_t>(quads_wide));
    code_ms_bits.resize(static_cast<size_t>(quads_wide));
    QuadRowArrays::reset(quads_wide);
    e_max.resize(static_cast<size_t>(quads_wide));
    e.resize(static_cast<size_t>(4 * quads_wide));
    v.resize(static_cast<size_t>(4 * quads_wide));
    kappa_above.resize(static_cast<size_t>(quads_wide));
    zero_row.assign(static_cast<size_t>(2 * quads_wide), 0);
  }
  RowCodes codes() {
    return {code_context.data(), code_entry.data(), code_u.data(), code_bound.data(), code_ms_bits.data(),
            code_ms_length.data()};
  }
  MeasuredQuads measures() {
    return {rho_row.data() + 1, e_max.data(), e.data(), v.data(), e_row.data() + 1};
  }
};

// The encoder, inlined into each build's one function. Steps:
//   int64_t measure_quads(const int32_t* top, const int32_t* bottom,
//                         int64_t quads, int shift, const MeasuredQuads&)
// measures whole quads (both columns) from quad 0 on, as many as its
// vector width allows up to `quads`, and returns how many; measure_quad
// does the rest. Where Steps::kRowCodes,
//   int64_t code_row(bool initial, int64_t quads, const uint8_t* context_above,
//                    const uint8_t* kappa_above, const MeasuredQuads&, const RowCodes&)
// codes the row's quads ahead of the streams (as code_quad below) from the
// first on, as many as its vector width allows up to `quads`, and returns
// how many; code_quad does the rest.
template <class Steps>
[[gnu::always_inline]] inline void encode_kernel(PlaneView<const int32_t> coefficients, int shift,
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
    const int32_t* bottom = y + 1 < height ? coefficients.row(y + 1) : rows.zero_row.data();
    // The row's quads, measured (no dependence between them).
    const MeasuredQuads m = rows.measures();
    const int64_t whole_quads = width / 2;
    for (int64_t q = Steps::measure_quads(top, bottom, whole_quads, shift, m); q < quads_wide; ++q) {
      measure_quad(top, bottom, q, q < whole_quads, shift, m);
    }
    if (!initial) contexts_from_above(rows.rho_above.data() + 1, quads_wide, rows.context_above.data());
    // The row's arrays as locals: the byte stores below may alias anything,
    // and would otherwise make the compiler reload them per quad.
    const uint8_t* context_above = rows.context_above.data();
    const uint8_t* rho_row = m.rho;
    const uint8_t* e_max = m.e_max;
    const uint8_t* e = m.e;
    const uint32_t* v = m.v;
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
    // Quad q: its VLC codeword into `pair`, its MEL event, its MagSgn bits
    // (Annex C.3.1-C.3.6); returns its residual u_q.
    const auto code_quad = [&](int64_t q, VlcRun& pair) __attribute__((always_inline)) {
      const int rho = rho_row[q];
      const uint8_t* eq = e + 4 * q;
      const uint32_t* vq = v + 4 * q;
      const int c_q = initial ? initial_row_context(rho_row[q - 1])
                              : context_above[q] | other_row_context(rho_row[q - 1], 0, 0, 0);
      // At most one significant sample, or the initial row (Annex C.3.4): 1.
      const int kappa = initial || (rho & (rho - 1)) == 0 ? 1 : kappa_above[q];
      const int bound = std::max(static_cast<int>(e_max[q]), kappa);  // U_q
      const int u = bound - kappa;
      // Written out rather than looped: GCC 12 with the sanitizers warns
      // (-Wmaybe-uninitialized) about the loop's counter here.
      const int emb = u == 0 ? 0
                             : (eq[0] == bound ? 1 : 0) | (eq[1] == bound ? 2 : 0) | (eq[2] == bound ? 4 : 0) |
                                   (eq[3] == bound ? 8 : 0);
      const uint16_t entry = table[c_q << 8 | rho << 4 | emb];
      pair.put(encoded_bits(entry), encoded_length(entry));
      if (c_q == 0) mel.encode(rho != 0);
      const int e_k = encoded_e_k(entry);
      // An insignificant sample puts no bits; the quad's bits in one put
      // where they fit in one.
      const int m0 = (rho & 1) * (bound - (e_k & 1));
      const int m1 = (rho >> 1 & 1) * (bound - (e_k >> 1 & 1));
      const int m2 = (rho >> 2 & 1) * (bound - (e_k >> 2 & 1));
      const int m3 = (rho >> 3 & 1) * (bound - (e_k >> 3 & 1));
      if (m0 + m1 + m2 + m3 <= 32) {
        const uint64_t bits = low_bits(vq[0], m0) | low_bits(vq[1], m1) << m0 | low_bits(vq[2], m2) << (m0 + m1) |
                              low_bits(vq[3], m3) << (m0 + m1 + m2);
        ms.put(bits, m0 + m1 + m2 + m3);
      } else {
        ms.put(vq[0], m0);
        ms.put(vq[1], m1);
        ms.put(vq[2], m2);
        ms.put(vq[3], m3);
      }
      return u;
    };
    // Quad q coded ahead (Steps::code_row): its codeword, MEL event and
    // MagSgn bits put; returns its u_q.
    const RowCodes codes = rows.codes();
    int64_t coded = 0;  // the quads code_row coded, from the first on
    if constexpr (Steps::kRowCodes) coded = Steps::code_row(initial, quads_wide, context_above, kappa_above, m, codes);
    const auto put_quad = [&](int64_t q, VlcRun& pair) __attribute__((always_inline)) {
      const uint16_t entry = codes.entry[q];
      const int rho = rho_row[q];
      pair.put(encoded_bits(entry), encoded_length(entry));
      if (codes.context[q] == 0) mel.encode(rho != 0);
      const int length = codes.ms_length[q];
      if (length <= 32) {
        ms.put(codes.ms_bits[q], length);
      } else {
        const int bound = codes.bound[q], e_k = encoded_e_k(entry);
        for (int n = 0; n < 4; ++n) ms.put(v[4 * q + n], (rho >> n & 1) * (bound - (e_k >> n & 1)));
      }
      return static_cast<int>(codes.u[q]);
    };
    for (int64_t qx = 0; qx < quads_wide; qx += 2) {
      VlcRun pair;
      int u[2] = {0, 0};
      for (int64_t q = qx; q < std::min(qx + 2, quads_wide); ++q) {
        u[q - qx] = q < coded ? put_quad(q, pair) : code_quad(q, pair);
      }
      put_uvlc(pair, mel, initial, u);
      vlc.put(pair.bits, pair.length);
    }
    rows.next_row();
  }

  ms.finish_with_ones();
  vlc.drain();
  finish_segment(mel, vlc, ms_bytes, mel_bytes, vlc_bytes, segment);
}

}  // namespace mallat::entropy::ht::cpu::MALLAT_HT_ISA

// The HT cleanup pass, decoder side (15444-15 Annex C), the fast way, as
// one source for every instruction set's kernel (cleanup_kernels_isa.h
// includes it in namespace MALLAT_HT_ISA): the same decoding as the plain
// reference (entropy/ht/cleanup_decoder_reference.cc; the tests hold every
// build to the same samples), with the destuffed streams of
// entropy/ht/fast_readers.h, a quad pair's UVLC from one look-up, and the
// VLC pass of quad row r + 1 in one loop with the MagSgn pass of row r
// (entropy/ht/magsgn_quad.h; the build's `Steps` reconstruct two quads'
// eight samples at once in vector lanes where they can).
#pragma once

#ifndef MALLAT_HT_ISA
#error "define MALLAT_HT_ISA (the instruction set's namespace) before including this file"
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <span>
#include <vector>

#include "common/plane_view.h"
#include "entropy/ht/bit_streams.h"
#include "entropy/ht/fast_readers.h"
#include "entropy/ht/magsgn_quad.h"
#include "entropy/ht/quad_rows.h"
#include "entropy/ht/vlc_tables.h"

namespace mallat::entropy::ht::cpu::MALLAT_HT_ISA {


// A UVLC prefix (Annex C, Table C.4's u_pfx): 1, 01, 001 or 000 (first bit
// lowest) read from the next 3 bits: u's base, the prefix's and the
// suffix's lengths.
struct UvlcPrefix {
  uint8_t base, prefix_length, suffix_length;
};
constexpr UvlcPrefix kUvlcPrefix[8] = {{5, 3, 5}, {1, 1, 0}, {2, 2, 0}, {1, 1, 0},
                                       {3, 3, 1}, {1, 1, 0}, {2, 2, 0}, {1, 1, 0}};
constexpr UvlcPrefix kNoUvlc = {0, 0, 0};

// A quad pair's whole UVLC (Annex C.3.3) from one look-up of the next 6
// bits, so that the VLC stream moves once per pair: the modes are which
// quads have u_off (bit 0 the first, bit 1 the second; 0 reads nothing),
// and for the initial row's pair with both set, kInitialBoth (no MEL event:
// if the first's prefix says it exceeds 2, the second, 1 or 2, is one bit
// before the first's suffix) and kInitialBothEvent (both exceed 2, each
// coded less 2). Per entry: the bits taken in all, and per quad its base
// and where its suffix lies (from the first bit, past both prefixes).
enum UvlcMode { kUvlcNone, kUvlcFirst, kUvlcSecond, kUvlcBoth, kInitialBoth, kInitialBothEvent, kUvlcModes };
struct UvlcPair {
  uint8_t length, base[2], suffix_start[2], suffix_length[2];
};
constexpr UvlcPair uvlc_pair(int mode, int bits) {
  const bool off0 = mode != kUvlcSecond && mode != kUvlcNone, off1 = mode >= kUvlcSecond;
  const UvlcPrefix a = off0 ? kUvlcPrefix[bits & 7] : kNoUvlc;
  UvlcPair e{};
  if (mode == kInitialBoth && a.base > 2) {
    e.base[0] = a.base;
    e.base[1] = 1;
    e.suffix_start[0] = static_cast<uint8_t>(a.prefix_length + 1);
    e.suffix_start[1] = a.prefix_length;
    e.suffix_length[0] = a.suffix_length;
    e.suffix_length[1] = 1;
  } else {
    const UvlcPrefix b = off1 ? kUvlcPrefix[(bits >> a.prefix_length) & 7] : kNoUvlc;
    const int plus = mode == kInitialBothEvent ? 2 : 0;
    const int prefixes = a.prefix_length + b.prefix_length;
    e.base[0] = static_cast<uint8_t>(a.base + plus);
    e.base[1] = static_cast<uint8_t>(b.base + plus);
    e.suffix_start[0] = static_cast<uint8_t>(prefixes);
    e.suffix_start[1] = static_cast<uint8_t>(prefixes + a.suffix_length);
    e.suffix_length[0] = a.suffix_length;
    e.suffix_length[1] = b.suffix_length;
  }
  e.length = static_cast<uint8_t>(std::max(e.suffix_start[0] + e.suffix_length[0], e.suffix_start[1] + e.suffix_length[1]));
  return e;
}
struct UvlcPairTable {
  UvlcPair entry[kUvlcModes * 64];
};
constexpr UvlcPairTable make_uvlc_pair_table() {
  UvlcPairTable t{};
  for (int mode = 0; mode < kUvlcModes; ++mode) {
    for (int bits = 0; bits < 64; ++bits) t.entry[mode << 6 | bits] = uvlc_pair(mode, bits);
  }
  return t;
}
inline constexpr UvlcPairTable kUvlcPairs = make_uvlc_pair_table();

// u_q of a quad pair in `mode` (the caller's MEL event decided an initial
// row's pair with both set).
inline void read_uvlc_pair(fast::BackwardReader& vlc, int mode, int u[2]) {
  const uint64_t bits = vlc.look();
  const UvlcPair& e = kUvlcPairs.entry[mode << 6 | (bits & 63)];
  u[0] = e.base[0] + static_cast<int>(low_bits(bits >> e.suffix_start[0], e.suffix_length[0]));
  u[1] = e.base[1] + static_cast<int>(low_bits(bits >> e.suffix_start[1], e.suffix_length[1]));
  vlc.advance(e.length);
}

// The other rows' decoding table (entropy/ht/vlc_tables.h) with, in each entry's
// high half, the bit the quad gives the context of the quad to its right
// (other_row_context's w and sw samples: c_q bit 1, at its place in the
// table's index, bit 8): the VLC pass's serial chain from one codeword to
// the next look-up is then one shift and an or.
struct WideVlcTable {
  std::array<uint32_t, 8 * 128> entry;
};
const WideVlcTable& wide_other_rows() {
  static const WideVlcTable table = [] {
    WideVlcTable t{};
    const auto& narrow = vlc_decode_tables().other_rows;
    for (size_t i = 0; i < narrow.size(); ++i) {
      const uint16_t e = narrow[i];
      t.entry[i] = e | static_cast<uint32_t>(other_row_context(decoded_rho(e), 0, 0, 0)) << (7 + 16);
    }
    return t;
  }();
  return table;
}

// Per quad row, what the VLC pass leaves for the MagSgn pass, and what a
// row leaves for the next: the VLC entries (whose rho give the next row's
// contexts) and bottom exponents (kappa), with a zero border on each side.
// The VLC pass runs a row ahead of the MagSgn pass: `codes` is the row
// being reconstructed, `next_codes` the row whose codewords are being read.
struct RowState {
  std::vector<uint8_t> e_above, e_row;      // column x at index x + 1
  std::vector<uint8_t> context_above;       // per quad: c_q's bits from the row above
  std::vector<uint32_t> codes, next_codes;  // quad q at index q + 1: the VLC table entry | u_q << 16
  std::vector<int32_t> bounds;              // per quad of `codes`: U_q = u_q + kappa_q
  std::vector<int32_t> spare_row;           // the bottom samples of a last, half quad row
  void reset(int64_t quads_wide, int64_t width) {
    e_above.assign(static_cast<size_t>(2 * quads_wide + 4), 0);
    e_row.assign(e_above.size(), 0);
    context_above.resize(static_cast<size_t>(quads_wide));
    codes.assign(static_cast<size_t>(quads_wide + 2), 0);
    next_codes.assign(codes.size(), 0);
    bounds.resize(static_cast<size_t>(quads_wide));
    spare_row.resize(static_cast<size_t>(width + 1));
  }
};

// RowState's arrays by pointer, for one block's rows: passing a row on to
// the next swaps these pointers, which stay in registers, where swapping
// the thread_local vectors themselves goes through memory at every row.
// codes and next_codes point at quad 0 (past the left border).
struct RowViews {
  uint8_t *e_above, *e_row, *context_above;
  uint32_t *codes, *next_codes;
  int32_t* bounds;
  explicit RowViews(RowState& rows)
      : e_above(rows.e_above.data()), e_row(rows.e_row.data()), context_above(rows.context_above.data()),
        codes(rows.codes.data() + 1), next_codes(rows.next_codes.data() + 1), bounds(rows.bounds.data()) {}
};

// The part of each quad's context that the row above gives
// (other_row_context's bits 0 and 2) from that row's VLC entries, for a
// whole row at once (no serial dependence: the compiler vectorises it).
// `above` has a zero entry on each side.
inline void contexts_from_codes(const uint32_t* above, int64_t quads_wide, uint8_t* out) {
  for (int64_t q = 0; q < quads_wide; ++q) {
    // Bits 1 and 3 of rho (the bottom samples) are bits 5 and 7 of an entry.
    const uint32_t left = above[q - 1] >> 7, middle = above[q] >> 5, right = above[q + 1] >> 5;
    out[q] = static_cast<uint8_t>(((left | middle) & 1) | ((middle >> 2 | right) & 1) << 2);
  }
}

// The VLC pass of one quad row, a pair of quads at a time: each quad's
// codeword (after a MEL event in context 0) and each pair's UVLC, in the
// stream order of Annex C.3. Writes the row's codes (next_codes); the
// contexts from the row above are taken when it starts.
template <bool kInitial>
class VlcRow {
 public:
  VlcRow(fast::BackwardReader& vlc, fast::MelDecoder& mel, int64_t quads_wide, const RowViews& rows)
      : vlc_(vlc), mel_(mel), quads_wide_(quads_wide), context_above_(rows.context_above), codes_(rows.next_codes) {
    const VlcDecodeTables& tables = vlc_decode_tables();
    table_ = kInitial ? tables.initial_row.data() : tables.other_rows.data();
    if (!kInitial) wide_ = wide_other_rows().entry.data();
    if (!kInitial) contexts_from_codes(rows.codes, quads_wide, context_above_);
    vlc_.clamp();
  }

  // Quads qx and qx + 1 (qx even; the second only where the row has it).
  [[gnu::always_inline]] void pair(int64_t qx) {
    if (qx + 1 < quads_wide_) {
      whole_pair(qx);
    } else {
      pair_of<false>(qx);
    }
  }
  // Quads qx and qx + 1, both in the row.
  [[gnu::always_inline]] void whole_pair(int64_t qx) { pair_of<true>(qx); }

 private:
  template <bool kSecond>
  [[gnu::always_inline]] void pair_of(int64_t qx) {
    vlc_.refill();
    const uint16_t entry0 = codeword(qx);
    const uint16_t entry1 = kSecond ? codeword(qx + 1) : 0;
    int u[2] = {0, 0};
    int mode = decoded_u_off(entry0) | decoded_u_off(entry1) << 1;
    if (kInitial && mode == kUvlcBoth) mode = mel_.decode() ? kInitialBothEvent : kInitialBoth;
    // Without a branch on the mode, which the data decides: mode kUvlcNone's
    // entry reads nothing and gives u_q = 0.
    read_uvlc_pair(vlc_, mode, u);
    codes_[qx] = entry0 | static_cast<uint32_t>(u[0]) << 16;
    // Without a second quad, 0 into the right border (already 0).
    codes_[qx + 1] = entry1 | static_cast<uint32_t>(u[1]) << 16;
  }

  // Quad q's codeword entry (0: insignificant after a MEL event).
  [[gnu::always_inline]] uint16_t codeword(int64_t q) {
    uint16_t entry = 0;
    if constexpr (kInitial) {
      const int c_q = initial_row_context(rho_left_);
      // In context 0 a MEL event says whether the quad is significant at
      // all; only then does it have a codeword.
      if (c_q != 0 || mel_.decode()) {
        entry = table_[c_q << 7 | (vlc_.look() & 0x7F)];
        vlc_.advance(decoded_length(entry));
      }
      rho_left_ = decoded_rho(entry);
    } else {
      // c_q << 7: the row above's part, and the part the quad to the left
      // gives (wide_other_rows's entry carries it in place).
      const uint32_t context = static_cast<uint32_t>(context_above_[q]) << 7 | left_context_;
      uint32_t wide = 0;
      if (context != 0 || mel_.decode()) {
        wide = wide_[context | (vlc_.look() & 0x7F)];
        vlc_.advance(static_cast<int>(wide & 7));
      }
      left_context_ = wide >> 16;
      entry = static_cast<uint16_t>(wide);
    }
    return entry;
  }

  fast::BackwardReader& vlc_;
  fast::MelDecoder& mel_;
  const int64_t quads_wide_;
  uint8_t* const context_above_;
  uint32_t* const codes_;  // codes_[-1] and codes_[quads_wide_] are the border
  const uint16_t* table_;
  const uint32_t* wide_ = nullptr;
  int rho_left_ = 0;              // the initial row's context comes from it
  uint32_t left_context_ = 0;     // in the other rows, c_q's bit 1 << 7
};

// The MagSgn pass of one quad row (codes, the exponents above in e_above),
// a quad at a time: its samples into the row's `top` and `bottom` rows and
// its bottom exponents into e_row. kVector: quads that allow it
// reconstructed four samples at once, and Steps::quad_pair_values
// (as quad_pair_values_avx2 of entropy/ht/magsgn_quad.h) two whole quads'
// eight where kPairs.
template <bool kVector, class Steps>
class MagSgnRow {
 public:
  MagSgnRow(fast::ForwardReader& ms, const RowViews& rows, int32_t* top, int32_t* bottom, int64_t width, int p,
            int planes_above)
      : ms_(ms), codes_(rows.codes), bounds_(rows.bounds), e_row_(rows.e_row), top_(top),
        bottom_(bottom), quads_wide_((width + 1) / 2), whole_quads_(width / 2), p_(p), planes_above_(planes_above),
        vector_bound_(std::min(planes_above, 24)), mu_limit_((uint64_t{1} << planes_above) - 1) {
    // Every quad's U_q before the row's serial work, in vector lanes where
    // the compiler can: kappa as QuadRows::kappa (the initial row's
    // exponents above are the zero border).
    const uint8_t* above = rows.e_above;
    for (int64_t q = 0; q < quads_wide_; ++q) {
      const uint32_t code = codes_[q];
      const int most = std::max(std::max(above[2 * q], above[2 * q + 1]), std::max(above[2 * q + 2], above[2 * q + 3]));
      const unsigned rho = code >> 4 & 15;
      const int kappa = (rho & (rho - 1)) == 0 ? 1 : std::max(1, most - 1);
      bounds_[q] = static_cast<int32_t>(code >> 16) + kappa;
    }
  }

  // Quads qx and qx + 1 (qx even; the second only where the row has it).
  // false: an exponent bound is beyond K + 1 (a corrupt segment).
  [[gnu::always_inline]] bool pair(int64_t qx) {
    if constexpr (Steps::kPairs) {
      if (qx + 1 < whole_quads_) return whole_pair(qx);
    }
    if (qx + 1 >= quads_wide_) return quad(qx);
    const bool first = quad(qx);
    return quad(qx + 1) && first;
  }

  // Quads qx..qx + 3 (qx a multiple of 4; those the row has): the sixteen
  // samples at once by Steps::quad_four_values where the four quads are
  // whole and their bounds allow it, else two pairs.
  [[gnu::always_inline]] bool four(int64_t qx) {
    if constexpr (Steps::kFours) {
      if (qx + 3 < whole_quads_) {
        const int64_t x = 2 * qx;
        uint32_t code[4];
        std::memcpy(code, codes_ + qx, sizeof code);
        if (((code[0] | code[1] | code[2] | code[3]) & 0xF0) == 0) {  // no MagSgn bits
          std::memset(top_ + x, 0, 8 * sizeof(int32_t));
          std::memset(bottom_ + x, 0, 8 * sizeof(int32_t));
          std::memset(e_row_ + x + 1, 0, 8);
          return true;
        }
        const int32_t* bound = bounds_ + qx;
        if (std::max(std::max(bound[0], bound[1]), std::max(bound[2], bound[3])) <= vector_bound_) {
          Steps::quad_four_values(ms_, code, bound, p_, top_ + x, bottom_ + x, e_row_ + x + 1);
          return true;
        }
      }
    }
    if (qx + 2 >= quads_wide_) return pair(qx);
    const bool first = pair(qx);
    return pair(qx + 2) && first;
  }

 private:
  // Two quads with both columns: the eight samples at once where both
  // bounds allow it (entropy/ht/magsgn_quad.h), else a quad at a time.
  [[gnu::always_inline]] bool whole_pair(int64_t qx) {
    const uint32_t code[2] = {codes_[qx], codes_[qx + 1]};
    const int rho0 = decoded_rho(static_cast<uint16_t>(code[0])), rho1 = decoded_rho(static_cast<uint16_t>(code[1]));
    const int64_t x = 2 * qx;
    if ((rho0 | rho1) == 0) {  // no MagSgn bits
      std::memset(top_ + x, 0, 4 * sizeof(int32_t));
      std::memset(bottom_ + x, 0, 4 * sizeof(int32_t));
      std::memset(e_row_ + x + 1, 0, 4);
      return true;
    }
    const int bound[2] = {bounds_[qx], bounds_[qx + 1]};
    if (std::max(bound[0], bound[1]) > vector_bound_) {
      const bool first = quad(qx);
      return quad(qx + 1) && first;
    }
    const int total[2] = {
        bound[0] * std::popcount(static_cast<unsigned>(rho0)) - std::popcount(static_cast<unsigned>(decoded_e_k(static_cast<uint16_t>(code[0])))),
        bound[1] * std::popcount(static_cast<unsigned>(rho1)) - std::popcount(static_cast<unsigned>(decoded_e_k(static_cast<uint16_t>(code[1]))))};
    Steps::quad_pair_values(ms_, code, bound, total, p_, top_ + x, bottom_ + x, e_row_ + x + 1);
    return true;
  }

  // false: quad q's exponent bound is beyond K + 1 (a corrupt segment).
  [[gnu::always_inline]] bool quad(int64_t q) {
    const uint32_t code = codes_[q];
    const int rho = decoded_rho(static_cast<uint16_t>(code));
    const int64_t x = 2 * q;
    if (kVector && rho == 0) {  // insignificant: no MagSgn bits, U_q unused
      top_[x] = bottom_[x] = 0;
      if (q < whole_quads_) top_[x + 1] = bottom_[x + 1] = 0;
      e_row_[x + 1] = e_row_[x + 2] = 0;
      return true;
    }
    const int bound = bounds_[q];  // U_q
    if (bound > planes_above_ + 1) return false;
    // Every codeword's e_1 is within its e_k, and e_k within its rho (the
    // decoding table holds codewords only; 0 elsewhere).
    const int e_k = decoded_e_k(static_cast<uint16_t>(code));
    const int e_1 = decoded_e_1(static_cast<uint16_t>(code));
    const int total = bound * std::popcount(static_cast<unsigned>(rho)) - std::popcount(static_cast<unsigned>(e_k));
    if (kVector && bound <= planes_above_ && total <= 56) {
      const BottomExponents e =
          quad_values_unclamped(ms_, rho, bound, e_k, e_1, total, p_, top_ + x, bottom_ + x, q < whole_quads_);
      e_row_[x + 1] = static_cast<uint8_t>(e.left);
      e_row_[x + 2] = static_cast<uint8_t>(e.right);
      return true;
    }
    const QuadValues v = quad_values(ms_, rho, bound, e_k, e_1, p_, mu_limit_);
    top_[x] = v.value[0];
    bottom_[x] = v.value[1];
    if (q < whole_quads_) {
      top_[x + 1] = v.value[2];
      bottom_[x + 1] = v.value[3];
    }
    e_row_[x + 1] = static_cast<uint8_t>(v.e_bottom_left);
    e_row_[x + 2] = static_cast<uint8_t>(v.e_bottom_right);
    return true;
  }

  fast::ForwardReader& ms_;
  const uint32_t* const codes_;
  int32_t* const bounds_;
  uint8_t* const e_row_;
  int32_t* const top_;
  int32_t* const bottom_;
  const int64_t quads_wide_, whole_quads_;
  const int p_, planes_above_, vector_bound_;
  const uint64_t mu_limit_;
};

// The decoder, inlined into one function per instruction set. The VLC
// pass of quad row r + 1 and the MagSgn pass of row r run in one loop, a
// pair of quads of each per step (Annex C.3's order within each stream is
// kept: the streams are apart), so that the VLC's serial chain of codeword
// lengths and the MagSgn's work overlap in the processor.
// Steps: kVector (quads four samples at once in 64-bit vector lanes),
// kPairs (two quads at once by Steps::quad_pair_values) and kFours (four
// quads at once by Steps::quad_four_values).
template <class Steps>
[[gnu::always_inline]] inline bool decode_kernel(std::span<const uint8_t> segment, int p, int planes_above,
                                          PlaneView<int32_t> out) {
  CleanupLayout layout;
  if (!cleanup_layout(segment, layout)) {
    clear(out);
    return false;
  }
  const uint8_t* data = segment.data();
  const int64_t pcup = layout.pcup;
  thread_local std::vector<uint8_t> flat;
  flat.resize(fast::ForwardReader::buffer_size(static_cast<size_t>(pcup)));
  fast::ForwardReader ms(data, static_cast<size_t>(pcup), flat.data());
  fast::MelDecoder mel(data + pcup, static_cast<size_t>(layout.scup - 1));
  const int64_t width = out.width, height = out.height;
  const int64_t quads_wide = (width + 1) / 2;
  // A quad row's VLC pass refills once per pair (VlcRow::pair).
  const auto row_refills = static_cast<size_t>((quads_wide + 1) / 2);
  thread_local std::vector<uint8_t> vlc_flat;
  vlc_flat.resize(fast::BackwardReader::buffer_size(segment.size() - static_cast<size_t>(pcup), row_refills + 1));
  fast::BackwardReader vlc(data + pcup, data + segment.size() - 2, layout.vlc_bits, layout.vlc_count,
                           layout.vlc_above_8f, vlc_flat.data(), row_refills + 1);
  thread_local RowState state;
  state.reset(quads_wide, width);
  RowViews rows(state);

  {
    VlcRow<true> initial(vlc, mel, quads_wide, rows);
    for (int64_t qx = 0; qx < quads_wide; qx += 2) initial.pair(qx);
  }
  for (int64_t y = 0; y < height; y += 2) {
    // The row just read becomes the one to reconstruct, and its rho the
    // row above for the next one's contexts.
    std::swap(rows.codes, rows.next_codes);
    int32_t* top = out.row(y);
    int32_t* bottom = y + 1 < height ? out.row(y + 1) : state.spare_row.data();
    MagSgnRow<Steps::kVector, Steps> magsgn(ms, rows, top, bottom, width, p, planes_above);
    bool ok = true;
    if (y + 2 < height) {
      VlcRow<false> next(vlc, mel, quads_wide, rows);
      if constexpr (Steps::kFours) {
        int64_t qx = 0;
        for (; qx + 4 <= quads_wide; qx += 4) {
          next.whole_pair(qx);
          next.whole_pair(qx + 2);
          ok &= magsgn.four(qx);
        }
        if (qx < quads_wide) {  // the last 1 to 3 quads
          next.pair(qx);
          if (qx + 2 < quads_wide) next.pair(qx + 2);
          ok &= magsgn.four(qx);
        }
      } else {
        int64_t qx = 0;
        for (; qx + 2 <= quads_wide; qx += 2) {
          next.whole_pair(qx);
          ok &= magsgn.pair(qx);
        }
        if (qx < quads_wide) {  // the last, odd quad
          next.pair(qx);
          ok &= magsgn.pair(qx);
        }
      }
    } else if constexpr (Steps::kFours) {
      for (int64_t qx = 0; qx < quads_wide; qx += 4) ok &= magsgn.four(qx);
    } else {
      for (int64_t qx = 0; qx < quads_wide; qx += 2) ok &= magsgn.pair(qx);
    }
    if (!ok) {
      clear(out);
      return false;
    }
    std::swap(rows.e_above, rows.e_row);
  }
  return true;
}

}  // namespace mallat::entropy::ht::cpu::MALLAT_HT_ISA

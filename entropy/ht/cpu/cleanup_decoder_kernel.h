// The HT cleanup pass, decoder side (15444-15 Annex C), the fast way, as
// one source for every instruction set's kernel (cleanup_kernels_isa.h
// includes it in namespace MALLAT_HT_ISA): the same decoding as the plain
// reference (entropy/ht/cleanup_decoder_reference.cc; the tests hold every
// build to the same samples), with the destuffed streams of
// entropy/ht/fast_readers.h, a quad pair's UVLC from one look-up, and the
// VLC pass of quad row r + 1 in one loop with the MagSgn pass of row r
// (entropy/ht/magsgn_quad.h; the build's `Steps` reconstruct two quads'
// eight samples at once in vector lanes where they can). The VLC pass is
// a serial chain (a codeword's length and its context's part for the next
// quad come from one look-up); what is kept short: the reader's and the
// MEL events' states in registers for a row, look-up addresses added in
// the order their parts arrive, the MEL events of a piece of a row decoded
// before it.
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

// x as a value the compiler knows nothing of (no instruction): sums formed
// with it are not reassociated, so that the VLC pass's look-up addresses
// are added in the order that keeps the serial chain short.
template <class T>
[[gnu::always_inline]] inline T opaque(T x) {
  asm("" : "+r"(x));
  return x;
}

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
  uint8_t unused;  // 8 bytes an entry: its index scales in the address
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

// The rows after the initial one's UVLC (modes kUvlcNone..kUvlcBoth, whose
// second suffix follows the first) for a bit deposit (BMI2's pdep): the
// two suffixes, taken together from where they start, deposited at bits
// 16 and 48 (u_q's place in a quad's code, two codes in a 64-bit word),
// plus the two bases there: a pair's u_q with no field read apart.
struct UvlcDeposits {
  struct Entry {
    uint64_t deposit, bases;
  } entry[4 * 64];
  uint8_t length[4 * 64], suffix_start[4 * 64];
};
constexpr UvlcDeposits make_uvlc_deposits() {
  UvlcDeposits t{};
  for (int i = 0; i < 4 * 64; ++i) {
    const UvlcPair& e = kUvlcPairs.entry[i];
    const auto low = [](int n) { return (uint64_t{1} << n) - 1; };
    t.entry[i].deposit = low(e.suffix_length[0]) << 16 | low(e.suffix_length[1]) << 48;
    t.entry[i].bases = uint64_t{e.base[0]} << 16 | uint64_t{e.base[1]} << 48;
    t.length[i] = e.length;
    t.suffix_start[i] = e.suffix_start[0];
  }
  return t;
}
inline constexpr UvlcDeposits kUvlcDeposits = make_uvlc_deposits();

// The decoding tables (entropy/ht/vlc_tables.h) widened for the VLC
// pass's serial chain from one codeword to the next look-up. Each entry:
// bits 0-2 the codeword length and bits 3-5 zero (a shift by the entry
// takes the codeword: x86's variable shifts read the count's low 6 bits
// only), bits 16-31 the narrow entry; the initial row's with u_off in bit
// 6 and in bits 7-9 the part of the next quad's context (c_q << 7) that
// this quad gives as the quad to its left (initial_row_context); the other
// rows' with u_off in bit 7 and that part (other_row_context's w and sw
// samples) in bit 8. A pair's UVLC mode is then the first quad's u_off bit
// (times 64 entries of kUvlcPairs) and the second's (times 128), each a
// mask and a scaled add.
struct WideVlcTables {
  std::array<uint32_t, 8 * 128> initial_row, other_rows;
};
template <bool kInitial>
struct WideLayout {
  static constexpr uint32_t kUOff = kInitial ? 0x40 : 0x80, kLeftContext = kInitial ? 0x380 : 0x100;
};
template <bool kInitial>
constexpr uint32_t widened(uint16_t e) {
  const int rho = decoded_rho(e);
  const int left = kInitial ? initial_row_context(rho) : other_row_context(rho, 0, 0, 0);
  return static_cast<uint32_t>(decoded_length(e)) | (decoded_u_off(e) != 0 ? WideLayout<kInitial>::kUOff : 0) |
         static_cast<uint32_t>(left) << 7 | static_cast<uint32_t>(e) << 16;
}
namespace vlc_codewords {
#include "entropy/ht/vlc_codewords.inc"
}  // namespace vlc_codewords
// Made at compile time (as vlc_decode_tables, widened): their address is a
// constant, which costs the VLC pass's loop no register.
template <bool kInitial>
constexpr std::array<uint32_t, 8 * 128> wide_table(std::span<const VlcCodeword> codewords) {
  std::array<uint32_t, 8 * 128> t{};
  for (const VlcCodeword& c : codewords) {
    const uint32_t entry = widened<kInitial>(decoding_entry(c));
    for (int rest = 0; rest < 128 >> c.length; ++rest) t[static_cast<size_t>(c.c_q << 7 | rest << c.length | c.bits)] = entry;
  }
  return t;
}
inline constexpr WideVlcTables kWideVlcTables{wide_table<true>(vlc_codewords::kInitialRowCodewords),
                                              wide_table<false>(vlc_codewords::kOtherRowCodewords)};

// Per quad row, what the VLC pass leaves for the MagSgn pass, and what a
// row leaves for the next: the VLC entries (whose rho give the next row's
// contexts) and bottom exponents (kappa), with a zero border on each side.
// The VLC pass runs a row ahead of the MagSgn pass: `codes` is the row
// being reconstructed, `next_codes` the row whose codewords are being read.
struct RowState {
  std::vector<uint8_t> e_above, e_row;      // column x at index x + 1
  std::vector<uint16_t> context_above;      // per quad: c_q's bits from the row above, << 7
  // Quad q at index q + 1: the VLC table entry | u_q << 16 (as MagSgnRow
  // finds them; it packs them for its pairs); 32 bytes readable from any
  // quad's (quad_pair_values_avx2's load).
  std::vector<uint32_t> codes, next_codes;
  std::vector<int32_t> bounds;              // per quad of `codes`: U_q = u_q + kappa_q
  std::vector<int32_t> spare_row;           // the bottom samples of a last, half quad row
  void reset(int64_t quads_wide, int64_t width) {
    e_above.assign(static_cast<size_t>(2 * quads_wide + 4), 0);
    e_row.assign(e_above.size(), 0);
    context_above.resize(static_cast<size_t>(quads_wide));
    codes.assign(static_cast<size_t>(quads_wide + 8), 0);
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
  uint8_t *e_above, *e_row;
  uint16_t* context_above;
  uint32_t *codes, *next_codes;
  int32_t* bounds;
  explicit RowViews(RowState& rows)
      : e_above(rows.e_above.data()), e_row(rows.e_row.data()), context_above(rows.context_above.data()),
        codes(rows.codes.data() + 1), next_codes(rows.next_codes.data() + 1), bounds(rows.bounds.data()) {}
};

// The part of each quad's context that the row above gives
// (other_row_context's bits 0 and 2), times 128 (its place in a table's
// index), from that row's VLC entries, for a whole row at once (no serial
// dependence: the compiler vectorises it). `above` has a zero entry on
// each side.
inline void contexts_from_codes(const uint32_t* above, int64_t quads_wide, uint16_t* out) {
  for (int64_t q = 0; q < quads_wide; ++q) {
    // Bits 1 and 3 of rho (the bottom samples) are bits 5 and 7 of an entry.
    const uint32_t left = above[q - 1] >> 7, middle = above[q] >> 5, right = above[q + 1] >> 5;
    out[q] = static_cast<uint16_t>((((left | middle) & 1) | ((middle >> 2 | right) & 1) << 2) << 7);
  }
}

// The VLC pass of one quad row, a pair of quads at a time: each quad's
// codeword (after a MEL event in context 0) and each pair's UVLC, in the
// stream order of Annex C.3. Writes the row's codes (next_codes); the
// contexts from the row above are taken when it starts. The streams'
// states are copies for the row (registers, not memory, in the chain of
// look-ups), handed back when it ends.
template <bool kInitial, class Steps>
class VlcRow {
 public:
  VlcRow(fast::BackwardReader& vlc, fast::MelDecoder& mel, uint64_t& events, int64_t quads_wide,
         const RowViews& rows)
      : vlc_(vlc), reader_(vlc), mel_(mel), events_out_(events), events_(events), quads_wide_(quads_wide),
        context_above_(rows.context_above), codes_(rows.next_codes) {
    if (!kInitial) contexts_from_codes(rows.codes, quads_wide, context_above_);
    reader_.clamp();
  }
  ~VlcRow() {
    vlc_ = reader_;
    events_out_ = events_;
  }
  VlcRow(const VlcRow&) = delete;
  VlcRow& operator=(const VlcRow&) = delete;

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

  // The MEL events of the next `quads` <= kEventsAhead quads of a row
  // other than the initial one (one a quad at most), decoded before their
  // loop: no call in it, whose registers would cost the loop's chain.
  static constexpr int64_t kEventsAhead = fast::MelDecoder::kRefillEvents;
  void events_for(int64_t quads) {
    if ((events_ >> quads) == 0) events_ = mel_.refill(events_);
  }

 private:
  template <bool kSecond>
  [[gnu::always_inline]] void pair_of(int64_t qx) {
    // The initial row's pair takes at most three events (two contexts 0
    // and one for its UVLC); the other rows' are there already
    // (events_for).
    if (kInitial && events_ < 8) [[unlikely]] events_ = mel_.refill(events_);
    reader_.refill();
    const uint32_t wide0 = codeword(qx);
    const uint32_t wide1 = kSecond ? codeword(qx + 1) : 0;
    // The UVLC mode (kUvlcNone..kUvlcBoth) from the two u_off, the second's
    // added last (the first's is known sooner).
    using Layout = WideLayout<kInitial>;
    const UvlcPair* modes = kUvlcPairs.entry + (wide0 & Layout::kUOff) * 64 / Layout::kUOff;
    modes = opaque(modes) + (wide1 & Layout::kUOff) * 128 / Layout::kUOff;
    if constexpr (kInitial) {
      if (modes == kUvlcPairs.entry + kUvlcBoth * 64) {
        modes = kUvlcPairs.entry + (take_event() ? kInitialBothEvent : kInitialBoth) * 64;
      }
    }
    // Without a branch on the mode, which the data decides: mode kUvlcNone's
    // entry reads nothing and gives u_q = 0.
    const uint64_t bits = reader_.look();
    if constexpr (!kInitial && Steps::kBitDeposit) {
      const auto index = static_cast<size_t>(opaque(modes) - kUvlcPairs.entry) | (bits & 63);
      const UvlcDeposits::Entry& e = kUvlcDeposits.entry[index];
      const uint64_t u = Steps::deposit(bits >> kUvlcDeposits.suffix_start[index], e.deposit) + e.bases;
      reader_.advance(kUvlcDeposits.length[index]);
      // Without a second quad, 0 into the right border (already 0).
      const uint64_t pair = (wide0 >> 16 | static_cast<uint64_t>(wide1 >> 16) << 32) | u;
      std::memcpy(codes_ + qx, &pair, sizeof pair);
    } else {
      const UvlcPair& e = opaque(modes)[bits & 63];
      const auto u0 = static_cast<uint32_t>(e.base[0] + low_bits(bits >> e.suffix_start[0], e.suffix_length[0]));
      const auto u1 = static_cast<uint32_t>(e.base[1] + low_bits(bits >> e.suffix_start[1], e.suffix_length[1]));
      reader_.advance(e.length);
      codes_[qx] = wide0 >> 16 | u0 << 16;
      // Without a second quad, 0 into the right border (already 0).
      codes_[qx + 1] = wide1 >> 16 | u1 << 16;
    }
  }

  // The next MEL event, taken.
  [[gnu::always_inline]] bool take_event() {
    const bool event = events_ & 1;
    events_ >>= 1;
    return event;
  }

  // Quad q's wide entry (0: insignificant after a MEL event). In context 0
  // a MEL event says whether the quad is significant at all; only then
  // does it have a codeword.
  [[gnu::always_inline]] uint32_t codeword(int64_t q) {
    // c_q << 7: the row above's part, and the part the quad to the left
    // gives, added last (it comes with the previous look-up).
    const uint32_t above = kInitial ? 0 : context_above_[q];
    const uint32_t left = left_ & WideLayout<kInitial>::kLeftContext;
    uint32_t wide = 0;
    if ((above | left) != 0 || take_event()) {
      const uint32_t* table = kInitial ? kWideVlcTables.initial_row.data() : kWideVlcTables.other_rows.data();
      wide = opaque(opaque(table + above) + left)[reader_.look() & 0x7F];
      reader_.advance_low6(wide);
    }
    left_ = wide;
    return wide;
  }

  fast::BackwardReader& vlc_;
  fast::BackwardReader reader_;
  fast::MelDecoder& mel_;
  uint64_t& events_out_;
  uint64_t events_;  // fast::MelDecoder's word of events
  const int64_t quads_wide_;
  uint16_t* const context_above_;
  uint32_t* const codes_;  // codes_[-1] and codes_[quads_wide_] are the border
  uint32_t left_ = 0;  // the wide entry of the quad to the left
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
      const int bound = static_cast<int32_t>(code >> 16) + kappa;
      bounds_[q] = bound;
      if constexpr (Steps::kPairs) codes_[q] = pair_code(code, bound);
    }
  }

 private:
  // What whole_pair and Steps::quad_pair_values read of a quad, in place of
  // u_q: bit 23 set where U_q is beyond vector_bound_ (then bits 24-31 are
  // not used), bits 24-31 U_q. The VLC entry stays in bits 0-15 (the next
  // row's contexts).
  [[gnu::always_inline]] uint32_t pair_code(uint32_t code, int bound) const {
    const uint32_t beyond = bound > vector_bound_ ? 1 : 0;
    return (code & 0xFFFF) | beyond << 23 | (static_cast<uint32_t>(bound) & 0xFF) << 24;
  }

 public:
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

 private:
  // Two quads with both columns: the eight samples at once where both
  // bounds allow it (entropy/ht/magsgn_quad.h), else a quad at a time.
  [[gnu::always_inline]] bool whole_pair(int64_t qx) {
    uint64_t codes;  // pair_code's of both quads, the first in the low half
    std::memcpy(&codes, codes_ + qx, sizeof codes);
    const int64_t x = 2 * qx;
    if ((codes & 0x000000F0'000000F0) == 0) {  // no MagSgn bits
      std::memset(top_ + x, 0, 4 * sizeof(int32_t));
      std::memset(bottom_ + x, 0, 4 * sizeof(int32_t));
      std::memset(e_row_ + x + 1, 0, 4);
      return true;
    }
    if ((codes & 0x00800000'00800000) != 0) {
      const bool first = quad(qx);
      return quad(qx + 1) && first;
    }
    // Each quad's sum of m_n (Annex C.3.5): U_q per significant sample, less
    // e_k's.
    const auto code0 = static_cast<uint32_t>(codes), code1 = static_cast<uint32_t>(codes >> 32);
    const int total[2] = {
        static_cast<int>(code0 >> 24) * std::popcount(code0 & 0xF0) - std::popcount(code0 & 0xF000),
        static_cast<int>(code1 >> 24) * std::popcount(code1 & 0xF0) - std::popcount(code1 & 0xF000)};
    Steps::quad_pair_values(ms_, codes_ + qx, total, p_, top_ + x, bottom_ + x, e_row_ + x + 1);
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
  uint32_t* const codes_;
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
// kPairs (two quads at once by Steps::quad_pair_values) and kBitDeposit
// (a pair's UVLC by Steps::deposit, UvlcDeposits).
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
  uint64_t events = fast::MelDecoder::kNoEvents;
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
    VlcRow<true, Steps> initial(vlc, mel, events, quads_wide, rows);
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
      VlcRow<false, Steps> next(vlc, mel, events, quads_wide, rows);
      static_assert(VlcRow<false, Steps>::kEventsAhead % 2 == 0);
      int64_t qx = 0;
      while (qx < quads_wide) {
        // Pieces of the row whose events one refill holds; only the last
        // may end in an odd quad.
        const int64_t end = std::min(quads_wide, qx + VlcRow<false, Steps>::kEventsAhead);
        next.events_for(end - qx);
        for (; qx + 2 <= end; qx += 2) {
          next.whole_pair(qx);
          ok &= magsgn.pair(qx);
        }
        if (qx < end) {  // the row's last, odd quad
          next.pair(qx);
          ok &= magsgn.pair(qx);
          qx = end;
        }
      }
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

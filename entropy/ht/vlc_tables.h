// The HT cleanup pass's context-adaptive VLC (15444-15 Annex C, CxtVLC) as
// lookup tables built once from the standard's codeword tables
// (entropy/ht/vlc_codewords.inc), and the quad context c_q both sides compute from
// the significance of a quad's neighbours. Internal to the HT coder.
#pragma once

#include <array>
#include <cstdint>

#include "common/host_device.h"

namespace mallat::entropy::ht {

// One row of the standard's codeword tables.
struct VlcCodeword {
  uint8_t c_q;     // quad context, 0..7
  uint8_t rho;     // significance pattern of the quad's 4 samples
  uint8_t u_off;   // 1: an unsigned residual u_q follows in the UVLC
  uint8_t e_k;     // samples whose exponent is signalled as U_q (EMB pattern)
  uint8_t e_1;     // of those, the ones whose magnitude bit U_q - 1 is 1
  uint8_t length;  // codeword length in bits, 1..7
  uint8_t bits;    // the codeword, first bit in bit 0
};

// Decoding: indexed by c_q << 7 | the next 7 bits of the VLC stream. Entry
// bits: 0-2 codeword length, 3 u_off, 4-7 rho, 8-11 e_1, 12-15 e_k. An
// entry of 0 is a bit pattern no codeword starts (corrupt data only).
struct VlcDecodeTables {
  std::array<uint16_t, 8 * 128> initial_row;
  std::array<uint16_t, 8 * 128> other_rows;
};
const VlcDecodeTables& vlc_decode_tables();

// A codeword's decoding entry.
constexpr uint16_t decoding_entry(const VlcCodeword& c) {
  return static_cast<uint16_t>(c.length | c.u_off << 3 | c.rho << 4 | c.e_1 << 8 | c.e_k << 12);
}
MALLAT_HD constexpr int decoded_length(uint16_t e) { return e & 7; }
MALLAT_HD constexpr int decoded_u_off(uint16_t e) { return (e >> 3) & 1; }
MALLAT_HD constexpr int decoded_rho(uint16_t e) { return (e >> 4) & 15; }
MALLAT_HD constexpr int decoded_e_1(uint16_t e) { return (e >> 8) & 15; }
MALLAT_HD constexpr int decoded_e_k(uint16_t e) { return e >> 12; }

// Encoding: indexed by c_q << 8 | rho << 4 | emb, where emb is the set of
// samples whose exponent equals U_q when u_q > 0 (else 0). Entry bits: 0-3
// e_k of the chosen codeword, 4-6 its length, 8-14 the codeword. Among the
// codewords valid for emb (u_off = 1, emb & e_k == e_1) the one with the
// most bits in e_k is chosen (the last of equals in table order, as OpenJPH
// does, so both encoders write the same bytes): each sample in e_k saves one
// MagSgn bit.
struct VlcEncodeTables {
  std::array<uint16_t, 8 * 256> initial_row;
  std::array<uint16_t, 8 * 256> other_rows;
};
const VlcEncodeTables& vlc_encode_tables();

// The tables where the coder runs, for the code both sides share
// (entropy/ht/shared_*.h): the host's from host_vlc_tables(), the device's
// copies of the same (entropy/cuda/ht/).
struct SharedVlcTables {
  const uint16_t* decode_initial = nullptr;
  const uint16_t* decode_other = nullptr;
  const uint16_t* encode_initial = nullptr;
  const uint16_t* encode_other = nullptr;
};
SharedVlcTables host_vlc_tables();

MALLAT_HD inline int encoded_e_k(uint16_t e) { return e & 15; }
MALLAT_HD inline int encoded_length(uint16_t e) { return (e >> 4) & 7; }
MALLAT_HD inline uint32_t encoded_bits(uint16_t e) { return e >> 8; }

// A quad's samples in the order of rho's bits (15444-15 Annex C): 0 top
// left, 1 bottom left, 2 top right, 3 bottom right.
//
// Quad context c_q in the initial quad row: from the quad to the left, bit
// 0 its left column (either sample), bit 1 its top right, bit 2 its bottom
// right sample.
MALLAT_HD constexpr int initial_row_context(int rho_left) {
  return ((rho_left | rho_left >> 1) & 1) | ((rho_left >> 1) & 6);
}

// In the other rows: bit 0 the samples above-left (the bottom right of the
// quad above-left) and above the top-left one (bottom left of the quad
// above); bit 1 the two to the left (the right column of the quad to the
// left); bit 2 the one above the top-right sample (bottom right of the quad
// above) and the one above-right of it (bottom left of the quad above-right).
MALLAT_HD constexpr int other_row_context(int rho_left, int rho_above_left, int rho_above, int rho_above_right) {
  const int nw_n = ((rho_above_left >> 3) | (rho_above >> 1)) & 1;
  const int w_sw = ((rho_left >> 2) | (rho_left >> 3)) & 1;
  const int ne_nf = ((rho_above >> 3) | (rho_above_right >> 1)) & 1;
  return nw_n | w_sw << 1 | ne_nf << 2;
}

// For a whole row of quads at once (no serial dependence: the compiler
// vectorises it): the part of each quad's other_row_context that the row
// above gives (bits 0 and 2). `above` has a zero entry on each side.
inline void contexts_from_above(const uint8_t* above, int64_t quads_wide, uint8_t* out) {
  for (int64_t q = 0; q < quads_wide; ++q) {
    out[q] = static_cast<uint8_t>(other_row_context(0, above[q - 1], above[q], above[q + 1]));
  }
}

}  // namespace mallat::entropy::ht

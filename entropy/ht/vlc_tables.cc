#include "entropy/ht/vlc_tables.h"

#include <bit>
#include <span>

namespace mallat::entropy::ht {
namespace {

#include "entropy/ht/vlc_codewords.inc"

// Every 7-bit window that starts with a codeword decodes to it.
void fill_decode(std::span<const VlcCodeword> codewords, std::array<uint16_t, 8 * 128>& table) {
  table.fill(0);
  for (const VlcCodeword& c : codewords) {
    const uint16_t entry = decoding_entry(c);
    for (int rest = 0; rest < 128 >> c.length; ++rest) table[c.c_q << 7 | rest << c.length | c.bits] = entry;
  }
}

void fill_encode(std::span<const VlcCodeword> codewords, std::array<uint16_t, 8 * 256>& table) {
  table.fill(0);
  for (int c_q = 0; c_q < 8; ++c_q) {
    for (int rho = 0; rho < 16; ++rho) {
      for (int emb = 0; emb < 16; ++emb) {
        // emb is a subset of rho; an all-zero quad in context 0 is a MEL
        // event, not a codeword.
        if ((emb & rho) != emb || (rho == 0 && c_q == 0)) continue;
        const VlcCodeword* best = nullptr;
        int best_count = -1;
        for (const VlcCodeword& c : codewords) {
          if (c.c_q != c_q || c.rho != rho || c.u_off != (emb != 0 ? 1 : 0)) continue;
          if (emb == 0) {
            best = &c;
            break;
          }
          if ((emb & c.e_k) != c.e_1) continue;
          const int count = std::popcount(static_cast<unsigned>(c.e_k));
          if (count >= best_count) {
            best = &c;
            best_count = count;
          }
        }
        if (best == nullptr) continue;  // the tables cover every case; kept for safety
        table[c_q << 8 | rho << 4 | emb] = static_cast<uint16_t>(best->e_k | best->length << 4 | best->bits << 8);
      }
    }
  }
}

}  // namespace

const VlcDecodeTables& vlc_decode_tables() {
  static const VlcDecodeTables tables = [] {
    VlcDecodeTables t;
    fill_decode(kInitialRowCodewords, t.initial_row);
    fill_decode(kOtherRowCodewords, t.other_rows);
    return t;
  }();
  return tables;
}

const VlcEncodeTables& vlc_encode_tables() {
  static const VlcEncodeTables tables = [] {
    VlcEncodeTables t;
    fill_encode(kInitialRowCodewords, t.initial_row);
    fill_encode(kOtherRowCodewords, t.other_rows);
    return t;
  }();
  return tables;
}

SharedVlcTables host_vlc_tables() {
  const VlcDecodeTables& d = vlc_decode_tables();
  const VlcEncodeTables& e = vlc_encode_tables();
  return {d.initial_row.data(), d.other_rows.data(), e.initial_row.data(), e.other_rows.data()};
}

}  // namespace mallat::entropy::ht

// What the HT cleanup pass carries from one row of quads to the next
// (15444-15 Annex C), for its encoder and decoder alike: the significance
// pattern rho of each quad (for the contexts c_q) and the exponents of the
// row's bottom samples (for kappa). Internal to the HT coder.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/host_device.h"
#include "entropy/ht/vlc_tables.h"

namespace mallat::entropy::ht {

// kappa_q (C.3.3): 1, or for a quad with two or more significant samples
// below the initial row, the largest exponent among the four samples above
// its own and its neighbours' columns (e0..e3), less 1. The initial row's
// exponents above are all 0, so its kappa is 1 without a test of its own.
MALLAT_HD inline int kappa_of(int rho, int e0, int e1, int e2, int e3) {
  if ((rho & (rho - 1)) == 0) return 1;  // at most one sample
  const int a = e0 > e1 ? e0 : e1, b = e2 > e3 ? e2 : e3;
  const int largest = a > b ? a : b;
  return largest > 2 ? largest - 1 : 1;
}

class QuadRows {
 public:
  // The widest block, 1024 samples (A.6.1), in quads.
  static constexpr int kMaxQuadsWide = 512;

  // A block `quads_wide` quads wide (at most kMaxQuadsWide), before its
  // initial row.
  MALLAT_HD void reset(int64_t quads_wide) {
    // A zero border on each side.
    for (int64_t i = 0; i < quads_wide + 2; ++i) rho_[0][i] = rho_[1][i] = 0;
    for (int64_t i = 0; i < 2 * quads_wide + 4; ++i) e_[0][i] = e_[1][i] = 0;
    row_ = 0;
    initial_ = true;
  }
  MALLAT_HD bool initial() const { return initial_; }

  // The row above's patterns (quad q at index q + 1) and bottom samples'
  // exponents (column x at index x + 1), each with a zero border, which the
  // coders walk in sliding windows (initial_row_context,
  // other_row_context and kappa_of give c_q and kappa_q from them).
  MALLAT_HD const uint8_t* rho_above() const { return rho_[row_ ^ 1]; }
  MALLAT_HD const uint8_t* e_above() const { return e_[row_ ^ 1]; }

  // Quad q's pattern and its bottom samples' exponents.
  MALLAT_HD void set(int q, int rho, int e_bottom_left, int e_bottom_right) {
    rho_[row_][q + 1] = static_cast<uint8_t>(rho);
    e_[row_][2 * q + 1] = static_cast<uint8_t>(e_bottom_left);
    e_[row_][2 * q + 2] = static_cast<uint8_t>(e_bottom_right);
  }

  MALLAT_HD void next_row() {
    row_ ^= 1;
    initial_ = false;
  }

 private:
  // Two rows' worth each, the current one at index row_; a pattern is at
  // most 15 and an exponent at most 32.
  uint8_t rho_[2][kMaxQuadsWide + 2];
  uint8_t e_[2][2 * kMaxQuadsWide + 4];
  int row_ = 0;
  bool initial_ = true;
};

// The same carried state as byte arrays that the fast coders index
// directly (entropy/ht/cpu/cleanup_encoder_kernel.h, entropy/ht/cpu/cleanup_decoder_kernel.h): rho of each
// quad (index q + 1), the bottom samples' exponents (index 2 q + 1 and
// 2 q + 2), a zero border on each side; and per quad c_q's bits from the
// row above (contexts_from_above).
struct QuadRowArrays {
  std::vector<uint8_t> rho_above, rho_row, e_above, e_row, context_above;
  void reset(int64_t quads_wide) {
    rho_above.assign(static_cast<size_t>(quads_wide + 2), 0);
    rho_row.assign(rho_above.size(), 0);
    e_above.assign(static_cast<size_t>(2 * quads_wide + 4), 0);
    e_row.assign(e_above.size(), 0);
    context_above.resize(static_cast<size_t>(quads_wide));
  }
  void next_row() {
    std::swap(rho_above, rho_row);
    std::swap(e_above, e_row);
  }
};

}  // namespace mallat::entropy::ht

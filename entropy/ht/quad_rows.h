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

  // c_q of quad q of the current row, whose quads left of q are set.
  MALLAT_HD int context(int64_t q) const {
    const uint8_t* row = rho_[row_];
    const uint8_t* above = rho_[row_ ^ 1];
    return initial_ ? initial_row_context(row[q]) : other_row_context(row[q], above[q], above[q + 1], above[q + 2]);
  }

  // kappa_q: 1, or for a quad with two or more significant samples below
  // the initial row, the largest exponent among the four samples above its
  // own and its neighbours' columns, less 1.
  MALLAT_HD int kappa(int64_t q, int rho) const {
    // The initial row's exponents above are all 0 (reset), so its kappa is
    // 1 without a test of its own.
    if ((rho & (rho - 1)) == 0) return 1;  // at most one sample
    const uint8_t* above = e_[row_ ^ 1] + 2 * q;
    int largest = above[0];
    for (int i = 1; i < 4; ++i) largest = above[i] > largest ? above[i] : largest;
    return largest > 2 ? largest - 1 : 1;
  }

  // Quad q's pattern and its bottom samples' exponents.
  MALLAT_HD void set(int64_t q, int rho, int e_bottom_left, int e_bottom_right) {
    rho_[row_][q + 1] = static_cast<uint8_t>(rho);
    e_[row_][2 * q + 1] = static_cast<uint8_t>(e_bottom_left);
    e_[row_][2 * q + 2] = static_cast<uint8_t>(e_bottom_right);
  }
  MALLAT_HD void set_rho(int64_t q, int rho) { rho_[row_][q + 1] = static_cast<uint8_t>(rho); }

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

// What the HT cleanup pass carries from one row of quads to the next
// (15444-15 Annex C), for its encoder and decoder alike: the significance
// pattern rho of each quad (for the contexts c_q) and the exponents of the
// row's bottom samples (for kappa). Internal to the HT coder.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "entropy/ht/vlc_tables.h"

namespace mallat::entropy::ht {

class QuadRows {
 public:
  // A block `quads_wide` quads wide, before its initial row.
  void reset(int64_t quads_wide) {
    // A zero border on each side.
    rho_above_.assign(static_cast<size_t>(quads_wide + 2), 0);
    rho_row_.assign(rho_above_.size(), 0);
    e_above_.assign(static_cast<size_t>(2 * quads_wide + 4), 0);
    e_row_.assign(e_above_.size(), 0);
    initial_ = true;
  }
  bool initial() const { return initial_; }

  // c_q of quad q of the current row, whose quads left of q are set.
  int context(int64_t q) const {
    const auto i = static_cast<size_t>(q);
    return initial_ ? initial_row_context(rho_row_[i])
                    : other_row_context(rho_row_[i], rho_above_[i], rho_above_[i + 1], rho_above_[i + 2]);
  }

  // kappa_q: 1, or for a quad with two or more significant samples below
  // the initial row, the largest exponent among the four samples above its
  // own and its neighbours' columns, less 1.
  int kappa(int64_t q, int rho) const {
    // The initial row's exponents above are all 0 (reset), so its kappa is
    // 1 without a test of its own.
    const int* above = &e_above_[static_cast<size_t>(2 * q)];
    const int from_above = std::max(1, std::max(std::max(above[0], above[1]), std::max(above[2], above[3])) - 1);
    return (rho & (rho - 1)) == 0 ? 1 : from_above;  // at most one sample: 1
  }

  // Quad q's pattern and its bottom samples' exponents.
  void set(int64_t q, int rho, int e_bottom_left, int e_bottom_right) {
    rho_row_[static_cast<size_t>(q + 1)] = rho;
    e_row_[static_cast<size_t>(2 * q + 1)] = e_bottom_left;
    e_row_[static_cast<size_t>(2 * q + 2)] = e_bottom_right;
  }
  void set_rho(int64_t q, int rho) { rho_row_[static_cast<size_t>(q + 1)] = rho; }

  void next_row() {
    std::swap(rho_above_, rho_row_);
    std::swap(e_above_, e_row_);
    initial_ = false;
  }

 private:
  std::vector<int> rho_above_, rho_row_, e_above_, e_row_;
  bool initial_ = true;
};

// The same carried state as byte arrays that the fast coders index
// directly (entropy/ht/cleanup_encoder.cc, entropy/ht/cleanup_decoder.cc): rho of each
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

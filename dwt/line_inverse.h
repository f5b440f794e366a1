// The inverse DWT of Annex F line by line: a tile-component's rows come out
// top to bottom while only a few rows per level are held. Each level keeps a
// ring of rows on which the vertical lifting steps (F.3.8) run as a
// wavefront (dwt/cpu/wavefront.h's order), and pulls its input rows as it
// needs them: low-pass rows from the level below (its LL) and the HL band,
// high-pass rows from the LH and HH bands, each row taken through the
// horizontal synthesis (HOR_SR, F.3.4) as it arrives.
//
// The results are the CPU backend's bit for bit, 5/3 and 9/7: each sample
// goes through the same float operations in the same order (rows first, the
// CPU kernels' own row function; then the columns' steps, the same step
// functors, built per instruction set as dwt/cpu/ring_sweep.h says), which
// tests/dwt/line_inverse_test.cc checks on many shapes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "dwt/cpu/cpu_backend.h"
#include "dwt/dwt.h"
#include "dwt/geometry.h"

namespace mallat::dwt {

// Row `row` (counted from the band's first row) of subband `band` of
// decomposition level nb (1 = finest; Band::kLL only at the coarsest level,
// nb = levels, or nb = 0 when levels = 0): its B-15 width of samples, which
// the transform overwrites (the horizontal lifting runs where the row lies,
// with no copy), valid until the next call. It is never called for an empty
// band. Each band's rows are asked for in order, each once.
template <typename T>
using BandRowSource = std::function<T*(int nb, Band band, int64_t row)>;

template <typename T>
class LineInverse {
 public:
  // tc: the tile-component (or reduced resolution) rectangle on its grid;
  // levels: 0..32. T is int32_t for Wavelet::k53, float for Wavelet::k97.
  // isa: the CPU kernels' instruction set whose results to give (the CPU
  // backend's default is kBest). fused: each row's HOR_SR and the vertical
  // steps it completes run together a span of columns at a time where the
  // kernels have that (LineKernels::load_and_iterate), the same samples;
  // false keeps the two passes, the reference tests compare it with.
  LineInverse(const Rect& tc, int levels, BandRowSource<T> source, cpu::Isa isa = cpu::Isa::kBest,
              bool fused = true);
  ~LineInverse();
  LineInverse(const LineInverse&) = delete;
  LineInverse& operator=(const LineInverse&) = delete;

  int64_t width() const { return tc_.width(); }
  int64_t height() const { return tc_.height(); }
  int64_t rows_done() const { return rows_done_; }

  // The next row of the tile-component (tc.width() samples); valid until
  // the next call. At most height() calls.
  const T* next_row();

  struct Level;  // one level's ring of rows (line_inverse.cc)

 private:
  Rect tc_;
  int64_t rows_done_ = 0;
  BandRowSource<T> source_;
  std::vector<std::unique_ptr<Level>> levels_;  // [0]: the finest
};

extern template class LineInverse<int32_t>;
extern template class LineInverse<float>;

}  // namespace mallat::dwt

// Annex F's forward DWT (F.4, 2D_SD) of one tile-component, line by line:
// rows go in top to bottom and each level keeps only the few rows its
// vertical lifting needs at once (a ring of steps + 3 rows: 5 for the 5/3,
// 9 for the 9/7), lifts them as rows arrive (wavefront.h's schedule),
// transforms each row horizontally once its vertical steps are done (F.4.2:
// VER_SD before HOR_SD, as the whole-plane backends), and hands out the
// rows of the HL, LH and HH subbands as they are finished; LL rows feed the
// next level, the last level's LL rows are handed out too. Memory is a few
// rows per level, whatever the height.
//
// The result equals the CPU backend's (and so the reference's for the 5/3)
// bit for bit, 9/7 included: each sample sees the same float operations in
// the same order (tests/dwt/line_forward_test.cc).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "common/status.h"
#include "dwt/cpu/cpu_backend.h"
#include "dwt/geometry.h"

namespace mallat::dwt {

// A finished row of subband `band` of level nb (1 = finest; the LL band
// comes with nb = levels, or 0 without levels): row y of the band counted
// from its top (B-15), `width` samples.
template <typename T>
using BandRowSink = std::function<void(int nb, Band band, int64_t y, const T* row, int64_t width)>;

// Where the sink would have row y of subband `band` of level nb written
// (`width` samples), or null to take it from the transform's own line: the
// row is then written there and handed to the sink at that address, so that
// the sink need not copy it. (With no levels the LL rows are the rows pushed.)
template <typename T>
using BandRowPlace = std::function<T*(int nb, Band band, int64_t y, int64_t width)>;

// T = int32_t: the reversible 5/3; T = float: the irreversible 9/7.
template <typename T>
class LineForward {
 public:
  // `tc`: the tile-component's rectangle on its grid (its x0, y0 decide
  // which samples are low-pass, F.3); levels 0..32. `place`, where given,
  // says where the band rows go (BandRowPlace).
  static Result<std::unique_ptr<LineForward>> make(const Rect& tc, int levels, BandRowSink<T> sink,
                                                    cpu::Isa isa = cpu::Isa::kBest, BandRowPlace<T> place = {});
  ~LineForward();

  // The next row of the tile-component, tc.width() samples. Every row of
  // every band has been handed to the sink when the last row is in.
  void push(const T* row);
  // The same, lifting the row where it lies: the transform reads and
  // overwrites it until keep_rows() (or its last row); the caller must not
  // change it before then.
  void push_in_place(T* row);
  // Copies the rows given to push_in_place that the transform still needs
  // into its own, so that the caller may reuse them.
  void keep_rows();
  int64_t rows_in() const { return rows_in_; }

  struct Level;  // line_forward.cc

 private:
  LineForward() = default;
  // Where level l's (0-based) low-pass rows go: level l + 1, or out as LL.
  void low_row(size_t l, int64_t y, const T* row, int64_t width);
  void finish_row(size_t l, int64_t r);
  T* place(int nb, Band band, int64_t y, int64_t width, T* own);
  void run_ready(size_t l);

  Rect tc_;
  int levels_ = 0;
  BandRowSink<T> sink_;
  BandRowPlace<T> place_;
  std::vector<std::unique_ptr<Level>> level_;
  int64_t rows_in_ = 0;
};

}  // namespace mallat::dwt

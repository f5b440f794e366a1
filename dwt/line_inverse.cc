// LineInverse: per level a ring of rows swept by the vertical lifting steps
// in wavefront.h's order (F.3.2 2D_SR: HOR_SR on each row as it arrives,
// then VER_SR), so that each output row is final a fixed number of sweep
// iterations after it was loaded (dwt/cpu/ring_sweep.h).
#include "dwt/line_inverse.h"

#include <algorithm>
#include <cstring>

#include "dwt/cpu/line_kernels.h"

namespace mallat::dwt {
namespace {

const cpu::LineKernels<int32_t>& line_kernels(cpu::Isa isa, int32_t*) { return cpu::line_kernels_53(isa); }
const cpu::LineKernels<float>& line_kernels(cpu::Isa isa, float*) { return cpu::line_kernels_97(isa); }

bool is_high(int64_t r, bool odd_first) { return ((r & 1) != 0) != odd_first; }

// How a line of n samples at coordinate i0 splits into low-pass (even
// coordinates) and high-pass samples (lifting.h's Split).
struct Halves {
  int64_t low = 0, high = 0;
  bool odd_first = false;
  Halves(int64_t n, int64_t i0) : odd_first((i0 & 1) != 0) {
    low = odd_first ? n / 2 : (n + 1) / 2;
    high = n - low;
  }
};

}  // namespace

template <typename T>
struct LineInverse<T>::Level {
  Rect r;      // the resolution this level synthesises (B-14)
  int nb = 0;  // its decomposition level (1 = finest)
  const cpu::LineKernels<T>& k;
  Halves hs, vs;
  int64_t slots = 0;
  Level* coarser = nullptr;  // its LL's rows; null at the coarsest level
  std::vector<T> ring, scratch;
  int64_t next_iteration = 0, next_out = 0;
  bool fused = true;  // LineInverse's `fused`

  Level(const Rect& rect, int level, cpu::Isa isa, bool fuse)
      : r(rect), nb(level), k(line_kernels(isa, static_cast<T*>(nullptr))), hs(rect.width(), rect.x0),
        vs(rect.height(), rect.y0), fused(fuse) {
    slots = k.steps + 3;  // rows i - steps - 1 .. i are live in iteration i
    ring.resize(static_cast<size_t>(std::max<int64_t>(0, slots * r.width())));
    scratch.resize(static_cast<size_t>(std::max<int64_t>(0, r.width())));
  }

  T* slot(int64_t i) { return ring.data() + (i % slots) * r.width(); }

  // Row i of the level in natural order, as its two halves where their
  // sources hold them (either may be null where the row has none of that
  // parity), and its vertical scaling, which the ring's iterations leave
  // out. The LL half from the coarser level is copied first where HOR_SR
  // writes its halves: that level's ring still reads the row.
  struct RowHalves {
    T* low = nullptr;
    T* high = nullptr;
    T factor = T{1};
  };
  RowHalves halves(int64_t i, const BandRowSource<T>& source) {
    RowHalves h;
    const int64_t row = i / 2;  // its index within its vertical band, either parity
    const bool high = is_high(i, vs.odd_first);
    if (hs.low > 0) {
      if (high) {
        h.low = source(nb, Band::kLH, row);
      } else if (coarser && k.apart_reads_only) {
        h.low = const_cast<T*>(coarser->next(source));
      } else if (coarser) {
        h.low = scratch.data();
        std::memcpy(h.low, coarser->next(source), static_cast<size_t>(hs.low) * sizeof(T));
      } else {
        h.low = source(nb, Band::kLL, row);
      }
    }
    if (hs.high > 0) h.high = source(nb, high ? Band::kHH : Band::kHL, row);
    h.factor = r.height() == 1 ? T{1} : (high ? k.high_scale : k.low_scale);
    return h;
  }

  // HOR_SR of row i into the ring.
  void load(int64_t i, const BandRowSource<T>& source) {
    if (r.width() <= 0) return;
    const RowHalves h = halves(i, source);
    k.inverse_row_apart(h.low, h.high, slot(i), r.width(), r.x0, h.factor);
  }

  // Sweep iteration i with its load (step 0) where i < h: both in one pass
  // over the row's columns where the kernels have it (load_and_iterate),
  // the same samples as load then ring_iteration.
  void iterate(int64_t i, const BandRowSource<T>& source) {
    const int64_t w = r.width();
    if (i < r.height() && fused && k.load_and_iterate != nullptr && w >= 2) {
      const RowHalves h = halves(i, source);
      k.load_and_iterate(h.low, h.high, ring.data(), w, r.x0, r.height(), slots, vs.odd_first, i, h.factor);
      return;
    }
    if (i < r.height()) load(i, source);
    k.ring_iteration(ring.data(), w, r.height(), slots, vs.odd_first, i);
  }

  const T* next(const BandRowSource<T>& source) {
    const int64_t out = next_out++;
    const int64_t h = r.height();
    if (h == 1) {  // F.3.7: a lone row at an odd coordinate is halved
      load(0, source);
      k.lone_row(slot(0), r.width(), r.y0);
      return slot(0);
    }
    for (; next_iteration <= out + k.steps; ++next_iteration) iterate(next_iteration, source);
    return slot(out);
  }
};

template <typename T>
LineInverse<T>::LineInverse(const Rect& tc, int levels, BandRowSource<T> source, cpu::Isa isa, bool fused)
    : tc_(tc), source_(std::move(source)) {
  // Level l synthesises resolution_rect(tc, l - 1, 0), i.e. ceil(tc / 2^(l-1)).
  for (int l = 1; l <= levels; ++l)
    levels_.push_back(std::make_unique<Level>(resolution_rect(tc, l - 1, 0), l, isa, fused));
  for (size_t l = 0; l + 1 < levels_.size(); ++l) levels_[l]->coarser = levels_[l + 1].get();
}

template <typename T>
LineInverse<T>::~LineInverse() = default;

template <typename T>
const T* LineInverse<T>::next_row() {
  const int64_t row = rows_done_++;
  if (!levels_.empty()) return levels_[0]->next(source_);
  // No transform: the LL band's row as its source holds it.
  return tc_.width() > 0 ? source_(0, Band::kLL, row) : nullptr;
}

template class LineInverse<int32_t>;
template class LineInverse<float>;

}  // namespace mallat::dwt

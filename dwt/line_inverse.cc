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
  std::vector<T> gathered;  // produce: the band rows of a batch, copied
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
      k.load_and_iterate(h.low, h.high, ring.data(), w, r.x0, r.height(), slots, vs.odd_first, i, h.factor, 0, w);
      return;
    }
    if (i < r.height()) load(i, source);
    k.ring_iteration(ring.data(), w, r.height(), slots, vs.odd_first, i, 0, w);
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

  // Room in the ring for rows up to `last` beside rows `keep` on and those
  // the sweep still reads (iteration i reads rows i - steps - 1 .. i), the
  // rows it holds kept.
  void reserve(int64_t last, int64_t keep) {
    const int64_t w = r.width();
    const int64_t oldest = std::min(keep, std::max<int64_t>(0, next_iteration - k.steps - 1));
    const int64_t need = last + 1 - oldest;
    if (need <= slots) return;
    std::vector<T> grown(static_cast<size_t>(std::max<int64_t>(0, need * w)));
    const int64_t loaded = std::min(next_iteration, r.height());
    for (int64_t row = std::max(oldest, loaded - slots); row < loaded; ++row)
      std::memcpy(grown.data() + (row % need) * w, slot(row), static_cast<size_t>(w) * sizeof(T));
    ring = std::move(grown);
    slots = need;
  }

  // The halves of rows [a, b) (halves()'s), the band rows copied into
  // `gathered` (a source's row lasts until its next call); the coarser
  // level's rows, made first all at once, where its ring holds them where
  // HOR_SR only reads them, else copied too.
  std::vector<RowHalves> gather(int64_t a, int64_t b, const BandRowSource<T>& source, const LineParts& split) {
    const int64_t w = r.width();
    int64_t coarse = 0;  // the coarser level's next row
    if (coarser && hs.low > 0) {
      int64_t lows = 0;
      for (int64_t i = a; i < b; ++i) lows += is_high(i, vs.odd_first) ? 0 : 1;
      if (lows > 0) coarse = coarser->produce(lows, coarser->next_out, source, split);
    }
    std::vector<RowHalves> rows(static_cast<size_t>(std::max<int64_t>(0, b - a)));
    if (gathered.size() < rows.size() * static_cast<size_t>(w)) gathered.resize(rows.size() * static_cast<size_t>(w));
    for (int64_t i = a; i < b; ++i) {
      RowHalves& x = rows[static_cast<size_t>(i - a)];
      T* copy = gathered.data() + (i - a) * w;
      const int64_t row = i / 2;
      const bool high = is_high(i, vs.odd_first);
      auto copied = [&](const T* from, T* to, int64_t n) {
        std::memcpy(to, from, static_cast<size_t>(n) * sizeof(T));
        return to;
      };
      if (hs.low > 0) {
        if (high) x.low = copied(source(nb, Band::kLH, row), copy, hs.low);
        else if (!coarser) x.low = copied(source(nb, Band::kLL, row), copy, hs.low);
        else if (k.apart_reads_only) x.low = coarser->slot(coarse++);
        else x.low = copied(coarser->slot(coarse++), copy, hs.low);
      }
      if (hs.high > 0) x.high = copied(source(nb, high ? Band::kHH : Band::kHL, row), copy + hs.low, hs.high);
      x.factor = high ? k.high_scale : k.low_scale;
    }
    return rows;
  }

  // The next m rows (at most those left) at once, left in the ring with
  // the rows from `keep` on until the next call; returns the first's index.
  // The coarser level's rows first, as many at once; then every band row
  // of the sweep's iterations copied from its source in order (a source's
  // row lasts until its next call); then the iterations split by ranges of
  // columns, each row's HOR_SR with them where the kernels fuse the two
  // (load_and_iterate), else before them split by rows: next()'s
  // operations on every sample (the ring holds every row of the batch, so
  // loading a row early overwrites none that an iteration still reads).
  int64_t produce(int64_t m, int64_t keep, const BandRowSource<T>& source, const LineParts& split) {
    const int64_t out = next_out;
    const int64_t w = r.width(), h = r.height();
    m = std::min(m, h - out);
    if (m <= 0) return out;
    const int64_t last = out + m - 1 + k.steps;  // the last iteration the rows need
    reserve(last, keep);
    if (h == 1 || w < 2) {
      for (int64_t t = 0; t < m; ++t) next(source);
      return out;
    }
    next_out += m;
    const int64_t a = next_iteration, b = std::min(last + 1, h);  // the rows to load
    const std::vector<RowHalves> rows = gather(a, b, source, split);
    const bool together = fused && k.load_and_iterate != nullptr;
    const int64_t least = std::max<int64_t>(1, split.least_samples);
    if (!together) {
      const int64_t parts = std::clamp<int64_t>((b - a) * w / least, 1, std::min<int64_t>(split.parts, b - a));
      run_parts(split, parts, [&](int64_t j) {
        for (int64_t i = a + (b - a) * j / parts; i < a + (b - a) * (j + 1) / parts; ++i) {
          const RowHalves& x = rows[static_cast<size_t>(i - a)];
          k.inverse_row_apart(x.low, x.high, slot(i), w, r.x0, x.factor);
        }
      });
    }
    // Ranges of whole spans of load_and_iterate, each of split.least_samples
    // or more.
    const int64_t spans = (w + k.span - 1) / k.span;
    const int64_t parts = std::clamp<int64_t>(std::min(spans, (last + 1 - a) * w / least), 1, std::max(split.parts, 1));
    run_parts(split, parts, [&](int64_t j) {
      const int64_t c0 = std::min(w, spans * j / parts * k.span);
      const int64_t c1 = std::min(w, spans * (j + 1) / parts * k.span);
      for (int64_t i = a; i <= last; ++i) {
        if (together && i < h) {
          const RowHalves& x = rows[static_cast<size_t>(i - a)];
          k.load_and_iterate(x.low, x.high, ring.data(), w, r.x0, h, slots, vs.odd_first, i, x.factor, c0, c1);
        } else {
          k.ring_iteration(ring.data(), w, h, slots, vs.odd_first, i, c0, c1);
        }
      }
    });
    next_iteration = last + 1;
    return out;
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
  if (!levels_.empty()) {
    Level& finest = *levels_[0];
    // A row next_rows made ahead waits in the ring.
    return finest.next_out > row ? finest.slot(row) : finest.next(source_);
  }
  // No transform: the LL band's row as its source holds it.
  return tc_.width() > 0 ? source_(0, Band::kLL, row) : nullptr;
}

template <typename T>
void LineInverse<T>::next_rows(int64_t n, T* out, int64_t stride, const LineParts& split) {
  n = std::min(n, height() - rows_done_);
  const auto bytes = static_cast<size_t>(std::max<int64_t>(0, width())) * sizeof(T);
  if (n <= 0 || bytes == 0) return;
  if (!levels_.empty()) {
    Level& finest = *levels_[0];
    const int64_t missing = rows_done_ + n - finest.next_out;
    if (missing > 0) finest.produce(std::max(missing, split.rows), rows_done_, source_, split);
  }
  for (int64_t y = 0; y < n; ++y) std::memcpy(out + y * stride, next_row(), bytes);
}

template class LineInverse<int32_t>;
template class LineInverse<float>;

}  // namespace mallat::dwt

#include "dwt/line_forward.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "dwt/cpu/kernels.h"
#include "dwt/cpu/forward_ring_kernels.h"

namespace mallat::dwt {
namespace cpu {

const RingKernels<int32_t>& ring_kernels_53(Isa isa) {
#if defined(MALLAT_DWT_AVX2)
  if (resolve_isa(isa) == Isa::kAvx2) return avx2::ring_kernels_53();
#endif
  (void)isa;
  return generic::ring_kernels_53();
}

const RingKernels<float>& ring_kernels_97(Isa isa) {
#if defined(MALLAT_DWT_AVX2)
  if (resolve_isa(isa) == Isa::kAvx2) return avx2::ring_kernels_97();
#endif
  (void)isa;
  return generic::ring_kernels_97();
}

}  // namespace cpu

namespace {

template <typename T>
struct KernelsOf;
template <>
struct KernelsOf<int32_t> {
  static const cpu::Kernels<int32_t>& rows(cpu::Isa isa) { return cpu::kernels_53(isa); }
  static const cpu::RingKernels<int32_t>& ring(cpu::Isa isa) { return cpu::ring_kernels_53(isa); }
};
template <>
struct KernelsOf<float> {
  static const cpu::Kernels<float>& rows(cpu::Isa isa) { return cpu::kernels_97(isa); }
  static const cpu::RingKernels<float>& ring(cpu::Isa isa) { return cpu::ring_kernels_97(isa); }
};

// Low-pass samples of a line of n at coordinate i0: those at even
// coordinates (F.3).
int64_t low_count(int64_t n, int64_t i0) { return (i0 & 1) != 0 ? n / 2 : (n + 1) / 2; }

}  // namespace

// One decomposition level: the resolution it transforms (B-14: ceil(tc /
// 2^(nb-1))), its rows in a ring, a line for the horizontal pass.
template <typename T>
struct LineForward<T>::Level {
  int nb = 1;
  Rect r;
  int64_t w = 0, h = 0;
  bool odd_first = false;  // its first row is high-pass (r.y0 odd)
  int64_t slots = 0;
  std::vector<T> ring, line;
  // Where row k lies, in slot k % slots: the ring's own row there, or the
  // caller's row given to push_in_place.
  std::vector<T*> slot;
  int64_t in = 0;              // rows received
  int64_t next_iteration = 0;  // of the vertical sweep
  const cpu::Kernels<T>* rows = nullptr;
  const cpu::RingKernels<T>* ring_kernels = nullptr;

  T* own(int64_t k) { return ring.data() + k * w; }
  T* row(int64_t k) { return slot[static_cast<size_t>(k % slots)]; }
};

template <typename T>
Result<std::unique_ptr<LineForward<T>>> LineForward<T>::make(const Rect& tc, int levels, BandRowSink<T> sink,
                                                             cpu::Isa isa, BandRowPlace<T> place) {
  if (levels < 0 || levels > 32)
    return invalid_argument("line DWT: " + std::to_string(levels) + " levels; 0..32 are allowed");
  if (tc.empty()) return invalid_argument("line DWT: an empty tile-component");
  std::unique_ptr<LineForward> f(new LineForward());
  f->tc_ = tc;
  f->levels_ = levels;
  f->sink_ = std::move(sink);
  f->place_ = std::move(place);
  for (int nb = 1; nb <= levels; ++nb) {
    const Rect r = resolution_rect(tc, nb - 1, 0);
    // As the backends: a level whose resolution is empty ends the
    // decomposition (its bands, and the later ones, are empty).
    if (r.empty()) break;
    auto level = std::make_unique<Level>();
    level->nb = nb;
    level->r = r;
    level->w = r.width();
    level->h = r.height();
    level->odd_first = (r.y0 & 1) != 0;
    level->rows = &KernelsOf<T>::rows(isa);
    level->ring_kernels = &KernelsOf<T>::ring(isa);
    level->slots = std::min<int64_t>(level->h, level->ring_kernels->steps + 3);
    level->ring.resize(static_cast<size_t>(level->slots * level->w));
    for (int64_t k = 0; k < level->slots; ++k) level->slot.push_back(level->own(k));
    level->line.resize(static_cast<size_t>(level->w));
    f->level_.push_back(std::move(level));
  }
  return f;
}

template <typename T>
LineForward<T>::~LineForward() = default;

template <typename T>
void LineForward<T>::push(const T* row) {
  const int64_t y = rows_in_++;
  if (level_.empty()) {
    // No level (or the first resolution empty): the row is the LL band.
    if (levels_ == 0) sink_(0, Band::kLL, y, row, tc_.width());
    return;
  }
  Level& level = *level_[0];
  T*& at = level.slot[static_cast<size_t>(level.in % level.slots)];
  at = level.own(level.in % level.slots);
  std::memcpy(at, row, static_cast<size_t>(level.w) * sizeof(T));
  ++level.in;
  run_ready(0);
}

template <typename T>
void LineForward<T>::push_in_place(T* row) {
  if (level_.empty()) return push(row);
  ++rows_in_;
  Level& level = *level_[0];
  level.slot[static_cast<size_t>(level.in % level.slots)] = row;
  ++level.in;
  run_ready(0);
}

template <typename T>
void LineForward<T>::keep_rows() {
  if (level_.empty()) return;
  Level& level = *level_[0];
  for (int64_t k = 0; k < level.slots; ++k) {
    T*& at = level.slot[static_cast<size_t>(k)];
    if (at == level.own(k)) continue;
    std::memcpy(level.own(k), at, static_cast<size_t>(level.w) * sizeof(T));
    at = level.own(k);
  }
}

// Runs every sweep iteration whose rows are in: iteration i reads rows up
// to i + 1 (wavefront.h), the last ones mirrored rows already there.
template <typename T>
void LineForward<T>::run_ready(size_t l) {
  Level& level = *level_[l];
  if (level.h == 1) {
    // F.4.7: a lone row at an odd coordinate is high-pass, doubled.
    if (level.in == 1 && level.next_iteration == 0) {
      if (level.odd_first)
        for (int64_t x = 0; x < level.w; ++x) level.row(0)[x] = static_cast<T>(level.row(0)[x] * 2);
      level.next_iteration = 1;
      finish_row(l, 0);
    }
    return;
  }
  const int steps = level.ring_kernels->steps;
  const int64_t last = level.h + steps - 2;
  while (level.next_iteration <= last && (level.next_iteration + 1 < level.in || level.in == level.h)) {
    const int64_t i = level.next_iteration++;
    level.ring_kernels->forward_iteration(level.slot.data(), level.slots, level.w, level.h, level.odd_first, i);
    const int64_t r = i - (steps - 1);
    if (r >= 0) finish_row(l, r);
  }
}

// Where band row y goes: the sink's place for it, or `own`.
template <typename T>
T* LineForward<T>::place(int nb, Band band, int64_t y, int64_t width, T* own) {
  T* at = place_ ? place_(nb, band, y, width) : nullptr;
  return at != nullptr ? at : own;
}

// Row r has had every vertical step: HOR_SD from the ring (which keeps the
// vertically lifted row: the 5/3's next rows' steps still read it) into
// where its halves go: its low-pass half is an LL row (the next level's
// ring) or an LH row, the other half an HL or HH row (the sink's place, or
// the line).
template <typename T>
void LineForward<T>::finish_row(size_t l, int64_t r) {
  Level& level = *level_[l];
  const int64_t sn = low_count(level.w, level.r.x0), dn = level.w - sn;
  const bool high = ((r & 1) != 0) != level.odd_first;
  const int64_t k = r / 2;
  T* low = level.line.data();
  T* hi = low + sn;
  if (high) {
    if (sn > 0) low = place(level.nb, Band::kLH, k, sn, low);
    if (dn > 0) hi = place(level.nb, Band::kHH, k, dn, hi);
  } else {
    if (dn > 0) hi = place(level.nb, Band::kHL, k, dn, hi);
    if (sn > 0 && level.nb == levels_) low = place(levels_, Band::kLL, k, sn, low);
    else if (sn > 0 && l + 1 < level_.size()) low = level_[l + 1]->row(level_[l + 1]->in);
  }
  // The row's vertical scaling, which the ring's iterations leave out.
  const cpu::RingKernels<T>& ring = *level.ring_kernels;
  const T factor = level.h == 1 ? T{1} : (high ? ring.high_scale : ring.low_scale);
  level.rows->forward_row_apart(level.row(r), low, hi, level.w, level.r.x0, factor);
  if (high) {
    if (sn > 0) sink_(level.nb, Band::kLH, k, low, sn);
    if (dn > 0) sink_(level.nb, Band::kHH, k, hi, dn);
    return;
  }
  if (dn > 0) sink_(level.nb, Band::kHL, k, hi, dn);
  if (sn > 0) low_row(l, k, low, sn);
}

template <typename T>
void LineForward<T>::low_row(size_t l, int64_t y, const T* row, int64_t width) {
  if (level_[l]->nb == levels_) {
    sink_(levels_, Band::kLL, y, row, width);
    return;
  }
  if (l + 1 >= level_.size()) return;  // the next resolution is empty
  Level& next = *level_[l + 1];
  // finish_row lifts the row into the next level's ring where it can.
  if (row != next.row(next.in)) std::memcpy(next.row(next.in), row, static_cast<size_t>(width) * sizeof(T));
  ++next.in;
  run_ready(l + 1);
}

template class LineForward<int32_t>;
template class LineForward<float>;

}  // namespace mallat::dwt

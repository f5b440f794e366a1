#include "codec/stages/region_dwt.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace mallat::codec {
namespace {

using dwt::Band;
using dwt::Rect;

Rect intersect(const Rect& a, const Rect& b) {
  return Rect{std::max(a.x0, b.x0), std::max(a.y0, b.y0), std::min(a.x1, b.x1), std::min(a.y1, b.y1)};
}

// Even positions 2k of [a, b): k in [ceil(a/2), ceil(b/2)); odd ones 2k+1:
// k in [floor(a/2), floor(b/2)) (F.3.2: the low-pass samples are the even
// ones of the absolute coordinate).
int64_t low_begin(int64_t a) { return dwt::ceil_div_pow2(a, 1); }
int64_t high_begin(int64_t a) { return dwt::floor_div_pow2(a, 1); }

// Copies w x h 4-byte samples (int32 or float alike) between views.
void copy_rect(PlaneView<const int32_t> src, int64_t sx, int64_t sy, PlaneView<int32_t> dst, int64_t dx, int64_t dy,
               int64_t w, int64_t h) {
  if (w <= 0 || h <= 0) return;
  for (int64_t y = 0; y < h; ++y)
    std::memcpy(dst.row(dy + y) + dx, src.row(sy + y) + sx, static_cast<size_t>(w) * sizeof(int32_t));
}

// A plane of rect r, holding the samples of `from` (rect f, which holds r).
TilePlane crop(const TilePlane& from, const Rect& r) {
  TilePlane out;
  out.rect = r;
  out.levels = 0;
  out.wavelet = from.wavelet;
  out.allocate();
  copy_rect(from.ints(), r.x0 - from.rect.x0, r.y0 - from.rect.y0, out.ints(), 0, 0, r.width(), r.height());
  return out;
}

}  // namespace

int synthesis_margin(dwt::Wavelet wavelet) { return wavelet == dwt::Wavelet::k53 ? 2 : 4; }

Rect PlaneRegion::band_window(int r, Band band) const {
  if (r == 0) return needed[0];
  const Rect& e = extended[static_cast<size_t>(r)];
  const bool high_x = band == Band::kHL || band == Band::kHH;
  const bool high_y = band == Band::kLH || band == Band::kHH;
  const int64_t x0 = high_x ? high_begin(e.x0) : low_begin(e.x0), x1 = high_x ? high_begin(e.x1) : low_begin(e.x1);
  const int64_t y0 = high_y ? high_begin(e.y0) : low_begin(e.y0), y1 = high_y ? high_begin(e.y1) : low_begin(e.y1);
  return Rect{x0, y0, x1, y1};
}

PlaneRegion plane_region(const Rect& plane_rect, int levels, dwt::Wavelet wavelet, const Rect& window) {
  PlaneRegion region;
  region.levels = levels;
  region.needed.resize(static_cast<size_t>(levels) + 1);
  region.extended.resize(static_cast<size_t>(levels) + 1);
  region.needed[static_cast<size_t>(levels)] = window;
  const int m = synthesis_margin(wavelet);
  for (int r = levels; r >= 1; --r) {
    const Rect& w = region.needed[static_cast<size_t>(r)];
    const Rect grown{w.x0 - m, w.y0 - m, w.x1 + m, w.y1 + m};
    const Rect e = intersect(grown, dwt::resolution_rect(plane_rect, levels, r));
    region.extended[static_cast<size_t>(r)] = e;
    // B-14: resolution r - 1 is ceil(resolution r / 2); its samples are the
    // low-pass (even) positions of resolution r.
    region.needed[static_cast<size_t>(r) - 1] = Rect{low_begin(e.x0), low_begin(e.y0), low_begin(e.x1), low_begin(e.y1)};
  }
  return region;
}

Status inverse_dwt_region(const PlaneRegion& region, dwt::Wavelet wavelet, const BandSource& bands,
                          dwt::Backend& dwt, TilePlane& out) {
  const int levels = region.levels;
  // Band window `window` of (r, band) to `at` in dst.
  const auto source = [&](int r, Band band, const Rect& window, PlaneView<int32_t> dst, const Rect& at) -> Status {
    if (window.empty()) return Status::Ok();
    const TilePlane& from = bands(r, band);
    if (from.storage == nullptr || intersect(from.rect, window) != window)
      return internal_error("region decode: resolution " + std::to_string(r) + " band " +
                            std::to_string(static_cast<int>(band)) + " lacks coefficients its window needs");
    copy_rect(from.ints(), window.x0 - from.rect.x0, window.y0 - from.rect.y0, dst, at.x0, at.y0, window.width(),
              window.height());
    return Status::Ok();
  };
  // Resolution 0: the LL band's window.
  TilePlane current;
  current.rect = region.needed[0];
  current.wavelet = wavelet;
  current.allocate();
  MALLAT_RETURN_IF_ERROR(source(0, Band::kLL, region.needed[0], current.ints(), Rect{}));
  for (int r = 1; r <= levels; ++r) {
    const Rect& e = region.extended[static_cast<size_t>(r)];
    TilePlane work;
    work.rect = e;
    work.levels = 1;
    work.wavelet = wavelet;
    work.allocate();
    // E's packed one-level layout: its low part is needed[r - 1], which
    // `current` holds; the three high bands come from their buffers.
    copy_rect(current.ints(), 0, 0, work.ints(), 0, 0, current.width(), current.height());
    for (Band band : {Band::kHL, Band::kLH, Band::kHH})
      MALLAT_RETURN_IF_ERROR(
          source(r, band, region.band_window(r, band), work.ints(), dwt::packed_subband_rect(e, 1, 1, band)));
    dwt::PlaneJob job;
    job.wavelet = wavelet;
    job.direction = dwt::Direction::kInverse;
    job.levels = 1;
    job.x0 = e.x0;
    job.y0 = e.y0;
    if (wavelet == dwt::Wavelet::k53) {
      job.samples53 = work.ints();
    } else {
      job.samples97 = work.floats();
    }
    MALLAT_RETURN_IF_ERROR(dwt.run(job));
    const Rect& w = region.needed[static_cast<size_t>(r)];
    current = w == e ? std::move(work) : crop(work, w);
    current.levels = 0;
  }
  out = std::move(current);
  return Status::Ok();
}

}  // namespace mallat::codec

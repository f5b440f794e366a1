// codec/stages/region_dwt.h: the inverse DWT over a region's windows equals
// the crop of the whole inverse DWT, sample for sample, for the 5/3 and the
// 9/7, on the reference and CPU backends, at odd origins and sizes, windows
// at the edges and inside, one sample wide and whole; and the coefficients
// outside the band windows are never read.
#include "codec/stages/region_dwt.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace mallat::codec {
namespace {

using dwt::Rect;

TilePlane random_plane(const Rect& rect, int levels, dwt::Wavelet wavelet, uint32_t seed) {
  TilePlane plane;
  plane.rect = rect;
  plane.levels = levels;
  plane.wavelet = wavelet;
  plane.allocate();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> value(-300, 300);
  for (size_t i = 0; i < plane.count(); ++i) {
    if (wavelet == dwt::Wavelet::k53) {
      plane.ints().data[i] = value(rng);
    } else {
      plane.floats().data[i] = static_cast<float>(value(rng)) * 0.37f;
    }
  }
  return plane;
}

TilePlane copy_of(const TilePlane& p) {
  TilePlane out;
  out.rect = p.rect;
  out.levels = p.levels;
  out.wavelet = p.wavelet;
  out.allocate();
  std::memcpy(out.storage.get(), p.storage.get(), p.count() * 4);
  return out;
}

// Subband (nb, band) of a packed plane as a plane of its own (its rect in
// subband coordinates), every coefficient outside `window` overwritten
// with NaN (or, for the 5/3, a value far out of range), so that a read of
// one shows in the result.
TilePlane band_poisoned_outside(const TilePlane& packed, int nb, dwt::Band band, const Rect& window) {
  TilePlane out;
  out.rect = packed.levels == 0 ? packed.rect : dwt::subband_rect(packed.rect, nb, band);
  out.wavelet = packed.wavelet;
  out.allocate();
  const Rect place = dwt::packed_subband_rect(packed.rect, packed.levels, nb, band);
  for (int64_t y = out.rect.y0; y < out.rect.y1; ++y)
    for (int64_t x = out.rect.x0; x < out.rect.x1; ++x) {
      int32_t& v = out.ints().at(x - out.rect.x0, y - out.rect.y0);
      if (window.x0 <= x && x < window.x1 && window.y0 <= y && y < window.y1) {
        v = packed.ints().at(place.x0 + x - out.rect.x0, place.y0 + y - out.rect.y0);
      } else if (packed.wavelet == dwt::Wavelet::k53) {
        v = 1 << 20;
      } else {
        out.floats().at(x - out.rect.x0, y - out.rect.y0) = std::numeric_limits<float>::quiet_NaN();
      }
    }
  return out;
}

void expect_region_equals_crop(dwt::Backend& backend, const Rect& rect, int levels, dwt::Wavelet wavelet,
                               const Rect& window) {
  const std::string name = backend.name() + (wavelet == dwt::Wavelet::k53 ? " 5/3" : " 9/7") + " plane " +
                           std::to_string(rect.x0) + "," + std::to_string(rect.y0) + "," + std::to_string(rect.x1) +
                           "," + std::to_string(rect.y1) + " levels " + std::to_string(levels) + " window " +
                           std::to_string(window.x0) + "," + std::to_string(window.y0) + "," +
                           std::to_string(window.x1) + "," + std::to_string(window.y1);
  const TilePlane coefficients = random_plane(rect, levels, wavelet, 7);
  TilePlane whole = copy_of(coefficients);
  dwt::PlaneJob job;
  job.wavelet = wavelet;
  job.direction = dwt::Direction::kInverse;
  job.levels = levels;
  job.x0 = rect.x0;
  job.y0 = rect.y0;
  if (wavelet == dwt::Wavelet::k53) {
    job.samples53 = whole.ints();
  } else {
    job.samples97 = whole.floats();
  }
  ASSERT_TRUE(backend.run(job).ok()) << name;
  const PlaneRegion region = plane_region(rect, levels, wavelet, window);
  std::vector<std::vector<TilePlane>> bands(static_cast<size_t>(levels) + 1);
  bands[0].push_back(band_poisoned_outside(coefficients, levels, dwt::Band::kLL, region.band_window(0, dwt::Band::kLL)));
  for (int r = 1; r <= levels; ++r)
    for (dwt::Band band : {dwt::Band::kHL, dwt::Band::kLH, dwt::Band::kHH})
      bands[static_cast<size_t>(r)].push_back(
          band_poisoned_outside(coefficients, levels - r + 1, band, region.band_window(r, band)));
  const BandSource source = [&](int r, dwt::Band band) -> const TilePlane& {
    return bands[static_cast<size_t>(r)][r == 0 ? 0 : static_cast<size_t>(band) - 1];
  };
  TilePlane out;
  ASSERT_TRUE(inverse_dwt_region(region, wavelet, source, backend, out).ok()) << name;
  ASSERT_EQ(out.rect, window) << name;
  int64_t differ = 0;
  for (int64_t y = window.y0; y < window.y1; ++y)
    for (int64_t x = window.x0; x < window.x1; ++x) {
      const int32_t a = out.ints().at(x - window.x0, y - window.y0);
      const int32_t b = whole.ints().at(x - rect.x0, y - rect.y0);
      differ += a != b;  // the same bits, for floats too
    }
  EXPECT_EQ(differ, 0) << name;
}

TEST(RegionDwt, EqualsTheCropOfTheWholeInverse) {
  std::vector<std::unique_ptr<dwt::Backend>> backends;
  for (dwt::BackendKind kind : {dwt::BackendKind::kReference, dwt::BackendKind::kCpu}) {
    auto b = dwt::make_backend(kind, 2);
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    backends.push_back(std::move(*b));
  }
  const std::vector<Rect> planes = {{0, 0, 97, 75}, {13, 7, 150, 99}, {6, 3, 7, 60}};
  for (auto& backend : backends)
    for (dwt::Wavelet wavelet : {dwt::Wavelet::k53, dwt::Wavelet::k97})
      for (const Rect& rect : planes)
        for (int levels : {0, 1, 3, 5}) {
          const std::vector<Rect> windows = {
              rect,
              {rect.x0, rect.y0, rect.x0 + 1, rect.y0 + 1},
              {rect.x1 - 1, rect.y1 - 1, rect.x1, rect.y1},
              {(rect.x0 + rect.x1) / 2, rect.y0 + 2, (rect.x0 + rect.x1) / 2 + 1, rect.y1 - 1},
              {rect.x0 + (rect.width() > 10 ? 5 : 0), rect.y0 + 11, rect.x1 - (rect.width() > 10 ? 9 : 0),
               rect.y0 + 30}};
          for (const Rect& window : windows)
            if (!window.empty()) expect_region_equals_crop(*backend, rect, levels, wavelet, window);
        }
}

}  // namespace
}  // namespace mallat::codec

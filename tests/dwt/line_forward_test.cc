// The line-based forward DWT (dwt/line_forward.h) against the whole-plane
// transforms: the CPU backend bit for bit (5/3 and 9/7, every kernel build)
// and the reference (5/3 bit for bit), on random shapes, origins and levels,
// with band rows handed out from its line or written where the sink places
// them, and rows copied in or lifted where the caller holds them.
#include "dwt/line_forward.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "dwt/reference.h"
#include "tests/dwt/dwt_test_support.h"

namespace mallat::dwt {
namespace {

using testing::PaddedPlane;

std::vector<cpu::Isa> isas() {
  std::vector<cpu::Isa> out{cpu::Isa::kGeneric};
  if (cpu::isa_available(cpu::Isa::kAvx2)) out.push_back(cpu::Isa::kAvx2);
  return out;
}

// Streams the plane's rows through a LineForward and puts each band row
// where the whole-plane transform leaves it (packed_subband_rect); rows
// handed out twice, out of order or outside their band fail the test.
// `placed`: the rows of every band but HL are written there by the
// transform (BandRowPlace), and must be handed out where they were placed.
// `strip` > 0: the rows are pushed in place from a buffer of that many
// rows, which is overwritten once they are in (after keep_rows), as the
// streamed encoder reuses its strips.
template <typename T>
std::vector<T> line_transform(const PaddedPlane<T>& in, const Rect& tc, int levels, cpu::Isa isa,
                              bool placed = false, int64_t strip = 0) {
  const int64_t w = tc.width();
  std::vector<T> out(static_cast<size_t>(w * tc.height()), static_cast<T>(-7777));
  std::vector<int> seen(out.size(), 0);
  BandRowSink<T> sink = [&](int nb, Band band, int64_t y, const T* row, int64_t width) {
    const Rect at = packed_subband_rect(tc, levels, levels == 0 ? 0 : nb, band);
    ASSERT_EQ(width, at.width()) << "band " << static_cast<int>(band) << " nb " << nb;
    ASSERT_LT(y, at.height());
    const size_t first = static_cast<size_t>((at.y0 + y) * w + at.x0);
    if (placed && levels > 0 && band != Band::kHL) {
      ASSERT_EQ(row, &out[first]) << "band " << static_cast<int>(band) << " nb " << nb;
    }
    for (int64_t x = 0; x < width; ++x) {
      out[first + static_cast<size_t>(x)] = row[x];
      ++seen[first + static_cast<size_t>(x)];
    }
  };
  BandRowPlace<T> place;
  if (placed) {
    place = [&](int nb, Band band, int64_t y, int64_t width) -> T* {
      if (band == Band::kHL) return nullptr;
      const Rect at = packed_subband_rect(tc, levels, levels == 0 ? 0 : nb, band);
      EXPECT_EQ(width, at.width());
      return &out[static_cast<size_t>((at.y0 + y) * w + at.x0)];
    };
  }
  auto made = LineForward<T>::make(tc, levels, sink, isa, place);
  EXPECT_TRUE(made.ok()) << made.status().message();
  if (!made.ok()) return out;
  std::vector<T> strip_rows(static_cast<size_t>(std::max<int64_t>(strip, 1) * w));
  for (int64_t y = 0; y < tc.height(); ++y) {
    if (strip == 0) {
      (*made)->push(&in.at(0, y));
      continue;
    }
    T* row = strip_rows.data() + (y % strip) * w;
    std::copy(&in.at(0, y), &in.at(0, y) + w, row);
    (*made)->push_in_place(row);
    if (y % strip == strip - 1) {
      (*made)->keep_rows();
      std::fill(strip_rows.begin(), strip_rows.end(), static_cast<T>(-9999));
    }
  }
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], 1) << "sample " << i << " written " << seen[i] << " times";
  return out;
}

template <typename T>
void compare_on(const Rect& tc, int levels, std::mt19937& rng, Backend& whole, cpu::Isa isa, bool placed = false,
                int64_t strip = 0) {
  PaddedPlane<T> plane(tc.width(), tc.height());
  testing::fill_random(plane, rng);
  const std::vector<T> lines = line_transform(plane, tc, levels, isa, placed, strip);
  PlaneJob job;
  job.levels = levels;
  job.x0 = tc.x0;
  job.y0 = tc.y0;
  if constexpr (std::is_same_v<T, int32_t>) {
    job.wavelet = Wavelet::k53;
    job.samples53 = plane.view();
  } else {
    job.wavelet = Wavelet::k97;
    job.samples97 = plane.view();
  }
  ASSERT_TRUE(whole.run(job).ok());
  const std::vector<T> expected = plane.samples();
  ASSERT_EQ(lines.size(), expected.size());
  size_t differ = 0;
  for (size_t i = 0; i < lines.size(); ++i) differ += lines[i] != expected[i] ? 1 : 0;
  EXPECT_EQ(differ, 0u) << whole.name() << " " << tc.width() << "x" << tc.height() << " at " << tc.x0 << ","
                        << tc.y0 << ", " << levels << " levels";
}

Rect random_rect(std::mt19937& rng, int64_t most) {
  std::uniform_int_distribution<int64_t> side(1, most), origin(0, 37);
  const int64_t x0 = origin(rng), y0 = origin(rng);
  return Rect{x0, y0, x0 + side(rng), y0 + side(rng)};
}

TEST(DwtLineForward, EqualsCpuBackendOnRandomShapes) {
  std::mt19937 rng(17);
  for (cpu::Isa isa : isas()) {
    auto cpu_backend = cpu::make_cpu_backend(1, isa);
    for (int n = 0; n < 150; ++n) {
      const Rect tc = random_rect(rng, n < 100 ? 24 : 300);
      const int levels = std::uniform_int_distribution<int>(0, n % 10 == 0 ? 32 : 6)(rng);
      const int64_t strip = n % 3 == 0 ? 0 : 1 + n % 7;  // pushed in place from strips of 2..7 rows, or 1
      compare_on<int32_t>(tc, levels, rng, *cpu_backend, isa, n % 2 == 1, strip);
      compare_on<float>(tc, levels, rng, *cpu_backend, isa, n % 2 == 1, strip);
    }
  }
}

TEST(DwtLineForward, EqualsReferenceFor53) {
  auto ref = reference::make_reference_backend();
  std::mt19937 rng(5);
  for (int n = 0; n < 120; ++n) {
    const Rect tc = random_rect(rng, 40);
    compare_on<int32_t>(tc, std::uniform_int_distribution<int>(0, 7)(rng), rng, *ref, cpu::Isa::kBest);
  }
}

TEST(DwtLineForward, OneRowOneColumnAndEveryParity) {
  auto cpu_backend = cpu::make_cpu_backend(1);
  std::mt19937 rng(9);
  for (int64_t x0 : {0, 1, 2, 3})
    for (int64_t y0 : {0, 1, 2, 3})
      for (auto [w, h] : {std::pair<int64_t, int64_t>{1, 1}, {1, 9}, {9, 1}, {2, 2}, {3, 2}, {2, 3}, {5, 7}})
        for (int levels : {0, 1, 2, 5, 32}) {
          const Rect tc{x0, y0, x0 + w, y0 + h};
          compare_on<int32_t>(tc, levels, rng, *cpu_backend, cpu::Isa::kBest, levels == 2, x0 == 1 ? 2 : 0);
          compare_on<float>(tc, levels, rng, *cpu_backend, cpu::Isa::kBest, levels == 2, x0 == 1 ? 2 : 0);
        }
}

TEST(DwtLineForward, RefusesBadArguments) {
  const BandRowSink<int32_t> sink = [](int, Band, int64_t, const int32_t*, int64_t) {};
  EXPECT_FALSE(LineForward<int32_t>::make(Rect{0, 0, 4, 4}, 33, sink).ok());
  EXPECT_FALSE(LineForward<int32_t>::make(Rect{0, 0, 4, 4}, -1, sink).ok());
  EXPECT_FALSE(LineForward<int32_t>::make(Rect{2, 0, 2, 4}, 1, sink).ok());
}

}  // namespace
}  // namespace mallat::dwt

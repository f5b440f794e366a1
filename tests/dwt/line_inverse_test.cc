// LineInverse against the whole-plane inverse: the CPU backend bit for bit
// (5/3 and 9/7) and the reference (5/3 exactly), on many random shapes,
// origins of either parity and 0..levels that empty the coarse levels; and
// its fused 5/3 path (HOR_SR and the vertical steps a span of columns at a
// time) against its two passes, on rows longer than several spans.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "dwt/cpu/cpu_backend.h"
#include "dwt/cpu/line_kernels.h"
#include "dwt/line_inverse.h"
#include "dwt/reference.h"

namespace mallat::dwt {
namespace {

struct Shape {
  int64_t x0, y0, w, h;
  int levels;
};

// The plane's rows as LineInverse gives them, the bands read from the
// packed layout (geometry.h) of `coefficients`.
template <typename T>
std::vector<T> line_inverse(const std::vector<T>& coefficients, const Shape& s, cpu::Isa isa = cpu::Isa::kBest,
                            bool fused = true) {
  const Rect tc{s.x0, s.y0, s.x0 + s.w, s.y0 + s.h};
  std::vector<int64_t> next_row(4 * 40, 0);
  // Each band's row in a buffer of its own (the transform overwrites it),
  // filled with 1s beyond the row to show a read past its end.
  std::vector<std::vector<T>> rows(4 * 40);
  BandRowSource<T> source = [&](int nb, Band band, int64_t row) -> T* {
    const Rect at = s.levels == 0 ? Rect{0, 0, s.w, s.h} : packed_subband_rect(tc, s.levels, nb, band);
    const auto k = static_cast<size_t>(nb * 4 + static_cast<int>(band));
    // Each band's rows come in order, each once.
    EXPECT_EQ(row, next_row[k]) << "band " << static_cast<int>(band) << " level " << nb;
    ++next_row[k];
    EXPECT_LT(row, at.height());
    EXPECT_GT(at.width(), 0);
    std::vector<T>& r = rows[k];
    r.assign(static_cast<size_t>(std::max<int64_t>(at.width(), 1)) + 8, T{1});
    if (row < at.height() && at.width() > 0) {
      std::memcpy(r.data(), coefficients.data() + (at.y0 + row) * s.w + at.x0,
                  static_cast<size_t>(at.width()) * sizeof(T));
    }
    return r.data();
  };
  LineInverse<T> inverse(tc, s.levels, source, isa, fused);
  std::vector<T> out;
  for (int64_t y = 0; y < s.h; ++y) {
    const T* row = inverse.next_row();
    out.insert(out.end(), row, row + s.w);
  }
  return out;
}

template <typename T>
std::vector<T> whole_plane(std::vector<T> plane, const Shape& s, Backend& backend) {
  PlaneJob job;
  job.wavelet = std::is_same_v<T, int32_t> ? Wavelet::k53 : Wavelet::k97;
  job.direction = Direction::kInverse;
  job.levels = s.levels;
  job.x0 = s.x0;
  job.y0 = s.y0;
  if constexpr (std::is_same_v<T, int32_t>) job.samples53 = {plane.data(), s.w, s.h, s.w};
  else job.samples97 = {plane.data(), s.w, s.h, s.w};
  EXPECT_TRUE(backend.run(job).ok());
  return plane;
}

std::vector<Shape> shapes() {
  std::vector<Shape> v = {{0, 0, 1, 1, 0},  {1, 1, 1, 1, 3},   {0, 1, 1, 7, 2},  {1, 0, 9, 1, 2},
                          {3, 5, 2, 2, 1},  {0, 0, 64, 64, 5}, {7, 3, 33, 17, 32}, {1, 1, 2, 3, 4},
                          {0, 0, 5, 0, 2},  {2, 2, 0, 6, 1}};
  std::mt19937 rng(17);
  for (int k = 0; k < 150; ++k) {
    std::uniform_int_distribution<int64_t> origin(0, 40), size(1, 70);
    std::uniform_int_distribution<int> levels(0, 7);
    v.push_back({origin(rng), origin(rng), size(rng), size(rng), levels(rng)});
  }
  return v;
}

std::string name(const Shape& s) {
  return "origin " + std::to_string(s.x0) + "," + std::to_string(s.y0) + " size " + std::to_string(s.w) + "x" +
         std::to_string(s.h) + " levels " + std::to_string(s.levels);
}

TEST(DwtLineInverse, Reversible53EqualsCpuBackendAndReference) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int32_t> value(-4000, 4000);
  auto cpu = cpu::make_cpu_backend(2);
  auto reference = reference::make_reference_backend();
  for (const Shape& s : shapes()) {
    std::vector<int32_t> c(static_cast<size_t>(s.w * s.h));
    for (int32_t& x : c) x = value(rng);
    const std::vector<int32_t> got = line_inverse(c, s);
    EXPECT_EQ(got, whole_plane(c, s, *cpu)) << name(s);
    EXPECT_EQ(got, whole_plane(c, s, *reference)) << name(s);
  }
}

TEST(DwtLineInverse, Reversible53FusedEqualsTwoPasses) {
  if (cpu::line_kernels_53(cpu::Isa::kBest).load_and_iterate == nullptr) GTEST_SKIP() << "no fused kernels here";
  std::mt19937 rng(53);
  std::uniform_int_distribution<int32_t> value(-4000, 4000);
  int64_t cases = 0;
  // Widths about the span of 512 columns and several spans long, odd and
  // even; heights 1..40; origins of either parity in both directions.
  for (int64_t w : {2, 3, 5, 16, 17, 511, 512, 513, 1023, 1026, 1537, 4099}) {
    for (int64_t h = 1; h <= 40; ++h) {
      for (int64_t x0 : {0, 1, 3}) {
        const int64_t y0 = (h + x0) % 2;
        const Shape s{x0, y0, w, h, static_cast<int>(1 + (h + w) % 3)};
        std::vector<int32_t> c(static_cast<size_t>(s.w * s.h));
        for (int32_t& x : c) x = value(rng);
        const std::vector<int32_t> fused = line_inverse(c, s, cpu::Isa::kBest, true);
        const std::vector<int32_t> plain = line_inverse(c, s, cpu::Isa::kBest, false);
        ASSERT_EQ(fused, plain) << name(s);
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 12 * 40 * 3);
}

TEST(DwtLineInverse, Irreversible97EqualsCpuBackendBitForBit) {
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> value(-3000.0f, 3000.0f);
  for (cpu::Isa isa : {cpu::Isa::kGeneric, cpu::Isa::kAvx2}) {
    if (!cpu::isa_available(isa)) continue;
    auto cpu = cpu::make_cpu_backend(2, isa);
    for (const Shape& s : shapes()) {
      std::vector<float> c(static_cast<size_t>(s.w * s.h));
      for (float& x : c) x = value(rng);
      const std::vector<float> got = line_inverse(c, s, isa);
      const std::vector<float> want = whole_plane(c, s, *cpu);
      ASSERT_EQ(got.size(), want.size());
      // Bit for bit (memcmp: -0 and 0 differ); an empty shape has no data to compare.
      if (!got.empty()) {
        EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0) << name(s) << " " << cpu->name();
      }
    }
  }
}

}  // namespace
}  // namespace mallat::dwt

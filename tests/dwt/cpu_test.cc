// The CPU backend against the reference, and both for perfect
// reconstruction, on every size 1..70 in each direction at several origins.
#include "dwt/cpu/cpu_backend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "dwt/reference.h"
#include "tests/dwt/dwt_test_support.h"

namespace mallat::dwt {
namespace {

using testing::job53;
using testing::job97;
using testing::PaddedPlane;

const std::pair<int64_t, int64_t> kOrigins[] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {3, 5}};
constexpr int kMaxSize = 70;

// One single-threaded CPU backend per instruction set this machine runs
// (thousands of tiny planes: threads would only add hand-off time).
std::vector<std::unique_ptr<Backend>> cpu_backends(int threads = 1) {
  std::vector<std::unique_ptr<Backend>> out;
  out.push_back(cpu::make_cpu_backend(threads, cpu::Isa::kGeneric));
  if (cpu::isa_available(cpu::Isa::kAvx2)) out.push_back(cpu::make_cpu_backend(threads, cpu::Isa::kAvx2));
  return out;
}

TEST(DwtCpu, Exhaustive53BitExactAndReversible) {
  auto cpus = cpu_backends();
  auto ref = reference::make_reference_backend();
  std::mt19937 rng(5353);
  int cases = 0;
  for (auto [x0, y0] : kOrigins) {
    for (int64_t w = 1; w <= kMaxSize; ++w) {
      for (int64_t h = 1; h <= kMaxSize; ++h) {
        for (int levels = 1; levels <= 5; ++levels) {
          PaddedPlane<int32_t> a(w, h);
          testing::fill_random(a, rng);
          const PaddedPlane<int32_t> original = a;
          const std::vector<int32_t> input = a.samples();
          ASSERT_TRUE(ref->run(job53(a.view(), Direction::kForward, levels, x0, y0)).ok());
          for (auto& cpu : cpus) {
            PaddedPlane<int32_t> b = original;
            ASSERT_TRUE(cpu->run(job53(b.view(), Direction::kForward, levels, x0, y0)).ok());
            ASSERT_EQ(a.samples(), b.samples()) << cpu->name() << " forward " << w << "x" << h << " at "
                                                << x0 << "," << y0 << " L" << levels;
            ASSERT_TRUE(cpu->run(job53(b.view(), Direction::kInverse, levels, x0, y0)).ok());
            ASSERT_EQ(b.samples(), input) << cpu->name() << " inverse " << w << "x" << h << " at " << x0 << "," << y0;
            ASSERT_TRUE(b.padding_intact());
          }
          ASSERT_TRUE(ref->run(job53(a.view(), Direction::kInverse, levels, x0, y0)).ok());
          ASSERT_EQ(a.samples(), input) << "reference inverse " << w << "x" << h << " at " << x0 << "," << y0;
          ++cases;
        }
      }
    }
  }
  EXPECT_EQ(cases, 5 * 5 * kMaxSize * kMaxSize);
}

// Every level count 1..5 on a band of sizes and all origins.
TEST(DwtCpu, AllLevels53) {
  auto cpu = cpu::make_cpu_backend(1, cpu::Isa::kGeneric);
  auto ref = reference::make_reference_backend();
  std::mt19937 rng(35);
  for (auto [x0, y0] : kOrigins) {
    for (int64_t w : {1, 2, 3, 4, 5, 8, 13, 31, 32, 33, 64, 70}) {
      for (int64_t h : {1, 2, 3, 6, 7, 17, 40, 69}) {
        for (int levels = 1; levels <= 5; ++levels) {
          PaddedPlane<int32_t> a(w, h);
          testing::fill_random(a, rng);
          const std::vector<int32_t> input = a.samples();
          PaddedPlane<int32_t> b = a;
          ASSERT_TRUE(ref->run(job53(a.view(), Direction::kForward, levels, x0, y0)).ok());
          ASSERT_TRUE(cpu->run(job53(b.view(), Direction::kForward, levels, x0, y0)).ok());
          ASSERT_EQ(a.samples(), b.samples()) << w << "x" << h << " at " << x0 << "," << y0 << " L" << levels;
          ASSERT_TRUE(cpu->run(job53(b.view(), Direction::kInverse, levels, x0, y0)).ok());
          ASSERT_EQ(b.samples(), input);
        }
      }
    }
  }
}

double max_abs(const std::vector<float>& v) {
  double m = 0;
  for (float x : v) m = std::max(m, static_cast<double>(std::fabs(x)));
  return m;
}

double max_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, static_cast<double>(std::fabs(a[i] - b[i])));
  return m;
}

TEST(DwtCpu, Exhaustive97CloseToReferenceAndReconstructs) {
  auto cpus = cpu_backends();
  auto ref = reference::make_reference_backend();
  std::mt19937 rng(9797);
  for (auto [x0, y0] : kOrigins) {
    for (int64_t w = 1; w <= kMaxSize; ++w) {
      for (int64_t h = 1; h <= kMaxSize; ++h) {
        const int levels = 1 + static_cast<int>((w * 7 + h + y0) % 5);
        PaddedPlane<float> a(w, h);
        testing::fill_random(a, rng);
        const PaddedPlane<float> original = a;
        const std::vector<float> input = a.samples();
        const double scale = max_abs(input);
        ASSERT_TRUE(ref->run(job97(a.view(), Direction::kForward, levels, x0, y0)).ok());
        const double coeff_scale = std::max(scale, max_abs(a.samples()));
        for (auto& cpu : cpus) {
          PaddedPlane<float> b = original;
          ASSERT_TRUE(cpu->run(job97(b.view(), Direction::kForward, levels, x0, y0)).ok());
          ASSERT_LE(max_diff(a.samples(), b.samples()), 1e-5 * coeff_scale)
              << cpu->name() << " forward " << w << "x" << h << " at " << x0 << "," << y0 << " L" << levels;
          ASSERT_TRUE(cpu->run(job97(b.view(), Direction::kInverse, levels, x0, y0)).ok());
          ASSERT_LE(max_diff(b.samples(), input), 1e-4 * scale) << cpu->name() << " " << w << "x" << h;
          ASSERT_TRUE(b.padding_intact());
        }
        ASSERT_TRUE(ref->run(job97(a.view(), Direction::kInverse, levels, x0, y0)).ok());
        ASSERT_LE(max_diff(a.samples(), input), 1e-4 * scale) << "reference " << w << "x" << h;
      }
    }
  }
}

// More levels than the size allows: the extra levels see empty or single
// sample regions and must agree with the reference.
TEST(DwtCpu, ManyLevels) {
  auto cpu = cpu::make_cpu_backend(2);
  auto ref = reference::make_reference_backend();
  std::mt19937 rng(32);
  for (int levels : {0, 6, 11, 32}) {
    for (auto [w, h] : {std::pair<int64_t, int64_t>{3, 2}, {1, 1}, {1, 50}, {50, 1}, {100, 9}}) {
      PaddedPlane<int32_t> a(w, h);
      testing::fill_random(a, rng);
      const std::vector<int32_t> input = a.samples();
      PaddedPlane<int32_t> b = a;
      ASSERT_TRUE(ref->run(job53(a.view(), Direction::kForward, levels, 7, 3)).ok());
      ASSERT_TRUE(cpu->run(job53(b.view(), Direction::kForward, levels, 7, 3)).ok());
      ASSERT_EQ(a.samples(), b.samples()) << w << "x" << h << " L" << levels;
      if (levels == 0) {
        ASSERT_EQ(b.samples(), input);
      }
      ASSERT_TRUE(cpu->run(job53(b.view(), Direction::kInverse, levels, 7, 3)).ok());
      ASSERT_EQ(b.samples(), input);
    }
  }
}

// Threads share rows and strips; the result must not depend on how many.
TEST(DwtCpu, ThreadedMatchesReferenceOnLargerPlanes) {
  auto ref = reference::make_reference_backend();
  std::mt19937 rng(4);
  for (int threads : {2, 3, 8}) {
    auto cpu = cpu::make_cpu_backend(threads);
    for (auto [w, h] : {std::pair<int64_t, int64_t>{257, 131}, {1000, 37}, {33, 700}}) {
      for (auto [x0, y0] : kOrigins) {
        PaddedPlane<int32_t> a(w, h);
        testing::fill_random(a, rng);
        PaddedPlane<int32_t> b = a;
        ASSERT_TRUE(ref->run(job53(a.view(), Direction::kForward, 4, x0, y0)).ok());
        ASSERT_TRUE(cpu->run(job53(b.view(), Direction::kForward, 4, x0, y0)).ok());
        ASSERT_EQ(a.samples(), b.samples()) << threads << " threads " << w << "x" << h;
        ASSERT_TRUE(ref->run(job53(a.view(), Direction::kInverse, 4, x0, y0)).ok());
        ASSERT_TRUE(cpu->run(job53(b.view(), Direction::kInverse, 4, x0, y0)).ok());
        ASSERT_EQ(a.samples(), b.samples());
        ASSERT_TRUE(b.padding_intact());

        PaddedPlane<float> f(w, h);
        testing::fill_random(f, rng);
        PaddedPlane<float> g = f;
        ASSERT_TRUE(ref->run(job97(f.view(), Direction::kForward, 4, x0, y0)).ok());
        ASSERT_TRUE(cpu->run(job97(g.view(), Direction::kForward, 4, x0, y0)).ok());
        ASSERT_LE(max_diff(f.samples(), g.samples()), 1e-5 * max_abs(f.samples()));
      }
    }
  }
}

// time() leaves the planes holding exactly one application.
TEST(DwtCpu, TimeLeavesOneApplication) {
  auto cpu = cpu::make_cpu_backend(2);
  std::mt19937 rng(1);
  PaddedPlane<int32_t> a(64, 48);
  testing::fill_random(a, rng);
  PaddedPlane<int32_t> b = a;
  ASSERT_TRUE(cpu->run(job53(a.view(), Direction::kForward, 3, 1, 2)).ok());
  const PlaneJob job = job53(b.view(), Direction::kForward, 3, 1, 2);
  Result<Timing> t = cpu->time(std::span<const PlaneJob>(&job, 1), 2, 3);
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(t->run_ms.size(), 3u);
  EXPECT_EQ(a.samples(), b.samples());
}

// kBest takes AVX2 where this build and CPU have it; an unavailable
// instruction set falls back to the generic kernels.
TEST(DwtCpu, IsaSelection) {
  EXPECT_TRUE(cpu::isa_available(cpu::Isa::kGeneric));
  const bool avx2 = cpu::isa_available(cpu::Isa::kAvx2);
  EXPECT_EQ(cpu::make_cpu_backend(1, cpu::Isa::kAvx2)->name().find("avx2") != std::string::npos, avx2);
  EXPECT_EQ(cpu::make_cpu_backend(1)->name().find("avx2") != std::string::npos, avx2);
  EXPECT_NE(cpu::make_cpu_backend(1, cpu::Isa::kGeneric)->name().find("generic"), std::string::npos);
}

}  // namespace
}  // namespace mallat::dwt

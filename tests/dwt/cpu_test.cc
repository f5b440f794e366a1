// What only the CPU backend has: its thread pool and the choice of kernel
// build. Each kernel build also runs the whole backend suite
// (backend_suite.h, host_backends_test.cc).
#include "dwt/cpu/cpu_backend.h"

#include <gtest/gtest.h>

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

// Every kernel build this machine runs.
std::vector<cpu::Isa> isas() {
  std::vector<cpu::Isa> out{cpu::Isa::kGeneric};
  if (cpu::isa_available(cpu::Isa::kAvx2)) out.push_back(cpu::Isa::kAvx2);
  return out;
}

// Threads share rows and strips; the result must not depend on how many.
// (backend_suite.cc runs each kernel build single-threaded.)
TEST(DwtCpu, ThreadedMatchesReferenceOnLargerPlanes) {
  auto ref = reference::make_reference_backend();
  std::mt19937 rng(4);
  for (cpu::Isa isa : isas()) {
    for (int threads : {2, 3, 8}) {
      auto cpu = cpu::make_cpu_backend(threads, isa);
      for (auto [w, h] : {std::pair<int64_t, int64_t>{257, 131}, {1000, 37}, {33, 700}}) {
        for (auto [x0, y0] : kOrigins) {
          PaddedPlane<int32_t> a(w, h);
          testing::fill_random(a, rng);
          PaddedPlane<int32_t> b = a;
          ASSERT_TRUE(ref->run(job53(a.view(), Direction::kForward, 4, x0, y0)).ok());
          ASSERT_TRUE(cpu->run(job53(b.view(), Direction::kForward, 4, x0, y0)).ok());
          ASSERT_TRUE(testing::agrees(b, a, 0, cpu->name() + " forward"));
          ASSERT_TRUE(ref->run(job53(a.view(), Direction::kInverse, 4, x0, y0)).ok());
          ASSERT_TRUE(cpu->run(job53(b.view(), Direction::kInverse, 4, x0, y0)).ok());
          ASSERT_TRUE(testing::agrees(b, a, 0, cpu->name() + " inverse"));

          PaddedPlane<float> f(w, h);
          testing::fill_random(f, rng);
          PaddedPlane<float> g = f;
          ASSERT_TRUE(ref->run(job97(f.view(), Direction::kForward, 4, x0, y0)).ok());
          ASSERT_TRUE(cpu->run(job97(g.view(), Direction::kForward, 4, x0, y0)).ok());
          ASSERT_TRUE(testing::agrees(g, f, testing::reference_tolerance(f), cpu->name() + " 9/7 forward"));
        }
      }
      // More levels than the plane has, with the rows and strips shared out.
      for (int levels : {0, 6, 11, 32}) {
        for (auto [w, h] : {std::pair<int64_t, int64_t>{3, 2}, {1, 1}, {1, 50}, {50, 1}, {100, 9}}) {
          PaddedPlane<int32_t> a(w, h);
          testing::fill_random(a, rng);
          const PaddedPlane<int32_t> input = a;
          PaddedPlane<int32_t> b = a;
          ASSERT_TRUE(ref->run(job53(a.view(), Direction::kForward, levels, 7, 3)).ok());
          ASSERT_TRUE(cpu->run(job53(b.view(), Direction::kForward, levels, 7, 3)).ok());
          ASSERT_TRUE(testing::agrees(b, a, 0, cpu->name() + " many levels"));
          ASSERT_TRUE(cpu->run(job53(b.view(), Direction::kInverse, levels, 7, 3)).ok());
          ASSERT_TRUE(testing::agrees(b, input, 0, cpu->name() + " many levels round trip"));
        }
      }
    }
  }
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

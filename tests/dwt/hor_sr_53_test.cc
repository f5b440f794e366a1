// The one-pass 5/3 HOR_SR (dwt/cpu/hor_sr_53.h, the AVX2 kernels') against
// the generic build's two lifting loops and interleave (lifting.h), bit for
// bit: every row length 1..80 at both parities of its first coordinate, the
// line kernels' inverse_row_apart and the whole-plane kernels' inverse_row.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "dwt/cpu/kernels.h"
#include "dwt/cpu/line_kernels.h"

namespace mallat::dwt {
namespace {

// Random band samples: small ones, and ones near the range a 5/3 decode of
// deep images meets, where a wrong rounding or shift shows.
std::vector<int32_t> random_samples(int64_t n, std::mt19937& rng, bool large) {
  std::uniform_int_distribution<int32_t> v(large ? -(1 << 28) : -300, large ? (1 << 28) : 300);
  std::vector<int32_t> out(static_cast<size_t>(n));
  for (auto& x : out) x = v(rng);
  return out;
}

class DwtHorSr53 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cpu::isa_available(cpu::Isa::kAvx2)) GTEST_SKIP() << "no AVX2 kernels on this build or CPU";
  }
};

TEST_F(DwtHorSr53, RowApartEqualsGenericLifting) {
  const auto& fast = cpu::line_kernels_53(cpu::Isa::kAvx2);
  const auto& plain = cpu::line_kernels_53(cpu::Isa::kGeneric);
  std::mt19937 rng(53);
  for (int64_t n = 1; n <= 80; ++n) {
    for (int64_t i0 : {0, 1, 6, 13}) {
      for (bool large : {false, true}) {
        const int64_t low = (i0 & 1) != 0 ? n / 2 : (n + 1) / 2;
        // Each half in a buffer of its own, as a band row lies apart from the
        // other, with other samples after it (as in a band buffer), so that a
        // read past a half's end changes the result.
        std::vector<int32_t> s = random_samples(low + 9, rng, large), d = random_samples(n - low + 9, rng, large);
        std::vector<int32_t> s2 = s, d2 = d;
        if (low == 0) s.clear(), s2.clear();
        if (n == low) d.clear(), d2.clear();
        std::vector<int32_t> want(static_cast<size_t>(n)), got(static_cast<size_t>(n) + 1, 12345);
        plain.inverse_row_apart(s.empty() ? nullptr : s.data(), d.empty() ? nullptr : d.data(), want.data(), n, i0, 1);
        fast.inverse_row_apart(s2.empty() ? nullptr : s2.data(), d2.empty() ? nullptr : d2.data(), got.data(), n, i0, 1);
        for (int64_t j = 0; j < n; ++j)
          ASSERT_EQ(got[static_cast<size_t>(j)], want[static_cast<size_t>(j)])
              << "n " << n << " i0 " << i0 << " sample " << j << (large ? " large" : "");
        ASSERT_EQ(got[static_cast<size_t>(n)], 12345) << "wrote past the row, n " << n << " i0 " << i0;
      }
    }
  }
}

TEST_F(DwtHorSr53, PackedRowEqualsGenericLifting) {
  const auto& fast = cpu::kernels_53(cpu::Isa::kAvx2);
  const auto& plain = cpu::kernels_53(cpu::Isa::kGeneric);
  std::mt19937 rng(35);
  for (int64_t n = 1; n <= 80; ++n) {
    for (int64_t i0 : {0, 1}) {
      std::vector<int32_t> want = random_samples(n, rng, false), got = want;
      std::vector<int32_t> scratch(static_cast<size_t>(n));
      plain.inverse_row(want.data(), n, i0, scratch.data());
      fast.inverse_row(got.data(), n, i0, scratch.data());
      ASSERT_EQ(got, want) << "n " << n << " i0 " << i0;
    }
  }
}

}  // namespace
}  // namespace mallat::dwt

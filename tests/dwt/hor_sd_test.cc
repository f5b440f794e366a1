// The HOR_SD kernels that write a row's two bands apart (kernels.h's
// forward_row_apart, the line forward DWT's; the one-pass kernels of
// dwt/cpu/hor_sd.h in the AVX2 build), and the whole-plane forward_row that
// uses them, against the same build's forward_row_lifted (lifting.h's loops
// on a scratch copy), bit for bit: short rows, every
// length around the vector loop's ends, long rows, both parities of the first
// coordinate; the row read is left as it was and nothing is written past
// either band.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "dwt/cpu/kernels.h"
#include "tests/dwt/dwt_test_support.h"

namespace mallat::dwt {
namespace {

std::vector<cpu::Isa> hor_sd_isas() {
  std::vector<cpu::Isa> out{cpu::Isa::kGeneric};
  if (cpu::isa_available(cpu::Isa::kAvx2)) out.push_back(cpu::Isa::kAvx2);
  return out;
}

template <typename T>
std::vector<T> random_row(int64_t n, std::mt19937& rng) {
  std::vector<T> out(static_cast<size_t>(n));
  if constexpr (std::is_same_v<T, float>) {
    std::uniform_real_distribution<float> v(-300.0f, 300.0f);
    for (auto& x : out) x = v(rng);
  } else {
    std::uniform_int_distribution<int32_t> v(-(1 << 20), 1 << 20);
    for (auto& x : out) x = v(rng);
  }
  return out;
}

// `factor`: each sample scaled first, as the vertical step would (the line
// DWT's ring leaves it to the row): the reference scales a copy, then
// transforms it.
template <typename T>
void compare_rows(const cpu::Kernels<T>& k, const std::string& what, T factor) {
  std::mt19937 rng(97);
  constexpr T kGuard = static_cast<T>(12345);
  for (int64_t n : testing::row_lengths()) {
    for (int64_t i0 : {0, 1, 6, 13}) {
      const std::vector<T> in = random_row<T>(n, rng);
      std::vector<T> want = in, scratch(static_cast<size_t>(n));
      for (T& x : want) x *= factor;
      k.forward_row_lifted(want.data(), n, i0, scratch.data());
      // The whole-plane kernel, in place.
      std::vector<T> in_place = in;
      for (T& x : in_place) x *= factor;
      k.forward_row(in_place.data(), n, i0, scratch.data());
      ASSERT_EQ(in_place, want) << what << ": forward_row, n " << n << " i0 " << i0;
      const int64_t low = (i0 & 1) != 0 ? n / 2 : (n + 1) / 2, high = n - low;
      // Each band in a buffer of its own with a guard sample after it.
      std::vector<T> l(static_cast<size_t>(low) + 1, kGuard), h(static_cast<size_t>(high) + 1, kGuard);
      std::vector<T> got_in = in;
      k.forward_row_apart(got_in.data(), l.data(), h.data(), n, i0, factor);
      ASSERT_EQ(got_in, in) << what << ": changed its input, n " << n << " i0 " << i0;
      for (int64_t j = 0; j < low; ++j)
        ASSERT_EQ(l[static_cast<size_t>(j)], want[static_cast<size_t>(j)])
            << what << ": low sample " << j << " of n " << n << " i0 " << i0;
      for (int64_t j = 0; j < high; ++j)
        ASSERT_EQ(h[static_cast<size_t>(j)], want[static_cast<size_t>(low + j)])
            << what << ": high sample " << j << " of n " << n << " i0 " << i0;
      ASSERT_EQ(l.back(), kGuard) << what << ": wrote past the low band, n " << n << " i0 " << i0;
      ASSERT_EQ(h.back(), kGuard) << what << ": wrote past the high band, n " << n << " i0 " << i0;
    }
  }
}

TEST(DwtHorSd, Rows97EqualLiftingLoops) {
  // 1, and the 9/7's row scalings (F.4.8.2's K and 1/K, as the line DWT uses them).
  for (cpu::Isa isa : hor_sd_isas())
    for (float factor : {1.0f, 1.230174104914001f, 1.0f / 1.230174104914001f})
      compare_rows(cpu::kernels_97(isa), cpu::isa_name(isa), factor);
}

TEST(DwtHorSd, Rows53EqualLiftingLoops) {
  for (cpu::Isa isa : hor_sd_isas())
    for (int32_t factor : {1, 3}) compare_rows(cpu::kernels_53(isa), cpu::isa_name(isa), factor);
}

}  // namespace
}  // namespace mallat::dwt

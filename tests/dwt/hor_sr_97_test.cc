// The one-pass 9/7 HOR_SR (dwt/cpu/hor_sr_97.h, the AVX2 kernels') against
// the same build's lifting loops and interleave (lifting.h's
// inverse_row_apart_lifted), bit for bit: every row length 1..300 and some
// long ones, at both parities of the first coordinate, the line kernels'
// inverse_row_apart (bands apart, only read) and the whole-plane kernels'
// inverse_row. The generic build has no one-pass kernel and is checked the
// same way.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "dwt/cpu/kernels.h"
#include "dwt/cpu/line_kernels.h"
#include "tests/dwt/dwt_test_support.h"

namespace mallat::dwt {
namespace {

std::vector<float> random_floats(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> v(-400.0f, 400.0f);
  std::vector<float> out(static_cast<size_t>(n));
  for (auto& x : out) x = v(rng);
  return out;
}

std::vector<cpu::Isa> hor_sr_97_isas() {
  std::vector<cpu::Isa> out{cpu::Isa::kGeneric};
  if (cpu::isa_available(cpu::Isa::kAvx2)) out.push_back(cpu::Isa::kAvx2);
  return out;
}

TEST(DwtHorSr97, RowApartEqualsLiftingLoops) {
  for (cpu::Isa isa : hor_sr_97_isas()) {
    const auto& k = cpu::line_kernels_97(isa);
    std::mt19937 rng(97);
    for (int64_t n : testing::row_lengths()) {
      for (int64_t i0 : {0, 1, 6, 13}) {
        const int64_t low = (i0 & 1) != 0 ? n / 2 : (n + 1) / 2;
        // Each band with other samples after it, as in a band buffer, so
        // that a read past a band's end changes the result.
        const std::vector<float> s = random_floats(low + 9, rng), d = random_floats(n - low + 9, rng);
        std::vector<float> s1 = s, d1 = d, s2 = s, d2 = d;
        std::vector<float> want(static_cast<size_t>(n)), got(static_cast<size_t>(n) + 1, 12345.0f);
        k.inverse_row_apart_lifted(low > 0 ? s1.data() : nullptr, n > low ? d1.data() : nullptr, want.data(), n, i0,
                                   1.0f);
        // The row scaled after, as the vertical step would (the line DWT's
        // ring leaves it to the row): 1, K or 1/K (F.3.8.2) in turn.
        const float factor = n % 3 == 0 ? 1.0f : n % 3 == 1 ? 1.230174104914001f : 1.0f / 1.230174104914001f;
        for (float& x : want) x *= factor;
        k.inverse_row_apart(low > 0 ? s2.data() : nullptr, n > low ? d2.data() : nullptr, got.data(), n, i0, factor);
        const std::string what = std::string(cpu::isa_name(isa)) + " n " + std::to_string(n) + " i0 " +
                                 std::to_string(i0) + " factor " + std::to_string(factor);
        for (int64_t j = 0; j < n; ++j)
          ASSERT_EQ(got[static_cast<size_t>(j)], want[static_cast<size_t>(j)]) << what << " sample " << j;
        ASSERT_EQ(got[static_cast<size_t>(n)], 12345.0f) << what << ": wrote past the row";
        if (k.apart_reads_only) {
          ASSERT_EQ(s2, s) << what << ": changed the low band";
          ASSERT_EQ(d2, d) << what << ": changed the high band";
        }
        // The whole-plane kernel on the packed row.
        std::vector<float> packed(s.begin(), s.begin() + low), scratch(static_cast<size_t>(n));
        packed.insert(packed.end(), d.begin(), d.begin() + (n - low));
        cpu::kernels_97(isa).inverse_row(packed.data(), n, i0, scratch.data());
        for (float& x : packed) x *= factor;
        ASSERT_EQ(packed, want) << what << ": inverse_row";
      }
    }
  }
}

}  // namespace
}  // namespace mallat::dwt

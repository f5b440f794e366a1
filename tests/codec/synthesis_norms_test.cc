#include "codec/encoder/synthesis_norms.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "quant/step_size.h"

namespace mallat::codec {
namespace {

TEST(SynthesisNorms, FiveThreeFirstLevelInClosedForm) {
  // F.3: the 5/3 synthesis low-pass is (1/2, 1, 1/2), norm^2 3/2; the
  // high-pass (-1/8, -1/4, 3/4, -1/4, -1/8), norm^2 23/32. Signalling order
  // for one level: LL, HL, LH, HH.
  auto norms = subband_synthesis_norms(dwt::Wavelet::k53, 1);
  ASSERT_TRUE(norms.ok()) << norms.status().to_string();
  ASSERT_EQ(norms->size(), 4u);
  EXPECT_NEAR((*norms)[0], 1.5, 1e-5);
  EXPECT_NEAR((*norms)[1], std::sqrt(1.5 * 23.0 / 32), 1e-5);
  EXPECT_NEAR((*norms)[2], std::sqrt(1.5 * 23.0 / 32), 1e-5);
  EXPECT_NEAR((*norms)[3], 23.0 / 32, 1e-5);
}

// The norm of the 2-D inverse transform of a unit impulse in the middle of
// subband (nb, band), measured with the reference backend.
double impulse_norm(dwt::Wavelet wavelet, int levels, int nb, dwt::Band band) {
  const int64_t n = 256;
  const dwt::Rect tc{0, 0, n, n};
  const dwt::Rect r = dwt::packed_subband_rect(tc, levels, nb, band);
  std::vector<float> plane(n * n, 0.0f);
  plane[(r.y0 + r.height() / 2) * n + r.x0 + r.width() / 2] = 1.0f;
  dwt::PlaneJob job;
  job.wavelet = wavelet;
  job.direction = dwt::Direction::kInverse;
  job.levels = levels;
  job.samples97 = PlaneView<float>{plane.data(), n, n, n};
  auto backend = dwt::make_backend(dwt::BackendKind::kReference, 1);
  EXPECT_TRUE(backend.ok());
  EXPECT_TRUE((*backend)->run(job).ok());
  double sum = 0;
  for (float v : plane) sum += static_cast<double>(v) * v;
  return std::sqrt(sum);
}

TEST(SynthesisNorms, NineSevenMatchTwoDimensionalImpulses) {
  const int levels = 3;
  auto norms = subband_synthesis_norms(dwt::Wavelet::k97, levels);
  ASSERT_TRUE(norms.ok());
  ASSERT_EQ(norms->size(), 10u);
  for (int i = 0; i < 10; ++i) {
    const int nb = quant::subband_level(i, levels);
    const auto band = static_cast<dwt::Band>(quant::subband_orientation(i));
    EXPECT_NEAR((*norms)[i], impulse_norm(dwt::Wavelet::k97, levels, nb, band), 1e-4 * (*norms)[i]) << i;
  }
}

TEST(SynthesisNorms, DeepLevelsKeepGrowing) {
  // Levels past the measured ones are extrapolated; the LL norm roughly
  // doubles per level (the 9/7 low-pass synthesis has DC gain 2).
  auto norms = subband_synthesis_norms(dwt::Wavelet::k97, 14);
  ASSERT_TRUE(norms.ok());
  auto ten = subband_synthesis_norms(dwt::Wavelet::k97, 10);
  ASSERT_TRUE(ten.ok());
  EXPECT_NEAR((*norms)[0] / (*ten)[0], 16.0, 0.5);
}

}  // namespace
}  // namespace mallat::codec

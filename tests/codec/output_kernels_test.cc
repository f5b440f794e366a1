// The output stage's byte kernels (output_kernels.h) against their plain
// loops, bit for bit and byte for byte of the whole buffer (so that a store
// past the row shows): every row length from 0 to past two vector steps
// (the vector loops' tails), the strides the vector loops take and others,
// every unsigned precision up to 8 bits (for the kernels into rows of
// samples, signed and unsigned ones up to 31 bits), samples far beyond both
// ends of the range (the clamps), integers that wrap, and floats at ties,
// NaN and infinities.
#include "codec/stages/output_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace mallat::codec {
namespace {

constexpr int64_t kLongest = 83;  // past two 32-sample steps, odd
constexpr size_t kPast = 64;      // bytes after the row that must stay as they were

SampleRange unsigned_range(int precision) {
  return {int32_t{1} << (precision - 1), 0, static_cast<int32_t>((int64_t{1} << precision) - 1)};
}

SampleRange signed_range(int precision) {
  return {0, -(int32_t{1} << (precision - 1)), (int32_t{1} << (precision - 1)) - 1};
}

std::vector<int32_t> random_ints(std::mt19937& rng, int precision, int32_t extreme) {
  const int32_t half = int32_t{1} << (precision - 1);
  const int32_t around = half > (1 << 28) ? extreme : 3 * half;
  std::uniform_int_distribution<int32_t> near(-around, around);
  std::vector<int32_t> v(kLongest);
  for (int32_t& x : v) {
    const uint32_t pick = rng() % 16;
    x = pick == 0 ? extreme : pick == 1 ? -extreme : pick == 2 ? half - 1 : pick == 3 ? -half : near(rng);
  }
  return v;
}

std::vector<float> random_floats(std::mt19937& rng, int precision) {
  const float half = std::ldexp(1.0f, precision - 1);
  std::uniform_real_distribution<float> near(-3 * half, 3 * half);
  std::vector<float> v(kLongest);
  for (float& x : v) {
    const uint32_t pick = rng() % 24;
    x = pick == 0   ? std::numeric_limits<float>::quiet_NaN()
        : pick == 1 ? std::numeric_limits<float>::infinity()
        : pick == 2 ? -std::numeric_limits<float>::infinity()
        : pick == 3 ? 3e9f
        : pick == 4 ? -3e9f
        : pick < 10 ? std::floor(near(rng)) + 0.5f  // a tie
                    : near(rng);
  }
  return v;
}

// Runs kernel(out) and plain(out) into buffers of stride * n + kPast bytes
// filled alike, and compares them whole.
template <typename Kernel, typename Plain>
void expect_same_bytes(int64_t n, int stride, Kernel kernel, Plain plain, const std::string& what) {
  std::vector<uint8_t> got(static_cast<size_t>(stride * n) + kPast, 0xa5), want = got;
  kernel(got.data());
  plain(want.data());
  ASSERT_EQ(got, want) << what << ", " << n << " samples, stride " << stride;
}

TEST(OutputKernels, ColourTransformsMatchThePlainLoops) {
#if defined(__x86_64__)
  // Where the host has them, the vector loops are what is compared.
  if (__builtin_cpu_supports("avx2")) {
    EXPECT_NE(&byte_kernels(), &plain_byte_kernels());
  }
#endif
  std::mt19937 rng(11);
  for (int precision = 1; precision <= 8; ++precision) {
    SampleRange r[3] = {unsigned_range(precision), unsigned_range(precision), unsigned_range(precision)};
    for (int stride : {3, 4}) {
      for (int64_t n = 0; n <= kLongest; ++n) {
        // The RCT's sums stay within int32, as the decoder's do.
        std::vector<int32_t> a = random_ints(rng, precision, 1 << 28), b = random_ints(rng, precision, 1 << 28),
                             c = random_ints(rng, precision, 1 << 28);
        expect_same_bytes(
            n, stride, [&](uint8_t* out) { byte_kernels().rct(a.data(), b.data(), c.data(), out, n, stride, r); },
            [&](uint8_t* out) { plain_byte_kernels().rct(a.data(), b.data(), c.data(), out, n, stride, r); },
            "RCT, precision " + std::to_string(precision));
        std::vector<float> y = random_floats(rng, precision), cb = random_floats(rng, precision),
                           cr = random_floats(rng, precision);
        expect_same_bytes(
            n, stride, [&](uint8_t* out) { byte_kernels().ict(y.data(), cb.data(), cr.data(), out, n, stride, r); },
            [&](uint8_t* out) { plain_byte_kernels().ict(y.data(), cb.data(), cr.data(), out, n, stride, r); },
            "ICT, precision " + std::to_string(precision));
      }
    }
  }
}

TEST(OutputKernels, OneComponentMatchesThePlainLoop) {
  std::mt19937 rng(12);
  for (int precision = 1; precision <= 8; ++precision) {
    const SampleRange r = unsigned_range(precision);
    for (int stride : {1, 2, 3}) {
      for (int64_t n = 0; n <= kLongest; ++n) {
        // shift_and_clamp's addition wraps: the extremes of int32 too.
        std::vector<int32_t> ints = random_ints(rng, precision, std::numeric_limits<int32_t>::max());
        expect_same_bytes(
            n, stride, [&](uint8_t* out) { byte_kernels().ints(ints.data(), out, n, stride, r); },
            [&](uint8_t* out) { plain_byte_kernels().ints(ints.data(), out, n, stride, r); },
            "integers, precision " + std::to_string(precision));
        std::vector<float> floats = random_floats(rng, precision);
        expect_same_bytes(
            n, stride, [&](uint8_t* out) { byte_kernels().floats(floats.data(), out, n, stride, r); },
            [&](uint8_t* out) { plain_byte_kernels().floats(floats.data(), out, n, stride, r); },
            "floats, precision " + std::to_string(precision));
      }
    }
  }
}

// The same into rows of samples: signed and unsigned components, integers
// of 1 to 31 bits, floats of 1 to 24; each output row compared whole, with
// what lies past it.
TEST(OutputKernels, SampleKernelsMatchThePlainLoops) {
  std::mt19937 rng(13);
  for (bool is_signed : {false, true}) {
    for (int precision : {1, 2, 8, 9, 12, 16, 23, 24, 25, 30, 31}) {
      const SampleRange one = is_signed ? signed_range(precision) : unsigned_range(precision);
      const SampleRange r[3] = {one, one, one};
      const bool floats_too = precision <= 24;
      for (int64_t n = 0; n <= kLongest; ++n) {
        const std::string what = std::to_string(precision) + (is_signed ? " bits signed" : " bits unsigned") + ", " +
                                 std::to_string(n) + " samples";
        const auto rows = static_cast<size_t>(n) + kPast;
        std::vector<int32_t> a = random_ints(rng, precision, 1 << 28), b = random_ints(rng, precision, 1 << 28),
                             c = random_ints(rng, precision, 1 << 28);
        std::vector<std::vector<int32_t>> got(3, std::vector<int32_t>(rows, 0x5a5a5a5a)), want = got;
        sample_kernels().rct(a.data(), b.data(), c.data(), got[0].data(), got[1].data(), got[2].data(), n, r);
        plain_sample_kernels().rct(a.data(), b.data(), c.data(), want[0].data(), want[1].data(), want[2].data(), n, r);
        ASSERT_EQ(got, want) << "RCT, " << what;
        sample_kernels().ints(a.data(), got[0].data(), n, one);
        plain_sample_kernels().ints(a.data(), want[0].data(), n, one);
        ASSERT_EQ(got, want) << "integers, " << what;
        if (!floats_too) continue;
        std::vector<float> y = random_floats(rng, precision), cb = random_floats(rng, precision),
                           cr = random_floats(rng, precision);
        sample_kernels().ict(y.data(), cb.data(), cr.data(), got[0].data(), got[1].data(), got[2].data(), n, r);
        plain_sample_kernels().ict(y.data(), cb.data(), cr.data(), want[0].data(), want[1].data(), want[2].data(), n,
                                   r);
        ASSERT_EQ(got, want) << "ICT, " << what;
        sample_kernels().floats(y.data(), got[1].data(), n, one);
        plain_sample_kernels().floats(y.data(), want[1].data(), n, one);
        ASSERT_EQ(got, want) << "floats, " << what;
      }
    }
  }
}

// The plain loops against the rules they are made of, on values whose
// results are known: both clamps, ties, NaN to the low end.
TEST(OutputKernels, PlainLoopsFollowTheRules) {
  const SampleRange r = unsigned_range(8);
  const std::vector<float> floats = {-1000.0f, 1000.0f, 0.5f, 1.5f, -0.5f, std::numeric_limits<float>::quiet_NaN()};
  std::vector<uint8_t> out(floats.size());
  plain_byte_kernels().floats(floats.data(), out.data(), static_cast<int64_t>(floats.size()), 1, r);
  EXPECT_EQ(out, (std::vector<uint8_t>{0, 255, 128, 130, 128, 0}));
  const std::vector<int32_t> ints = {-129, 128, 0, 127, std::numeric_limits<int32_t>::max()};
  std::vector<uint8_t> out_ints(ints.size());
  plain_byte_kernels().ints(ints.data(), out_ints.data(), static_cast<int64_t>(ints.size()), 1, r);
  // The last wraps past the shift to the low end, as the reference's int32 addition.
  EXPECT_EQ(out_ints, (std::vector<uint8_t>{0, 255, 128, 255, 0}));
}

}  // namespace
}  // namespace mallat::codec

// The CUDA backend must agree with the reference of Annex F: 5/3 bit-exact,
// 9/7 within 1e-5 of the largest magnitude, forward and inverse, on random
// data, for every size 1..70 in both axes, large and odd sizes, several
// origins (the parity of tcx0/tcy0 decides low/high) and 1..6 levels.
// Device buffers are poisoned before each batch so unwritten samples show.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "dwt/cuda/cuda_backend.h"
#include "dwt/dwt.h"
#include "dwt/reference.h"

namespace mallat::dwt {
namespace {

// One plane and its storage; the stride is wider than the plane so a
// backend that ignores it fails.
struct TestPlane {
  Wavelet wavelet;
  Direction direction;
  int levels;
  int64_t x0, y0, w, h;
  std::vector<int32_t> i32;
  std::vector<float> f32;

  int64_t stride() const { return w + 3; }

  PlaneJob job() {
    PlaneJob j;
    j.wavelet = wavelet;
    j.direction = direction;
    j.levels = levels;
    j.x0 = x0;
    j.y0 = y0;
    if (wavelet == Wavelet::k53)
      j.samples53 = PlaneView<int32_t>{i32.data(), w, h, stride()};
    else
      j.samples97 = PlaneView<float>{f32.data(), w, h, stride()};
    return j;
  }
};

TestPlane random_plane(Wavelet wv, Direction d, int levels, int64_t x0, int64_t y0, int64_t w,
                       int64_t h, std::mt19937& rng) {
  TestPlane p{wv, d, levels, x0, y0, w, h, {}, {}};
  const size_t n = static_cast<size_t>(p.stride() * std::max<int64_t>(h, 1));
  if (wv == Wavelet::k53) {
    // Signed 16-bit range: like a 16-bit component after the DC shift, far
    // from overflow through the lifting steps.
    std::uniform_int_distribution<int32_t> dist(-32768, 32767);
    p.i32.resize(n);
    for (auto& v : p.i32) v = dist(rng);
  } else {
    std::uniform_real_distribution<float> dist(-128.0f, 128.0f);
    p.f32.resize(n);
    for (auto& v : p.f32) v = dist(rng);
  }
  return p;
}

std::string describe(const TestPlane& p) {
  return std::string(p.wavelet == Wavelet::k53 ? "5/3 " : "9/7 ") +
         (p.direction == Direction::kForward ? "forward " : "inverse ") + std::to_string(p.w) + "x" +
         std::to_string(p.h) + " at (" + std::to_string(p.x0) + "," + std::to_string(p.y0) + "), " +
         std::to_string(p.levels) + " levels";
}

// Compares the plane's samples (not the stride padding, which must be
// untouched too) and reports the first mismatch.
::testing::AssertionResult same(const TestPlane& got, const TestPlane& want) {
  if (got.wavelet == Wavelet::k53) {
    for (size_t i = 0; i < got.i32.size(); ++i)
      if (got.i32[i] != want.i32[i]) {
        const int64_t x = static_cast<int64_t>(i) % got.stride(), y = static_cast<int64_t>(i) / got.stride();
        return ::testing::AssertionFailure() << describe(got) << ": sample (" << x << "," << y
                                             << ") is " << got.i32[i] << ", reference " << want.i32[i];
      }
    return ::testing::AssertionSuccess();
  }
  float peak = 1.0f;
  for (float v : want.f32) peak = std::max(peak, std::fabs(v));
  for (size_t i = 0; i < got.f32.size(); ++i) {
    const float err = std::fabs(got.f32[i] - want.f32[i]);
    if (!(err <= 1e-5f * peak)) {
      const int64_t x = static_cast<int64_t>(i) % got.stride(), y = static_cast<int64_t>(i) / got.stride();
      return ::testing::AssertionFailure() << describe(got) << ": sample (" << x << "," << y << ") is "
                                           << got.f32[i] << ", reference " << want.f32[i]
                                           << " (peak " << peak << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

class CudaDwt : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<Backend>> b = cuda::make_cuda_backend({.poison_device_buffers = true});
    if (!b.ok()) GTEST_SKIP() << b.status().message();
    backend_ = std::move(b).value();
  }

  // Runs the planes as one batch on the GPU and each through the reference,
  // and compares.
  void check_batch(std::vector<TestPlane>& planes) {
    std::vector<TestPlane> want = planes;
    for (TestPlane& p : want) ASSERT_TRUE(reference::transform(p.job()).ok()) << describe(p);
    std::vector<PlaneJob> jobs;
    for (TestPlane& p : planes) jobs.push_back(p.job());
    const Status st = backend_->run(jobs);
    ASSERT_TRUE(st.ok()) << st.to_string();
    for (size_t k = 0; k < planes.size(); ++k) ASSERT_TRUE(same(planes[k], want[k]));
  }

  std::unique_ptr<Backend> backend_;
};

using Case = std::tuple<Wavelet, Direction, std::pair<int, int>>;

class CudaDwtSmall : public CudaDwt, public ::testing::WithParamInterface<Case> {};

// Every width and height 1..70 at one origin, as one batch of 4900 planes
// (which also exercises the multi-stream pipeline); levels 1..6 in turn.
TEST_P(CudaDwtSmall, AllSizesUpTo70) {
  const auto [wv, d, origin] = GetParam();
  std::mt19937 rng(1234u + origin.first * 31u + origin.second);
  std::vector<TestPlane> planes;
  for (int h = 1; h <= 70; ++h)
    for (int w = 1; w <= 70; ++w)
      planes.push_back(random_plane(wv, d, 1 + (w * 7 + h) % 6, origin.first, origin.second, w, h, rng));
  check_batch(planes);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const auto [wv, d, o] = info.param;
  return std::string(wv == Wavelet::k53 ? "W53" : "W97") + (d == Direction::kForward ? "Fwd" : "Inv") +
         "_x" + std::to_string(o.first) + "y" + std::to_string(o.second);
}

INSTANTIATE_TEST_SUITE_P(
    Origins, CudaDwtSmall,
    ::testing::Combine(::testing::Values(Wavelet::k53, Wavelet::k97),
                       ::testing::Values(Direction::kForward, Direction::kInverse),
                       ::testing::Values(std::pair{0, 0}, std::pair{1, 0}, std::pair{0, 1},
                                         std::pair{1, 1}, std::pair{3, 7})),
    case_name);

using BigCase = std::tuple<Wavelet, Direction>;
class CudaDwtLarge : public CudaDwt, public ::testing::WithParamInterface<BigCase> {};

// The benchmark sizes and an odd one, each once per wavelet and direction.
TEST_P(CudaDwtLarge, VideoSizesAndOdd) {
  const auto [wv, d] = GetParam();
  std::mt19937 rng(99);
  struct Size { int64_t w, h, x0, y0; int levels; };
  for (const Size s : {Size{1920, 1080, 0, 0, 3}, Size{3840, 2160, 1, 0, 5}, Size{7680, 4320, 0, 1, 5},
                       Size{4097, 3001, 3, 7, 6}}) {
    std::vector<TestPlane> planes{random_plane(wv, d, s.levels, s.x0, s.y0, s.w, s.h, rng)};
    check_batch(planes);
  }
}

INSTANTIATE_TEST_SUITE_P(Wavelets, CudaDwtLarge,
                         ::testing::Combine(::testing::Values(Wavelet::k53, Wavelet::k97),
                                            ::testing::Values(Direction::kForward, Direction::kInverse)),
                         [](const ::testing::TestParamInfo<BigCase>& info) {
                           return std::string(std::get<0>(info.param) == Wavelet::k53 ? "W53" : "W97") +
                                  (std::get<1>(info.param) == Direction::kForward ? "Fwd" : "Inv");
                         });

// A mixed batch: 3 components of different wavelets and directions, plus an
// empty plane and a 0-level one, which must come back unchanged.
TEST_F(CudaDwt, MixedBatch) {
  std::mt19937 rng(7);
  std::vector<TestPlane> planes;
  planes.push_back(random_plane(Wavelet::k53, Direction::kForward, 4, 5, 2, 301, 177, rng));
  planes.push_back(random_plane(Wavelet::k97, Direction::kInverse, 3, 5, 2, 301, 177, rng));
  planes.push_back(random_plane(Wavelet::k97, Direction::kForward, 5, 0, 0, 640, 480, rng));
  planes.push_back(random_plane(Wavelet::k53, Direction::kInverse, 0, 1, 1, 33, 17, rng));
  planes.push_back(random_plane(Wavelet::k53, Direction::kForward, 2, 0, 0, 0, 5, rng));
  check_batch(planes);
}

// Origins far beyond 32 bits: only their parity and B-14 halvings matter,
// which the backend must take from the 64-bit coordinates.
TEST_F(CudaDwt, LargeOrigins) {
  std::mt19937 rng(13);
  std::vector<TestPlane> planes;
  const int64_t big = int64_t{1} << 33;
  planes.push_back(random_plane(Wavelet::k53, Direction::kForward, 5, big + 3, big + 1, 77, 45, rng));
  planes.push_back(random_plane(Wavelet::k97, Direction::kForward, 4, big + 1, big, 64, 33, rng));
  planes.push_back(random_plane(Wavelet::k53, Direction::kInverse, 6, big - 1, big + 5, 91, 70, rng));
  planes.push_back(random_plane(Wavelet::k97, Direction::kInverse, 3, big, big - 3, 50, 51, rng));
  check_batch(planes);
}

// A bad job is refused before any device work, as an error value.
TEST_F(CudaDwt, RejectsInvalidJob) {
  std::mt19937 rng(17);
  TestPlane p = random_plane(Wavelet::k53, Direction::kForward, 33, 0, 0, 8, 8, rng);
  const Status st = backend_->run(p.job());
  EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument) << st.to_string();
}

// 5/3 forward then inverse is the identity (the lossless path).
TEST_F(CudaDwt, RoundTrip53) {
  std::mt19937 rng(11);
  TestPlane p = random_plane(Wavelet::k53, Direction::kForward, 6, 3, 5, 1001, 777, rng);
  const std::vector<int32_t> original = p.i32;
  ASSERT_TRUE(backend_->run(p.job()).ok());
  p.direction = Direction::kInverse;
  ASSERT_TRUE(backend_->run(p.job()).ok());
  EXPECT_EQ(p.i32, original);
}

// time() leaves the planes holding one application and fills every field.
TEST_F(CudaDwt, TimeFillsTimingAndResult) {
  std::mt19937 rng(5);
  std::vector<TestPlane> planes{random_plane(Wavelet::k97, Direction::kForward, 3, 0, 0, 1920, 1080, rng),
                                random_plane(Wavelet::k53, Direction::kInverse, 5, 1, 1, 999, 555, rng)};
  std::vector<TestPlane> want = planes;
  for (TestPlane& p : want) ASSERT_TRUE(reference::transform(p.job()).ok());
  std::vector<PlaneJob> jobs;
  for (TestPlane& p : planes) jobs.push_back(p.job());
  Result<Timing> t = backend_->time(jobs, 2, 5);
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(t->run_ms.size(), 5u);
  for (double ms : t->run_ms) EXPECT_GT(ms, 0.0);
  EXPECT_GT(t->upload_ms, 0.0);
  EXPECT_GT(t->download_ms, 0.0);
  EXPECT_GT(t->copy_bytes_per_s, 1e9);
  for (size_t k = 0; k < planes.size(); ++k) EXPECT_TRUE(same(planes[k], want[k]));
}

TEST(CudaDevice, StatusNamesDeviceOrReason) {
  const std::string s = cuda::device_status();
  EXPECT_FALSE(s.empty());
  Result<int> n = cuda::device_count();
  if (!n.ok()) {
    EXPECT_NE(n.status().message().find("no CUDA device"), std::string::npos) << n.status().message();
  } else {
    EXPECT_NE(s.find("SMs"), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace mallat::dwt

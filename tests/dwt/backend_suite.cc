// The DWT suite every backend runs (backend_suite.h): against the plain
// reference of Annex F, 5/3 bit-exact and 9/7 within 1e-5 of the largest
// reference magnitude; forward, inverse (of random coefficients) and round
// trip; every width and height 1..70 at origins of every parity with 1..6
// levels, 1-sample rows and columns, 0 and far more levels than a plane has,
// video and odd large sizes, mixed batches, origins beyond 32 bits, and the
// padding beyond each row untouched. The backends run whole batches, as the
// codec hands them a tile's components.
#include "tests/dwt/backend_suite.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "dwt/reference.h"
#include "tests/dwt/dwt_test_support.h"

namespace mallat::dwt::testing {

void DwtBackendFixture::start(const BackendCase& c) {
  if (c.unavailable) {
    const std::string why = c.unavailable();
    if (!why.empty()) GTEST_SKIP() << why;
  }
  Result<std::unique_ptr<Backend>> made = c.make();
  ASSERT_TRUE(made.ok()) << c.name << ": " << made.status().to_string();
  backend_ = std::move(made).value();
  reports_transfers_ = c.reports_transfers;
  is_reference_ = c.is_reference;
}

namespace {

std::string wavelet_name(Wavelet w) { return w == Wavelet::k53 ? "W53" : "W97"; }

}  // namespace

std::string backend_test_name(const ::testing::TestParamInfo<BackendCase>& info) { return info.param.name; }

std::string wavelet_test_name(const ::testing::TestParamInfo<WaveletParam>& info) {
  return std::get<0>(info.param).name + "_" + wavelet_name(std::get<1>(info.param));
}

std::string sweep_test_name(const ::testing::TestParamInfo<SweepParam>& info) {
  const auto& [c, w, o] = info.param;
  return c.name + "_" + wavelet_name(w) + "_x" + std::to_string(o.first) + "y" + std::to_string(o.second);
}

namespace {

// One plane of either wavelet with what to do to it.
struct TestPlane {
  Wavelet wavelet;
  Direction direction;
  int levels;
  int64_t x0, y0;
  PaddedPlane<int32_t> i32{0, 0};  // 5/3
  PaddedPlane<float> f32{0, 0};    // 9/7

  PlaneJob job() {
    return wavelet == Wavelet::k53 ? job53(i32.view(), direction, levels, x0, y0)
                                   : job97(f32.view(), direction, levels, x0, y0);
  }
  std::string what() { return describe(job()); }
};

TestPlane random_plane(Wavelet wv, Direction d, int levels, int64_t x0, int64_t y0, int64_t w, int64_t h,
                       std::mt19937& rng) {
  TestPlane p{wv, d, levels, x0, y0};
  if (wv == Wavelet::k53) {
    p.i32 = PaddedPlane<int32_t>(w, h);
    fill_random(p.i32, rng);
  } else {
    p.f32 = PaddedPlane<float>(w, h);
    fill_random(p.f32, rng);
  }
  return p;
}

std::vector<PlaneJob> jobs_of(std::vector<TestPlane>& planes) {
  std::vector<PlaneJob> out;
  for (TestPlane& p : planes) out.push_back(p.job());
  return out;
}

void set_direction(std::vector<TestPlane>& planes, Direction d) {
  for (TestPlane& p : planes) p.direction = d;
}

// `got` as the backend left it against the reference's result.
::testing::AssertionResult matches_reference(TestPlane& got, const TestPlane& want, const std::string& backend) {
  return got.wavelet == Wavelet::k53
             ? agrees(got.i32, want.i32, reference_tolerance(want.i32), backend + ", " + got.what())
             : agrees(got.f32, want.f32, reference_tolerance(want.f32), backend + ", " + got.what());
}

// `got` after a forward and an inverse transform against the input.
::testing::AssertionResult reconstructs(TestPlane& got, const TestPlane& input, const std::string& backend) {
  const std::string what = backend + ", round trip of " + got.what();
  return got.wavelet == Wavelet::k53 ? agrees(got.i32, input.i32, round_trip_tolerance(input.i32), what)
                                     : agrees(got.f32, input.f32, round_trip_tolerance(input.f32), what);
}

// `got` exactly as `want`: a plane that must come back unchanged, or the
// same work done twice.
::testing::AssertionResult identical(TestPlane& got, const TestPlane& want, const std::string& what) {
  return got.wavelet == Wavelet::k53 ? agrees(got.i32, want.i32, 0, what + ", " + got.what())
                                     : agrees(got.f32, want.f32, 0, what + ", " + got.what());
}

bool padding_intact(const TestPlane& p) {
  return p.wavelet == Wavelet::k53 ? p.i32.padding_intact() : p.f32.padding_intact();
}

// Runs the planes as one batch through the backend, and each through the
// reference, and compares; `planes` keep the backend's result. The
// reference itself is not compared with itself, only checked for writes
// outside its planes.
void check_batch(const Subject& s, std::vector<TestPlane>& planes) {
  std::vector<TestPlane> want;
  if (!s.is_reference) {
    want = planes;
    for (TestPlane& p : want) ASSERT_TRUE(reference::transform(p.job()).ok()) << p.what();
  }
  const Status st = s.backend.run(jobs_of(planes));
  ASSERT_TRUE(st.ok()) << s.backend.name() << ": " << st.to_string();
  for (size_t k = 0; k < planes.size(); ++k) {
    if (s.is_reference) {
      ASSERT_TRUE(padding_intact(planes[k])) << s.backend.name() << ", " << planes[k].what()
                                             << ": wrote outside the plane";
    } else {
      ASSERT_TRUE(matches_reference(planes[k], want[k], s.backend.name()));
    }
  }
}

// Forward against the reference, the backend's inverse of its own forward
// result back to the input, and the inverse of the input taken as
// coefficients against the reference; all as whole batches.
void check_both_directions(const Subject& s, const std::vector<TestPlane>& input) {
  {
    std::vector<TestPlane> planes = input;
    set_direction(planes, Direction::kForward);
    ASSERT_NO_FATAL_FAILURE(check_batch(s, planes));
    set_direction(planes, Direction::kInverse);
    const Status st = s.backend.run(jobs_of(planes));
    ASSERT_TRUE(st.ok()) << s.backend.name() << ": " << st.to_string();
    for (size_t k = 0; k < planes.size(); ++k) ASSERT_TRUE(reconstructs(planes[k], input[k], s.backend.name()));
  }
  std::vector<TestPlane> coefficients = input;
  set_direction(coefficients, Direction::kInverse);
  ASSERT_NO_FATAL_FAILURE(check_batch(s, coefficients));
}

// Every width and height 1..70 at one origin, one batch of 4900 planes at a
// time (on a GPU this also exercises the multi-stream pipeline). 5/3: each
// level count 1..6 in turn. 9/7, slower: two batches of mixed level counts,
// 1 + (7w + h + y0) mod 5 and 1 + (7w + h) mod 6.
TEST_P(DwtBackendSweep, AllSizesUpTo70) {
  const auto& [c, wv, origin] = GetParam();
  const auto [x0, y0] = origin;
  constexpr int64_t kMaxSize = 70;
  const int batches = wv == Wavelet::k53 ? 6 : 2;
  auto levels_of = [&](int batch, int64_t w, int64_t h) {
    if (wv == Wavelet::k53) return batch + 1;
    return static_cast<int>(batch == 0 ? 1 + (w * 7 + h + y0) % 5 : 1 + (w * 7 + h) % 6);
  };
  std::mt19937 rng(static_cast<unsigned>(1234 + 31 * x0 + y0 + (wv == Wavelet::k97 ? 7 : 0)));
  int planes_checked = 0;
  for (int batch = 0; batch < batches; ++batch) {
    std::vector<TestPlane> input;
    for (int64_t h = 1; h <= kMaxSize; ++h)
      for (int64_t w = 1; w <= kMaxSize; ++w)
        input.push_back(random_plane(wv, Direction::kForward, levels_of(batch, w, h), x0, y0, w, h, rng));
    ASSERT_NO_FATAL_FAILURE(check_both_directions(subject(), input));
    planes_checked += static_cast<int>(input.size());
  }
  EXPECT_EQ(planes_checked, batches * kMaxSize * kMaxSize);
}

// More levels than the size allows: the extra levels see empty or
// single-sample regions. 0 levels leave the plane as it is.
TEST_P(DwtBackendWavelet, ManyLevels) {
  std::mt19937 rng(32);
  for (const auto& [x0, y0] : {std::pair<int64_t, int64_t>{7, 3}, {0, 0}}) {
    for (int levels : {0, 6, 11, 32}) {
      std::vector<TestPlane> input;
      for (auto [w, h] : {std::pair<int64_t, int64_t>{3, 2}, {1, 1}, {1, 50}, {50, 1}, {100, 9}})
        input.push_back(random_plane(wavelet(), Direction::kForward, levels, x0, y0, w, h, rng));
      ASSERT_NO_FATAL_FAILURE(check_both_directions(subject(), input));
      if (levels == 0) {
        std::vector<TestPlane> planes = input;
        ASSERT_TRUE(backend_->run(jobs_of(planes)).ok());
        for (size_t k = 0; k < planes.size(); ++k) ASSERT_TRUE(identical(planes[k], input[k], "0 levels"));
      }
    }
  }
}

// The benchmark sizes and an odd one, each on its own, both directions.
TEST_P(DwtBackendWavelet, VideoSizesAndOdd) {
  std::mt19937 rng(99);
  struct Size { int64_t w, h, x0, y0; int levels; };
  for (const Size s : {Size{1920, 1080, 0, 0, 3}, Size{3840, 2160, 1, 0, 5}, Size{7680, 4320, 0, 1, 5},
                       Size{4097, 3001, 3, 7, 6}}) {
    std::vector<TestPlane> input{random_plane(wavelet(), Direction::kForward, s.levels, s.x0, s.y0, s.w, s.h, rng)};
    ASSERT_NO_FATAL_FAILURE(check_both_directions(subject(), input));
  }
}

// Forward then inverse gives the input back (for 5/3 exactly: the lossless path).
TEST_P(DwtBackendWavelet, RoundTrip) {
  std::mt19937 rng(11);
  std::vector<TestPlane> input{random_plane(wavelet(), Direction::kForward, 6, 3, 5, 1001, 777, rng)};
  ASSERT_NO_FATAL_FAILURE(check_both_directions(subject(), input));
}

// A mixed batch: 3 components of different wavelets and directions, plus an
// empty plane and a 0-level one, which must come back unchanged.
TEST_P(DwtBackend, MixedBatch) {
  std::mt19937 rng(7);
  std::vector<TestPlane> planes;
  planes.push_back(random_plane(Wavelet::k53, Direction::kForward, 4, 5, 2, 301, 177, rng));
  planes.push_back(random_plane(Wavelet::k97, Direction::kInverse, 3, 5, 2, 301, 177, rng));
  planes.push_back(random_plane(Wavelet::k97, Direction::kForward, 5, 0, 0, 640, 480, rng));
  planes.push_back(random_plane(Wavelet::k53, Direction::kInverse, 0, 1, 1, 33, 17, rng));
  planes.push_back(random_plane(Wavelet::k53, Direction::kForward, 2, 0, 0, 0, 5, rng));
  const std::vector<TestPlane> input = planes;
  ASSERT_NO_FATAL_FAILURE(check_batch(subject(), planes));
  for (size_t k : {3, 4}) ASSERT_TRUE(identical(planes[k], input[k], "unchanged"));
}

// Origins far beyond 32 bits: only their parity and B-14 halvings matter,
// which the backend must take from the 64-bit coordinates.
TEST_P(DwtBackend, LargeOrigins) {
  std::mt19937 rng(13);
  std::vector<TestPlane> planes;
  const int64_t big = int64_t{1} << 33;
  planes.push_back(random_plane(Wavelet::k53, Direction::kForward, 5, big + 3, big + 1, 77, 45, rng));
  planes.push_back(random_plane(Wavelet::k97, Direction::kForward, 4, big + 1, big, 64, 33, rng));
  planes.push_back(random_plane(Wavelet::k53, Direction::kInverse, 6, big - 1, big + 5, 91, 70, rng));
  planes.push_back(random_plane(Wavelet::k97, Direction::kInverse, 3, big, big - 3, 50, 51, rng));
  ASSERT_NO_FATAL_FAILURE(check_batch(subject(), planes));
}

// A bad job is refused, as an error value, before anything touches the plane.
TEST_P(DwtBackend, RejectsInvalidJob) {
  std::mt19937 rng(17);
  TestPlane p = random_plane(Wavelet::k53, Direction::kForward, 33, 0, 0, 8, 8, rng);
  const TestPlane input = p;
  const Status st = backend_->run(p.job());
  EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument) << st.to_string();
  EXPECT_TRUE(identical(p, input, "refused"));
}

// time() leaves the planes holding exactly one application (the result of
// run(), to the bit) and reports every timed run; a GPU backend also the
// transfers and the copy bandwidth, a host one leaves those at zero.
TEST_P(DwtBackend, TimeLeavesOneApplication) {
  std::mt19937 rng(5);
  std::vector<TestPlane> input{random_plane(Wavelet::k97, Direction::kForward, 3, 0, 0, 1920, 1080, rng),
                               random_plane(Wavelet::k53, Direction::kInverse, 5, 1, 1, 999, 555, rng),
                               random_plane(Wavelet::k53, Direction::kForward, 3, 1, 2, 64, 48, rng)};
  std::vector<TestPlane> once = input;
  ASSERT_NO_FATAL_FAILURE(check_batch(subject(), once));

  std::vector<TestPlane> timed = input;
  const std::vector<PlaneJob> jobs = jobs_of(timed);
  Result<Timing> t = backend_->time(jobs, 2, 5);
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(t->run_ms.size(), 5u);
  for (double ms : t->run_ms) EXPECT_GT(ms, 0.0);
  if (reports_transfers_) {
    EXPECT_GT(t->upload_ms, 0.0);
    EXPECT_GT(t->download_ms, 0.0);
    EXPECT_GT(t->copy_bytes_per_s, 1e9);
  } else {
    EXPECT_EQ(t->upload_ms, 0.0);
    EXPECT_EQ(t->download_ms, 0.0);
    EXPECT_EQ(t->copy_bytes_per_s, 0.0);
  }
  for (size_t k = 0; k < timed.size(); ++k) EXPECT_TRUE(identical(timed[k], once[k], "time() against run()"));
}

}  // namespace
}  // namespace mallat::dwt::testing

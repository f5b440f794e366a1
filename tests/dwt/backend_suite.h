// One DWT test suite that every backend runs (backend_suite.cc): each
// backend against the plain reference (dwt/reference.h), 5/3 bit-exact and
// 9/7 within dwt_test_support.h's tolerance, forward, inverse and round trip.
//
// A test binary runs the suite on its backends with
//   MALLAT_INSTANTIATE_DWT_BACKEND_SUITE(Prefix, function returning std::vector<BackendCase>);
// tests/dwt/host_backends_test.cc does it for the reference and the CPU
// kernel variants (binary dwt_test), tests/dwt_cuda/dwt_cuda_test.cc for the
// CUDA backend (binary dwt_cuda_test, CTest label gpu). Adding a backend is
// one more BackendCase in one of those lists, or a new binary with its own.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "dwt/dwt.h"

namespace mallat::dwt {

// For GoogleTest's parameter listings and messages.
inline void PrintTo(Wavelet w, std::ostream* os) { *os << (w == Wavelet::k53 ? "5/3" : "9/7"); }

}  // namespace mallat::dwt

namespace mallat::dwt::testing {

struct BackendCase {
  // The test-name suffix: letters and digits only.
  std::string name;
  // Empty where this machine can run the backend, else why not, starting
  // "no CUDA device: " or the like; its tests then skip with that message.
  // Only a backend that needs hardware a machine may lack may say so.
  std::function<std::string()> unavailable;
  std::function<Result<std::unique_ptr<Backend>>()> make;
  // time() measures uploads, downloads and the copy bandwidth (a GPU);
  // otherwise it leaves them at zero.
  bool reports_transfers = false;
  // The reference itself: comparing it with itself shows nothing, so its
  // instances check the rest (round trips, batches, padding, time()).
  bool is_reference = false;
};

inline void PrintTo(const BackendCase& c, std::ostream* os) { *os << c.name; }

// Tile-component origins of the size sweep: every parity of x0 and y0, and
// two odd ones whose parity changes differently from level to level.
inline const std::vector<std::pair<int64_t, int64_t>>& sweep_origins() {
  static const std::vector<std::pair<int64_t, int64_t>> origins{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {3, 5}, {3, 7}};
  return origins;
}

// The backend under test, and whether it is the reference itself.
struct Subject {
  Backend& backend;
  bool is_reference;
};

// Makes the parameter's backend in SetUp, or skips saying why it cannot.
class DwtBackendFixture : public ::testing::Test {
 protected:
  void start(const BackendCase& c);
  Subject subject() { return Subject{*backend_, is_reference_}; }
  std::unique_ptr<Backend> backend_;
  bool reports_transfers_ = false;
  bool is_reference_ = false;
};

class DwtBackend : public DwtBackendFixture, public ::testing::WithParamInterface<BackendCase> {
 protected:
  void SetUp() override { start(GetParam()); }
};

using WaveletParam = std::tuple<BackendCase, Wavelet>;
class DwtBackendWavelet : public DwtBackendFixture, public ::testing::WithParamInterface<WaveletParam> {
 protected:
  void SetUp() override { start(std::get<0>(GetParam())); }
  Wavelet wavelet() const { return std::get<1>(GetParam()); }
};

using SweepParam = std::tuple<BackendCase, Wavelet, std::pair<int64_t, int64_t>>;
class DwtBackendSweep : public DwtBackendFixture, public ::testing::WithParamInterface<SweepParam> {
 protected:
  void SetUp() override { start(std::get<0>(GetParam())); }
};

std::string backend_test_name(const ::testing::TestParamInfo<BackendCase>& info);
std::string wavelet_test_name(const ::testing::TestParamInfo<WaveletParam>& info);
std::string sweep_test_name(const ::testing::TestParamInfo<SweepParam>& info);

}  // namespace mallat::dwt::testing

// `cases` is called when the tests are registered, so a list may depend on
// the machine (the CPU's instruction sets).
#define MALLAT_INSTANTIATE_DWT_BACKEND_SUITE(prefix, cases)                                             \
  INSTANTIATE_TEST_SUITE_P(prefix, DwtBackend, ::testing::ValuesIn(cases()),                            \
                           ::mallat::dwt::testing::backend_test_name);                                 \
  INSTANTIATE_TEST_SUITE_P(                                                                             \
      prefix, DwtBackendWavelet,                                                                        \
      ::testing::Combine(::testing::ValuesIn(cases()),                                                  \
                         ::testing::Values(::mallat::dwt::Wavelet::k53, ::mallat::dwt::Wavelet::k97)), \
      ::mallat::dwt::testing::wavelet_test_name);                                                       \
  INSTANTIATE_TEST_SUITE_P(                                                                             \
      prefix, DwtBackendSweep,                                                                          \
      ::testing::Combine(::testing::ValuesIn(cases()),                                                  \
                         ::testing::Values(::mallat::dwt::Wavelet::k53, ::mallat::dwt::Wavelet::k97),  \
                         ::testing::ValuesIn(::mallat::dwt::testing::sweep_origins())),                 \
      ::mallat::dwt::testing::sweep_test_name)

// Helpers shared by the io tests: shared-data paths, sample access, random images.
#pragma once

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "common/image.h"
#include "tests/testdata.h"

namespace mallat::testing {

inline std::filesystem::path image_path(const std::string& name) {
  return testdata_dir() / "images" / name;
}
inline std::filesystem::path png_path(const std::string& name) {
  return testdata_dir() / "images" / "pngsuite" / name;
}
inline std::filesystem::path reference_path(const std::string& name) {
  return testdata_dir() / "conformance" / "reference" / name;
}

inline int32_t sample(const Image& image, int c, int64_t x, int64_t y) {
  const Component& comp = image.components[c];
  return comp.samples[y * comp.width + x];
}

// n components of uniformly random samples in the range of `precision` bits.
inline Image random_image(int64_t w, int64_t h, int n, int precision, bool is_signed,
                          uint32_t seed) {
  Image image;
  image.components.resize(n);
  std::mt19937 rng(seed);
  for (Component& c : image.components) {
    c.width = w;
    c.height = h;
    c.precision = precision;
    c.is_signed = is_signed;
    std::uniform_int_distribution<int32_t> dist(c.min_value(), c.max_value());
    c.samples.resize(w * h);
    for (int32_t& v : c.samples) v = dist(rng);
  }
  image.color_space = n <= 2 ? ColorSpace::kGray : ColorSpace::kRgb;
  image.has_alpha = n == 2 || n == 4;
  return image;
}

// A fixture with a fresh temporary folder per test, removed afterwards.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir(std::string("io-") +
                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

}  // namespace mallat::testing

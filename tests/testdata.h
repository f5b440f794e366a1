// Where the shared test data lives. A test that needs it fails (never skips)
// when the folder is missing, so CI cannot pass without it.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <unistd.h>

namespace mallat::testing {

inline std::filesystem::path testdata_dir() { return MALLAT_TESTDATA_DIR; }

// Fails the current test when the test data folder or `sub` inside it is missing.
#define MALLAT_REQUIRE_TESTDATA(sub)                                                   \
  do {                                                                                 \
    auto mallat_td_ = ::mallat::testing::testdata_dir() / (sub);                       \
    ASSERT_TRUE(std::filesystem::exists(mallat_td_))                                   \
        << "test data missing: " << mallat_td_                                         \
        << " (set -DMALLAT_TESTDATA_DIR=... to the shared testdata folder)";           \
  } while (0)

// A fresh, empty temporary folder for one test.
inline std::filesystem::path make_temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("mallat-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace mallat::testing

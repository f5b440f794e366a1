// Helpers for the interoperability tests: run OpenJPEG's command-line tools
// and read what they write. The README's set-up installs them; a missing
// tool fails the test (it is never skipped).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "common/image.h"
#include "io/image_io.h"

namespace mallat::testing {

inline bool have_program(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

// Runs a shell command, returning its exit status; output goes to `log`.
inline int run_command(const std::string& command, const std::filesystem::path& log) {
  const std::string full = command + " >" + log.string() + " 2>&1";
  int rc = std::system(full.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// opj_decompress writes one PGX per component as <stem>_<c>.pgx; read them
// back into one image.
inline Result<Image> read_pgx_components(const std::filesystem::path& dir, const std::string& stem,
                                         int count) {
  Image image;
  for (int c = 0; c < count; ++c) {
    auto one = io::read_image(dir / (stem + "_" + std::to_string(c) + ".pgx"));
    if (!one.ok()) return one.status();
    image.components.push_back(std::move(one->components[0]));
  }
  return image;
}

}  // namespace mallat::testing

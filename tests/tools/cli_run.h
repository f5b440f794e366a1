// Running the mallat binary from a test: the exit status and everything it
// printed.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/wait.h>

namespace mallat::testing {

inline const std::string kMallat = std::string(MALLAT_BINARY_DIR) + "/tools/mallat";

// Runs mallat with `args`; returns the exit status and the combined output
// (kept in `dir`/out.txt).
inline int run_mallat(const std::string& args, std::string* output, const std::filesystem::path& dir) {
  const std::filesystem::path log = dir / "out.txt";
  int rc = std::system((kMallat + " " + args + " >" + log.string() + " 2>&1").c_str());
  std::ifstream in(log);
  output->assign(std::istreambuf_iterator<char>(in), {});
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace mallat::testing

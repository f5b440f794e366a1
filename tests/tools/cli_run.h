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

// A command's output without its last two lines (a batch's summary, with
// times) and with `from` replaced by `to` (an output folder's name).
inline std::string without_summary(std::string text, const std::string& from, const std::string& to) {
  for (int line = 0; line < 2 && !text.empty(); ++line) {
    text.pop_back();
    const size_t end = text.rfind('\n');
    text.erase(end == std::string::npos ? 0 : end + 1);
  }
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace mallat::testing

// Small helpers shared by the codec tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace mallat::codec::testing {

inline std::vector<uint8_t> read_bytes(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// Conformance codestreams sorted by name: p0_*.j2k and p1_*.j2k.
inline std::vector<std::filesystem::path> files_with_extension(const std::filesystem::path& dir, const std::string& ext) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace mallat::codec::testing

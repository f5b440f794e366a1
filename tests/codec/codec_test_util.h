// Small helpers shared by the codec tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <tuple>
#include <utility>
#include <vector>

#include "codec/api/encode.h"

namespace mallat::codec::testing {

// Tiles cut on every side: 64 x 48 tiles from (3, 2) on an image from
// (7, 5), 4 resolutions; the 9/7 at 20:1.
inline EncodeOptions cut_tiles(bool reversible) {
  EncodeOptions o;
  o.reversible = reversible;
  o.resolutions = 4;
  std::tie(o.tile_width, o.tile_height, o.tile_x0, o.tile_y0) = std::tuple(64u, 48u, 3u, 2u);
  std::tie(o.image_x0, o.image_y0) = std::pair(7u, 5u);
  if (!reversible) {
    o.rate_kind = EncodeOptions::RateKind::kRatio;
    o.rate_values = {20};
  }
  return o;
}

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

#include "tools/encode_feature_args.h"

#include <cctype>
#include <charconv>

namespace mallat::tools {

namespace {

// A decimal number in lo..hi that is the whole of `s`.
bool whole_number(std::string_view s, int lo, int hi, int* out) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi) return false;
  *out = v;
  return true;
}

std::vector<std::string_view> split(std::string_view s, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t at = s.find(separator); at != std::string_view::npos; at = s.find(separator, start)) {
    parts.push_back(s.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(s.substr(start));
  return parts;
}

bool order_named(std::string_view name, codec::ProgressionOrder* out) {
  static constexpr std::string_view kNames[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
  for (int i = 0; i < 5; ++i) {
    if (name == kNames[i]) {
      *out = static_cast<codec::ProgressionOrder>(i);
      return true;
    }
  }
  return false;
}

}  // namespace

std::string parse_poc(const std::string& value, std::map<int, std::vector<codec::ProgressionChange>>* out) {
  for (std::string_view item : split(value, '/')) {
    const std::string bad = "-POC needs T<tile>=<resStart>,<compStart>,<layerEnd>,<resEnd>,<compEnd>,<order> "
                            "with tiles from 1, resolutions 0..33, components 0..16384, layers 1..65535, "
                            "RSpoc < REpoc and CSpoc < CEpoc; got '" + std::string(item) + "'";
    const size_t equals = item.find('=');
    int tile = 0;
    if (item.size() < 2 || item[0] != 'T' || equals == std::string_view::npos ||
        !whole_number(item.substr(1, equals - 1), 1, 65535, &tile))
      return bad;
    const std::vector<std::string_view> fields = split(item.substr(equals + 1), ',');
    codec::ProgressionChange c;
    if (fields.size() != 6 || !whole_number(fields[0], 0, 32, &c.resolution_start) ||
        !whole_number(fields[1], 0, 16383, &c.component_start) || !whole_number(fields[2], 1, 65535, &c.layer_end) ||
        !whole_number(fields[3], 1, 33, &c.resolution_end) || !whole_number(fields[4], 1, 16384, &c.component_end) ||
        !order_named(fields[5], &c.order) || c.resolution_start >= c.resolution_end ||
        c.component_start >= c.component_end)
      return bad;
    (*out)[tile - 1].push_back(c);
  }
  return "";
}

std::string parse_tile_parts(const std::string& value, codec::TilePartDivision* out) {
  using Division = codec::TilePartDivision;
  if (value == "R") *out = Division::kResolution;
  else if (value == "L") *out = Division::kLayer;
  else if (value == "C") *out = Division::kComponent;
  else return "-TP must be R, L or C, got '" + value + "'";
  return "";
}

std::string parse_roi(const std::string& value, std::vector<codec::RegionOfInterest>* out) {
  const std::string bad = "-ROI needs c=<component>,U=<shift> with a component 0..16383 and a shift 0..37, got '" +
                          value + "'";
  const std::vector<std::string_view> fields = split(value, ',');
  codec::RegionOfInterest roi;
  if (fields.size() != 2 || !fields[0].starts_with("c=") || !fields[1].starts_with("U=") ||
      !whole_number(fields[0].substr(2), 0, 16383, &roi.component) ||
      !whole_number(fields[1].substr(2), 0, 37, &roi.shift))
    return bad;
  for (const codec::RegionOfInterest& r : *out)
    if (r.component == roi.component) return "-ROI: component " + std::to_string(roi.component) + " given twice";
  out->push_back(roi);
  return "";
}

namespace {

std::string set_profile(const codec::Profile& p, codec::Profile* out) {
  if (out->kind != codec::ProfileKind::kNone && !(*out == p))
    return "profiles exclude each other: " + codec::profile_name(*out) + " and " + codec::profile_name(p);
  *out = p;
  return "";
}

}  // namespace

std::string parse_cinema(codec::ProfileKind kind, const std::string& value, codec::Profile* out) {
  codec::Profile p;
  p.kind = kind;
  p.frame_rate = 24;
  if (kind == codec::ProfileKind::kCinema2K && !whole_number(value, 24, 48, &p.frame_rate)) p.frame_rate = 0;
  if (p.frame_rate != 24 && p.frame_rate != 48) return "-cinema2K needs 24 or 48 (frames a second), got '" + value + "'";
  return set_profile(p, out);
}

std::string parse_imf(const std::string& value, codec::Profile* out) {
  const std::string bad = "-IMF needs PROFILE[,MAINLEVEL=0..11][,SUBLEVEL=0..9][,FRAMERATE=F] with PROFILE one of "
                          "2K, 4K, 8K, 2K_R, 4K_R, 8K_R; got '" + value + "'";
  static constexpr std::string_view kNames[] = {"2K", "4K", "8K", "2K_R", "4K_R", "8K_R"};
  const std::vector<std::string_view> fields = split(value, ',');
  codec::Profile p;
  for (int i = 0; i < 6; ++i)
    if (fields[0] == kNames[i]) p.kind = static_cast<codec::ProfileKind>(static_cast<int>(codec::ProfileKind::kImf2K) + i);
  if (p.kind == codec::ProfileKind::kNone) return bad;
  for (size_t f = 1; f < fields.size(); ++f) {
    const size_t equals = fields[f].find('=');
    if (equals == std::string_view::npos) return bad;
    std::string key(fields[f].substr(0, equals));
    for (char& ch : key) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    const std::string_view number = fields[f].substr(equals + 1);
    int* field = key == "MAINLEVEL" ? &p.main_level : key == "SUBLEVEL" ? &p.sub_level
                                                   : key == "FRAMERATE" ? &p.frame_rate : nullptr;
    const int hi = key == "MAINLEVEL" ? 11 : key == "SUBLEVEL" ? 9 : 1000;
    if (!field || !whole_number(number, key == "FRAMERATE" ? 1 : 0, hi, field)) return bad;
  }
  return set_profile(p, out);
}

}  // namespace mallat::tools

#include "tools/option_values.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace mallat::tools {

bool parse_int(const std::string& s, int64_t lo, int64_t hi, int64_t* out) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool parse_byte_size(std::string s, uint64_t* out) {
  int shift = 0;
  if (!s.empty()) {
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(s.back())));
    shift = unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0;
    if (shift) s.pop_back();
  }
  int64_t v = 0;
  if (!parse_int(s, 1, (int64_t{1} << 62) >> shift, &v)) return false;
  *out = static_cast<uint64_t>(v) << shift;
  return true;
}

bool parse_pair(const std::string& s, int64_t lo, int64_t hi, int64_t* a, int64_t* b) {
  auto comma = s.find(',');
  if (comma == std::string::npos) return false;
  return parse_int(s.substr(0, comma), lo, hi, a) && parse_int(s.substr(comma + 1), lo, hi, b);
}

int log2_exact(int64_t v) {
  if (v <= 0 || (v & (v - 1))) return -1;
  int n = 0;
  while ((int64_t{1} << n) < v) ++n;
  return n;
}

// gcc 13 at -O3 reports a false -Wstringop-overflow inside vector's
// reallocation for the push_back below ("writing 1 byte into a region of
// size 0"); gcc 12 and clang do not. Silenced for this function only.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 13
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
bool parse_precincts(const std::string& s, std::vector<std::array<uint8_t, 2>>* out) {
  size_t pos = 0;
  while (pos < s.size()) {
    if (s[pos] == ',') ++pos;
    if (pos >= s.size() || s[pos] != '[') return false;
    auto close = s.find(']', pos);
    if (close == std::string::npos) return false;
    int64_t w, h;
    if (!parse_pair(s.substr(pos + 1, close - pos - 1), 1, 1 << 15, &w, &h)) return false;
    int ew = log2_exact(w), eh = log2_exact(h);
    if (ew < 0 || eh < 0) return false;
    out->push_back({static_cast<uint8_t>(ew), static_cast<uint8_t>(eh)});
    pos = close + 1;
  }
  return !out->empty();
}
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 13
#pragma GCC diagnostic pop
#endif

bool parse_ints(const std::string& s, int64_t lo, int64_t hi, std::vector<int>* out) {
  out->clear();
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    int64_t v = 0;
    if (!parse_int(s.substr(pos, comma - pos), lo, hi, &v)) return false;
    out->push_back(static_cast<int>(v));
    pos = comma + 1;
  }
  return !out->empty();
}

bool parse_doubles(const std::string& s, std::vector<double>* out) {
  out->clear();
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    const std::string item = s.substr(pos, comma - pos);
    double v = 0;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || p != item.data() + item.size() || !(v >= 0) || v > 1e9) return false;
    out->push_back(v);
    pos = comma + 1;
  }
  return !out->empty();
}

bool parse_order(const std::string& s, codec::ProgressionOrder* out) {
  static const char* kNames[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
  for (int i = 0; i < 5; ++i) {
    if (s == kNames[i]) {
      *out = static_cast<codec::ProgressionOrder>(i);
      return true;
    }
  }
  return false;
}

Status usage_status(const std::string& error) {
  return error.empty() ? Status::Ok() : invalid_argument(error);
}

Status parse_threads(const std::string& value, int* threads) {
  int64_t n;
  if (!parse_int(value, 1, 1024, &n)) return invalid_argument("-threads must be 1..1024, got '" + value + "'");
  *threads = static_cast<int>(n);
  return Status::Ok();
}

Status parse_backend(const std::string& value, dwt::BackendKind* backend) {
  auto kind = dwt::parse_backend_kind(value);
  if (!kind.ok()) return kind.status().with_context("--device");
  *backend = *kind;
  return Status::Ok();
}

Status parse_max_memory(const std::string& value, uint64_t* bytes) {
  if (parse_byte_size(value, bytes)) return Status::Ok();
  return invalid_argument("--max-memory must be a size in bytes such as 512M or 4G, got '" + value + "'");
}

bool ends_with_ci(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  return std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(),
                    [](char a, char b) { return std::tolower(a) == std::tolower(b); });
}

codec::Container output_container(const std::string& out) {
  if (ends_with_ci(out, ".jp2")) return codec::Container::kJp2;
  if (ends_with_ci(out, ".jph")) return codec::Container::kJph;
  if (ends_with_ci(out, ".j2k") || ends_with_ci(out, ".j2c") || ends_with_ci(out, ".jhc"))
    return codec::Container::kCodestream;
  return codec::Container::kUnknown;
}
std::string bad_output_extension(const std::string& out) {
  return "output '" + out + "' must end in .j2k, .j2c, .jhc (codestreams), .jp2 or .jph (files)";
}


}  // namespace mallat::tools

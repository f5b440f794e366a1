// A cursor over the ASCII header of a PNM or PGX file: whitespace, optional
// '#' comments (PNM), and decimal numbers bounded so that they cannot
// overflow later size arithmetic.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "common/status.h"

namespace mallat::io {

class TextHeader {
 public:
  TextHeader(std::span<const uint8_t> bytes, bool hash_comments)
      : bytes_(bytes), comments_(hash_comments) {}

  size_t pos() const { return pos_; }
  void set_pos(size_t pos) { pos_ = pos; }
  bool at_end() const { return pos_ >= bytes_.size(); }
  int peek() const { return at_end() ? -1 : bytes_[pos_]; }
  void advance() { ++pos_; }

  static bool is_space(int c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  }

  // Skips whitespace and, where enabled, comments from '#' to the end of the line.
  // Returns whether anything was skipped.
  bool skip_space() {
    size_t start = pos_;
    while (!at_end()) {
      int c = peek();
      if (is_space(c)) {
        ++pos_;
      } else if (comments_ && c == '#') {
        while (!at_end() && peek() != '\n' && peek() != '\r') ++pos_;
      } else {
        break;
      }
    }
    return pos_ != start;
  }

  // Skips space, then reads an unsigned decimal number no larger than `limit`.
  // `what` names the field in the error message.
  Result<uint64_t> number(const char* what, uint64_t limit) {
    skip_space();
    if (at_end()) return corrupt_data(std::string("the header ends before the ") + what);
    if (peek() < '0' || peek() > '9')
      return corrupt_data(std::string("expected a number for the ") + what);
    uint64_t value = 0;
    while (!at_end() && peek() >= '0' && peek() <= '9') {
      value = value * 10 + static_cast<uint64_t>(peek() - '0');
      if (value > limit)
        return corrupt_data(std::string("the ") + what + " exceeds " + std::to_string(limit));
      ++pos_;
    }
    return value;
  }

 private:
  std::span<const uint8_t> bytes_;
  bool comments_;
  size_t pos_ = 0;
};

}  // namespace mallat::io

// A bounded big-endian reader over one span of bytes (a marker segment, a
// box, a whole codestream). It never reads past its span: a read that would
// overrun returns 0, sets a sticky error flag and leaves the position at the
// end, so a parser can read a group of fields and check ok() once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "common/status.h"

namespace mallat::codec {

class ByteReader {
 public:
  ByteReader() = default;
  // `base_offset` is where data[0] sits in the enclosing file, so that
  // offset() and error messages give file positions.
  explicit ByteReader(std::span<const uint8_t> data, size_t base_offset = 0)
      : data_(data), base_(base_offset) {}

  uint8_t u8();
  uint16_t u16();
  uint32_t u32();
  uint64_t u64();
  // The next n bytes, or an empty span (and the error flag) if fewer remain.
  std::span<const uint8_t> bytes(size_t n);
  void skip(size_t n);
  // A reader over the next n bytes (clipped to what remains, setting the
  // error flag if clipped); this reader moves past them.
  ByteReader sub(size_t n);

  // Peeks do not move and do not set the error flag.
  bool can_peek_u16() const { return remaining() >= 2; }
  uint16_t peek_u16() const;

  size_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ == data_.size(); }
  size_t position() const { return pos_; }            // within this span
  size_t offset() const { return base_ + pos_; }       // within the file
  size_t base_offset() const { return base_; }
  size_t size() const { return data_.size(); }
  std::span<const uint8_t> data() const { return data_; }
  std::span<const uint8_t> rest() const { return data_.subspan(pos_); }
  void seek(size_t position);  // within this span; past the end sets the error flag
  bool ok() const { return !overrun_; }

 private:
  bool take(size_t n);

  std::span<const uint8_t> data_;
  size_t base_ = 0;
  size_t pos_ = 0;
  bool overrun_ = false;
};

// "<what> at byte <offset>: <message>", the shape of every codestream error.
Status corrupt_at(std::string_view what, size_t offset, std::string_view message);

}  // namespace mallat::codec

// A growing big-endian byte buffer, with patching of fields whose value is
// known only later (marker segment lengths, Psot, box lengths).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace mallat::codec {

class ByteWriter {
 public:
  void u8(uint8_t v) { buf_.push_back(v); }
  void u16(uint16_t v);
  void u32(uint32_t v);
  void u64(uint64_t v);
  void bytes(std::span<const uint8_t> b) { buf_.insert(buf_.end(), b.begin(), b.end()); }

  void patch_u16(size_t at, uint16_t v);
  void patch_u32(size_t at, uint32_t v);
  // Overwrites b.size() bytes at `at` (which must already be written).
  void patch_bytes(size_t at, std::span<const uint8_t> b);

  size_t size() const { return buf_.size(); }
  const std::vector<uint8_t>& data() const { return buf_; }
  std::vector<uint8_t> take() { return std::move(buf_); }

 private:
  std::vector<uint8_t> buf_;
};

}  // namespace mallat::codec

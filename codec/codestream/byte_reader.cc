#include "codec/codestream/byte_reader.h"

namespace mallat::codec {

bool ByteReader::take(size_t n) {
  if (n > remaining()) {
    pos_ = data_.size();
    overrun_ = true;
    return false;
  }
  return true;
}

uint8_t ByteReader::u8() {
  if (!take(1)) return 0;
  return data_[pos_++];
}

uint16_t ByteReader::u16() {
  if (!take(2)) return 0;
  uint16_t v = static_cast<uint16_t>(data_[pos_] << 8 | data_[pos_ + 1]);
  pos_ += 2;
  return v;
}

uint32_t ByteReader::u32() {
  if (!take(4)) return 0;
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = v << 8 | data_[pos_ + i];
  pos_ += 4;
  return v;
}

uint64_t ByteReader::u64() {
  if (!take(8)) return 0;
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | data_[pos_ + i];
  pos_ += 8;
  return v;
}

std::span<const uint8_t> ByteReader::bytes(size_t n) {
  if (!take(n)) return {};
  auto s = data_.subspan(pos_, n);
  pos_ += n;
  return s;
}

void ByteReader::skip(size_t n) {
  if (take(n)) pos_ += n;
}

ByteReader ByteReader::sub(size_t n) {
  size_t start = pos_;
  size_t len = n <= remaining() ? n : remaining();
  ByteReader r(data_.subspan(start, len), base_ + start);
  if (len < n) {
    overrun_ = true;
    r.overrun_ = true;
  }
  pos_ += len;
  return r;
}

uint16_t ByteReader::peek_u16() const {
  if (remaining() < 2) return 0;
  return static_cast<uint16_t>(data_[pos_] << 8 | data_[pos_ + 1]);
}

void ByteReader::seek(size_t position) {
  if (position > data_.size()) {
    pos_ = data_.size();
    overrun_ = true;
  } else {
    pos_ = position;
  }
}

Status corrupt_at(std::string_view what, size_t offset, std::string_view message) {
  std::string m(what);
  m += " at byte ";
  m += std::to_string(offset);
  m += ": ";
  m += message;
  return corrupt_data(std::move(m));
}

}  // namespace mallat::codec

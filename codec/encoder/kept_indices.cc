#include "codec/encoder/kept_indices.h"

#include <algorithm>
#include <cstring>
#include <span>

#include "common/large_buffer.h"

namespace mallat::codec {
namespace {

// Memory for kept indices is taken in pieces of this size, so that it lies
// in few (huge) pages rather than one allocation a block.
constexpr size_t kPieceBytes = size_t{16} << 20;

template <typename T>
void pack_as(PlaneView<const int32_t> indices, uint8_t* out) {
  for (int64_t y = 0; y < indices.height; ++y) {
    const int32_t* row = indices.row(y);
    T* to = reinterpret_cast<T*>(out) + y * indices.width;
    if constexpr (sizeof(T) == 4) {
      std::memcpy(to, row, static_cast<size_t>(indices.width) * 4);
    } else {
      for (int64_t x = 0; x < indices.width; ++x) to[x] = static_cast<T>(row[x]);
    }
  }
}

template <typename T>
void unpack_as(const uint8_t* in, PlaneView<int32_t> out) {
  for (int64_t y = 0; y < out.height; ++y) {
    int32_t* row = out.row(y);
    const T* from = reinterpret_cast<const T*>(in) + y * out.width;
    if constexpr (sizeof(T) == 4) {
      std::memcpy(row, from, static_cast<size_t>(out.width) * 4);
    } else {
      for (int64_t x = 0; x < out.width; ++x) row[x] = from[x];
    }
  }
}

void pack(PlaneView<const int32_t> indices, int width, uint8_t* out) {
  if (width == 1) pack_as<int8_t>(indices, out);
  if (width == 2) pack_as<int16_t>(indices, out);
  if (width == 4) pack_as<int32_t>(indices, out);
}

}  // namespace

Result<KeptIndices> KeptIndexStore::keep(PlaneView<const int32_t> indices, int magnitude_bits) {
  KeptIndices at;
  // A sign bit above the magnitude's.
  at.width = magnitude_bits < 8 ? 1 : magnitude_bits < 16 ? 2 : 4;
  const size_t bytes = static_cast<size_t>(indices.width * indices.height) * at.width;
  uint8_t* memory = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (held_ + bytes <= budget_) {
      if (pieces_.empty() || piece_used_ + bytes > kPieceBytes) {
        pieces_.push_back(allocate_large(std::max(kPieceBytes, bytes)));
        piece_used_ = 0;
      }
      memory = reinterpret_cast<uint8_t*>(pieces_.back().get()) + piece_used_;
      piece_used_ += bytes;
      held_ += bytes;
    }
  }
  if (memory) {
    pack(indices, at.width, memory);
    at.memory = memory;
    return at;
  }
  // Past the budget: packed on this thread, appended to the file.
  thread_local std::vector<uint8_t> packed;
  packed.resize(bytes);
  pack(indices, at.width, packed.data());
  MALLAT_ASSIGN_OR_RETURN(at.spilled, file_.append(packed));
  return at;
}

Status KeptIndexStore::read(const KeptIndices& at, PlaneView<int32_t> out) const {
  const size_t bytes = static_cast<size_t>(out.width * out.height) * at.width;
  const uint8_t* from = at.memory;
  thread_local std::vector<uint8_t> read;
  if (!from) {
    if (at.spilled.data_bytes != bytes) return internal_error("kept indices: a block's size differs from what was kept");
    read.resize(bytes);
    MALLAT_RETURN_IF_ERROR(file_.read(at.spilled, read));
    from = read.data();
  }
  if (at.width == 1) unpack_as<int8_t>(from, out);
  if (at.width == 2) unpack_as<int16_t>(from, out);
  if (at.width == 4) unpack_as<int32_t>(from, out);
  return Status::Ok();
}

}  // namespace mallat::codec

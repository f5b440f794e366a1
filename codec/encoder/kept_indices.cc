#include "codec/encoder/kept_indices.h"

#include <algorithm>
#include <cstring>
#include <span>

#include "codec/encoder/packed_indices.h"
#include "common/large_buffer.h"

namespace mallat::codec {
namespace {

// Memory for kept indices is taken in pieces of this size, so that it lies
// in few (huge) pages rather than one allocation a block.
constexpr size_t kPieceBytes = size_t{16} << 20;

}  // namespace

Result<KeptIndices> KeptIndexStore::keep(PlaneView<const int32_t> indices) {
  // Packed on this thread, then copied to where they stay: their size is
  // known only once packed.
  thread_local std::vector<uint8_t> packed;
  packed.resize(packed_indices_bound(indices.width, indices.height));
  const size_t bytes = pack_indices(indices, packed.data());
  KeptIndices at;
  at.bytes = static_cast<uint32_t>(bytes);
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
    std::memcpy(memory, packed.data(), bytes);
    at.memory = memory;
    return at;
  }
  // Past the budget: appended to the file.
  MALLAT_ASSIGN_OR_RETURN(at.spilled, file_.append(std::span<const uint8_t>(packed.data(), bytes)));
  return at;
}

Status KeptIndexStore::read(const KeptIndices& at, PlaneView<int32_t> out) const {
  const uint8_t* from = at.memory;
  thread_local std::vector<uint8_t> read;
  if (!from) {
    if (at.spilled.data_bytes != at.bytes)
      return internal_error("kept indices: a block's size differs from what was kept");
    read.resize(at.bytes);
    MALLAT_RETURN_IF_ERROR(file_.read(at.spilled, read));
    from = read.data();
  }
  if (!unpack_indices(from, at.bytes, out))
    return internal_error("kept indices: a block's packed indices do not unpack");
  return Status::Ok();
}

}  // namespace mallat::codec

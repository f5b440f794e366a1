#include "codec/encoder/kept_indices.h"

#include <algorithm>
#include <span>

#include "codec/encoder/packed_indices.h"
#include "common/large_buffer.h"

namespace mallat::codec {
namespace {

// Memory for kept indices is taken in pieces of this size, so that it lies
// in few (huge) pages rather than one allocation a block.
constexpr size_t kPieceBytes = size_t{16} << 20;

std::atomic<uint64_t> next_store_id{1};

// The piece this thread packs into: the rest of it from `at`.
struct ThreadPiece {
  uint64_t store = 0;
  uint8_t* at = nullptr;
  size_t left = 0;
};
thread_local ThreadPiece thread_piece;

}  // namespace

KeptIndexStore::KeptIndexStore(uint64_t budget) : id_(next_store_id++), budget_(budget) {}

uint8_t* KeptIndexStore::room(size_t bytes) {
  // The budget holds the block's bound until it is packed.
  if (held_.fetch_add(bytes) + bytes > budget_) {
    held_.fetch_sub(bytes);
    return nullptr;
  }
  ThreadPiece& piece = thread_piece;
  if (piece.store != id_ || piece.left < bytes) {
    const size_t size = std::max(kPieceBytes, bytes);
    std::unique_ptr<std::byte[]> memory = allocate_large(size);
    piece = {id_, reinterpret_cast<uint8_t*>(memory.get()), size};
    const std::lock_guard<std::mutex> lock(mutex_);
    pieces_.push_back(std::move(memory));
  }
  return piece.at;
}

Result<KeptIndices> KeptIndexStore::keep(PlaneView<const int32_t> indices, int fraction_bits) {
  const size_t bound = packed_indices_bound(indices.width, indices.height);
  KeptIndices at;
  if (uint8_t* memory = room(bound)) {
    const size_t bytes = pack_indices(indices, fraction_bits, memory);
    held_.fetch_sub(bound - bytes);
    thread_piece.at += bytes;
    thread_piece.left -= bytes;
    at.memory = memory;
    at.bytes = static_cast<uint32_t>(bytes);
    return at;
  }
  // Past the budget: packed on this thread, appended to the file.
  thread_local std::vector<uint8_t> packed;
  packed.resize(bound);
  const size_t bytes = pack_indices(indices, fraction_bits, packed.data());
  at.bytes = static_cast<uint32_t>(bytes);
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

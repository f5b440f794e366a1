#include "codec/encoder/kept_indices.h"

#include <span>
#include <vector>

#include "codec/encoder/packed_indices.h"

namespace mallat::codec {

ThreadPieces::Piece* KeptIndexStore::room(size_t bytes) {
  // The budget holds the block's bound until it is packed.
  if (held_.fetch_add(bytes) + bytes > budget_) {
    held_.fetch_sub(bytes);
    return nullptr;
  }
  return &pieces_.room(bytes);
}

Result<KeptIndices> KeptIndexStore::keep(PlaneView<const int32_t> indices, int fraction_bits) {
  const size_t bound = packed_indices_bound(indices.width, indices.height);
  KeptIndices at;
  if (ThreadPieces::Piece* piece = room(bound)) {
    const size_t bytes = pack_indices(indices, fraction_bits, piece->at);
    held_.fetch_sub(bound - bytes);
    at.memory = piece->at;
    at.bytes = static_cast<uint32_t>(bytes);
    piece->at += bytes;
    piece->left -= bytes;
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

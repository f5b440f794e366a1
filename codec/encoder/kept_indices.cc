#include "codec/encoder/kept_indices.h"

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <span>
#include <utility>

#include "codec/encoder/packed_indices.h"
#include "common/large_buffer.h"

namespace mallat::codec {
namespace {

// Memory for kept indices is taken in pieces of this size, so that it lies
// in few (huge) pages rather than one allocation a block.
constexpr size_t kPieceBytes = size_t{16} << 20;

// Rows of indices narrowed to int16 or int8 (each fits: keep_raw measured
// them). The rows go to memory the block's coding reads only once rate
// control has chosen, so where SSE2 is there they are written past the
// caches (no line read in to be written).
void narrow_row(const int32_t* in, int64_t n, int16_t* out) {
  int64_t x = 0;
#if defined(__SSE2__)
  if (reinterpret_cast<uintptr_t>(out) % 16 == 0) {
    for (; x + 8 <= n; x += 8) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + x));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + x + 4));
      _mm_stream_si128(reinterpret_cast<__m128i*>(out + x), _mm_packs_epi32(a, b));
    }
  }
#endif
  for (; x < n; ++x) out[x] = static_cast<int16_t>(in[x]);
}

void narrow_row(const int32_t* in, int64_t n, int8_t* out) {
  int64_t x = 0;
#if defined(__SSE2__)
  if (reinterpret_cast<uintptr_t>(out) % 16 == 0) {
    for (; x + 16 <= n; x += 16) {
      auto load = [&](int64_t k) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + x + k)); };
      const __m128i low = _mm_packs_epi32(load(0), load(4)), high = _mm_packs_epi32(load(8), load(12));
      _mm_stream_si128(reinterpret_cast<__m128i*>(out + x), _mm_packs_epi16(low, high));
    }
  }
#endif
  for (; x < n; ++x) out[x] = static_cast<int8_t>(in[x]);
}

template <typename T>
void narrow_rows(PlaneView<const int32_t> indices, uint8_t* to) {
  T* out = reinterpret_cast<T*>(to);
  for (int64_t y = 0; y < indices.height; ++y) narrow_row(indices.row(y), indices.width, out + y * indices.width);
#if defined(__SSE2__)
  // The streamed stores seen by the thread that codes the block.
  _mm_sfence();
#endif
}

template <typename T>
void widen_rows(const uint8_t* from, PlaneView<int32_t> out) {
  const T* in = reinterpret_cast<const T*>(from);
  for (int64_t y = 0; y < out.height; ++y) {
    int32_t* row = out.row(y);
    for (int64_t x = 0; x < out.width; ++x) row[x] = in[y * out.width + x];
  }
}

}  // namespace

KeptIndexStore::ThreadPiece* KeptIndexStore::room(size_t bytes) {
  // The budget holds the block's bound until it is packed.
  if (held_.fetch_add(bytes) + bytes > budget_) {
    held_.fetch_sub(bytes);
    return nullptr;
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  const std::thread::id thread = std::this_thread::get_id();
  auto own = std::find_if(thread_pieces_.begin(), thread_pieces_.end(),
                          [thread](const std::unique_ptr<ThreadPiece>& p) { return p->thread == thread; });
  if (own == thread_pieces_.end()) {
    thread_pieces_.push_back(std::make_unique<ThreadPiece>());
    thread_pieces_.back()->thread = thread;
    own = thread_pieces_.end() - 1;
  }
  ThreadPiece& piece = **own;
  if (piece.left < bytes) {
    const size_t size = std::max(kPieceBytes, bytes);
    pieces_.push_back(allocate_large(size));
    piece.at = reinterpret_cast<uint8_t*>(pieces_.back().get());
    piece.left = size;
  }
  return &piece;
}

Result<KeptIndices> KeptIndexStore::keep(PlaneView<const int32_t> indices, int fraction_bits) {
  const size_t bound = packed_indices_bound(indices.width, indices.height);
  KeptIndices at;
  if (ThreadPiece* piece = room(bound)) {
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

uint8_t* KeptIndexStore::raw_room(uint64_t bytes) {
  if (bytes == 0 || held_.load() + bytes > budget_ / 2) return nullptr;
  held_ += bytes;
  if (reused_) {
    KeptIndexMemory& memory = *std::exchange(reused_, nullptr);
    if (memory.size < bytes) {
      memory.bytes.reset();
      memory.bytes = allocate_large(bytes);
      memory.size = bytes;
    }
    return reinterpret_cast<uint8_t*>(memory.bytes.get());
  }
  raw_pieces_.push_back(allocate_large(bytes));
  return reinterpret_cast<uint8_t*>(raw_pieces_.back().get());
}

std::optional<KeptIndices> KeptIndexStore::keep_raw(PlaneView<const int32_t> indices, int magnitude_bits,
                                                     int most_bytes, KeptRoom& room) {
  const int index_bytes = kept_index_bytes(magnitude_bits);
  if (index_bytes > most_bytes) return std::nullopt;
  const uint64_t bytes = static_cast<uint64_t>(indices.width * indices.height) * static_cast<uint64_t>(index_bytes);
  // A cache line apart, as raw_room's caller counted them at most_bytes.
  const uint64_t at = room.used.fetch_add((bytes + 63) & ~uint64_t{63});
  if (at + bytes > room.size) return std::nullopt;
  uint8_t* to = room.memory + at;
  if (index_bytes == 1) {
    narrow_rows<int8_t>(indices, to);
  } else if (index_bytes == 2) {
    narrow_rows<int16_t>(indices, to);
  } else {
    for (int64_t y = 0; y < indices.height; ++y)
      std::memcpy(to + y * indices.width * 4, indices.row(y), static_cast<size_t>(indices.width) * 4);
  }
  KeptIndices kept;
  kept.memory = to;
  kept.bytes = static_cast<uint32_t>(bytes);
  kept.index_bytes = static_cast<uint8_t>(index_bytes);
  return kept;
}

Status KeptIndexStore::read(const KeptIndices& at, PlaneView<int32_t> out) const {
  if (at.index_bytes != 0) {
    if (at.bytes != static_cast<uint64_t>(out.width * out.height) * at.index_bytes)
      return internal_error("kept indices: a block's size differs from what was kept");
    if (at.index_bytes == 1) widen_rows<int8_t>(at.memory, out);
    if (at.index_bytes == 2) widen_rows<int16_t>(at.memory, out);
    if (at.index_bytes == 4) widen_rows<int32_t>(at.memory, out);
    return Status::Ok();
  }
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

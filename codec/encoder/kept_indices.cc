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

// A row of indices as int16; false where one does not fit (its low 16 bits
// written all the same). The rows go to memory the block's coding reads
// only once rate control has chosen, so where SSE2 is there they are
// written past the caches (no line read in to be written).
bool narrow_row(const int32_t* in, int64_t n, int16_t* out) {
  int64_t x = 0;
  int32_t outside = 0;
#if defined(__SSE2__)
  if (reinterpret_cast<uintptr_t>(out) % 16 == 0) {
    const __m128i half = _mm_set1_epi32(0x8000);
    __m128i high = _mm_setzero_si128();
    for (; x + 8 <= n; x += 8) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + x));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + x + 4));
      // v fits int16 where v + 2^15 lies in [0, 2^16).
      high = _mm_or_si128(high, _mm_or_si128(_mm_srli_epi32(_mm_add_epi32(a, half), 16),
                                             _mm_srli_epi32(_mm_add_epi32(b, half), 16)));
      _mm_stream_si128(reinterpret_cast<__m128i*>(out + x), _mm_packs_epi32(a, b));
    }
    outside = _mm_movemask_epi8(_mm_cmpeq_epi32(high, _mm_setzero_si128())) == 0xffff ? 0 : 1;
  }
#endif
  for (; x < n; ++x) {
    const auto v = static_cast<int16_t>(in[x]);
    out[x] = v;
    outside |= in[x] - v;
  }
  return outside == 0;
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

std::optional<KeptIndices> KeptIndexStore::keep_raw(PlaneView<const int32_t> indices, int index_bytes, uint8_t* to) {
  const auto w = static_cast<size_t>(indices.width);
  if (index_bytes == 2) {
    auto* out = reinterpret_cast<int16_t*>(to);
    for (int64_t y = 0; y < indices.height; ++y)
      if (!narrow_row(indices.row(y), indices.width, out + static_cast<size_t>(y) * w)) return std::nullopt;
#if defined(__SSE2__)
    // The streamed stores seen by the thread that codes the block.
    _mm_sfence();
#endif
  } else {
    for (int64_t y = 0; y < indices.height; ++y)
      std::memcpy(to + static_cast<size_t>(y) * w * 4, indices.row(y), w * 4);
  }
  KeptIndices at;
  at.memory = to;
  at.bytes = static_cast<uint32_t>(w * static_cast<size_t>(indices.height) * static_cast<size_t>(index_bytes));
  at.index_bytes = static_cast<uint8_t>(index_bytes);
  return at;
}

Status KeptIndexStore::read(const KeptIndices& at, PlaneView<int32_t> out) const {
  if (at.index_bytes != 0) {
    const auto w = static_cast<size_t>(out.width);
    if (at.bytes != w * static_cast<size_t>(out.height) * at.index_bytes)
      return internal_error("kept indices: a block's size differs from what was kept");
    for (int64_t y = 0; y < out.height; ++y) {
      int32_t* row = out.row(y);
      if (at.index_bytes == 2) {
        const int16_t* in = reinterpret_cast<const int16_t*>(at.memory) + static_cast<size_t>(y) * w;
        for (size_t x = 0; x < w; ++x) row[x] = in[x];
      } else {
        std::memcpy(row, at.memory + static_cast<size_t>(y) * w * 4, w * 4);
      }
    }
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

// How a copy of rows between pageable host memory and the device splits
// into chunks that fit a pinned staging buffer (the copier is
// cuda/staged_copy.h). Header-only and free of CUDA, so that CI's CPU
// tests check the split.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace mallat::codec {

// Rows [first, first + count) of a copy.
struct ChunkRows {
  size_t first = 0;
  size_t count = 0;
  bool operator==(const ChunkRows&) const = default;
};

// `rows` rows of `width` bytes in chunks of whole rows, each at most
// `chunk_bytes`, in order; every chunk but the last holds the same number
// of rows. Empty where there is nothing to copy or a single row is larger
// than a chunk (the copy then goes direct, staged by the driver).
inline std::vector<ChunkRows> staged_chunks(size_t width, size_t rows, size_t chunk_bytes) {
  std::vector<ChunkRows> chunks;
  if (width == 0 || rows == 0 || width > chunk_bytes) return chunks;
  const size_t per = chunk_bytes / width;
  for (size_t first = 0; first < rows; first += per) chunks.push_back({first, std::min(per, rows - first)});
  return chunks;
}

}  // namespace mallat::codec

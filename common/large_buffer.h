// Buffers the size of a plane or an image, filled once. A 4K RGB decode
// touches about 200 MB of fresh memory; in 4 KiB pages that is some 50,000
// page faults, each a trip into the kernel that clears the page: a large
// share of a single-threaded decode's time. Transparent huge pages (2 MiB)
// cut the faults 512-fold. Linux gives them only to memory that asks
// (madvise(MADV_HUGEPAGE)) where the system's setting is "madvise", the
// default of Debian and Ubuntu, so these helpers ask before the first touch.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace mallat {

class ThreadPool;

// Asks for transparent huge pages for the whole 2 MiB pages inside
// [p, p + bytes). Does nothing for small buffers, on systems without them, or
// when the kernel refuses (the memory then stays in small pages).
void advise_huge_pages(void* p, size_t bytes);

// `v` resized to n elements of T{}, its new storage advised before it is filled.
template <typename T>
void assign_large(std::vector<T>& v, size_t n) {
  std::vector<T>().swap(v);
  v.reserve(n);
  advise_huge_pages(v.data(), n * sizeof(T));
  v.assign(n, T{});
}

// `v` emptied with room for n elements, advised: for a caller that appends
// them all (no element is made twice).
template <typename T>
void reserve_large(std::vector<T>& v, size_t n) {
  std::vector<T>().swap(v);
  v.reserve(n);
  advise_huge_pages(v.data(), n * sizeof(T));
}

// Uninitialised storage for `bytes` bytes, advised.
inline std::unique_ptr<std::byte[]> allocate_large(size_t bytes) {
  auto storage = std::make_unique_for_overwrite<std::byte[]>(bytes);
  advise_huge_pages(storage.get(), bytes);
  return storage;
}

// Pieces of one allocation, piece i of bytes[i] bytes, each from a cache
// line of its own and the first from a 2 MiB boundary, the whole advised:
// buffers under 2 MiB each, made apart, would lie in 4 KiB pages, a fault
// each on first touch; together they lie mostly in huge pages. Each piece
// shares the allocation's ownership (empty for none when every size is 0).
std::vector<std::shared_ptr<std::byte[]>> allocate_large_pieces(std::span<const size_t> bytes);

// The same, each page of the allocation first touched on the pool's threads,
// a 2 MiB range an item: the kernel clears a page at its first touch, and
// where one thread makes a buffer's first rows (a plane's line DWT) the
// clearing of its pages would all lie on that thread. Only for pieces that
// are written before they are read: what the touch leaves there is
// unspecified. A pool of one thread touches nothing here.
std::vector<std::shared_ptr<std::byte[]>> allocate_large_pieces(std::span<const size_t> bytes, ThreadPool& pool);

}  // namespace mallat

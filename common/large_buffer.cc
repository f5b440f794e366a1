#include "common/large_buffer.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "common/thread_pool.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace mallat {

void advise_huge_pages(void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t kHuge = uintptr_t{1} << 21;
  // Below two huge pages at least one would be split by the buffer's ends.
  if (p == nullptr || bytes < 2 * kHuge) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  // A refusal (EINVAL where THP is compiled out) only leaves small pages.
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

namespace {

constexpr size_t kHugePage = size_t{1} << 21;

// The pieces, and where the first starts and the last ends in the allocation.
struct Pieces {
  std::vector<std::shared_ptr<std::byte[]>> pieces;
  std::byte* begin = nullptr;
  size_t bytes = 0;
};

Pieces make_pieces(std::span<const size_t> bytes) {
  constexpr size_t kAlign = 64;
  auto rounded = [](size_t b) { return (b + kAlign - 1) & ~(kAlign - 1); };
  size_t total = 0;
  for (size_t b : bytes) total += rounded(b);
  Pieces out;
  if (total == 0) return out;
  // An allocation starts on a 4 KiB page: the part before its first huge
  // page would be small pages, so the pieces start at the boundary.
  const std::shared_ptr<std::byte[]> arena = allocate_large(total + kHugePage);
  size_t at = (kHugePage - reinterpret_cast<uintptr_t>(arena.get()) % kHugePage) % kHugePage;
  out.begin = arena.get() + at;
  out.bytes = total;
  for (size_t b : bytes) {
    out.pieces.push_back(std::shared_ptr<std::byte[]>(arena, arena.get() + at));
    at += rounded(b);
  }
  return out;
}

}  // namespace

std::vector<std::shared_ptr<std::byte[]>> allocate_large_pieces(std::span<const size_t> bytes) {
  return make_pieces(bytes).pieces;
}

std::vector<std::shared_ptr<std::byte[]>> allocate_large_pieces(std::span<const size_t> bytes, ThreadPool& pool) {
  Pieces made = make_pieces(bytes);
  if (pool.size() > 1 && made.bytes > 0) {
    // A write to each 4 KiB page (a huge page's first write clears all of it).
    constexpr size_t kPage = 4096;
    const int64_t ranges = static_cast<int64_t>((made.bytes + kHugePage - 1) / kHugePage);
    pool.parallel_for(ranges, [&](int64_t r) {
      const size_t from = static_cast<size_t>(r) * kHugePage, to = std::min(made.bytes, from + kHugePage);
      for (size_t at = from; at < to; at += kPage) *reinterpret_cast<volatile std::byte*>(made.begin + at) = std::byte{0};
    });
  }
  return std::move(made.pieces);
}

}  // namespace mallat

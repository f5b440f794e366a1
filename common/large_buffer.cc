#include "common/large_buffer.h"

#include <cstdint>

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

std::vector<std::shared_ptr<std::byte[]>> allocate_large_pieces(std::span<const size_t> bytes) {
  constexpr size_t kAlign = 64;
  constexpr size_t kHugePage = size_t{1} << 21;
  auto rounded = [](size_t b) { return (b + kAlign - 1) & ~(kAlign - 1); };
  size_t total = 0;
  for (size_t b : bytes) total += rounded(b);
  std::vector<std::shared_ptr<std::byte[]>> pieces;
  if (total == 0) return pieces;
  // An allocation starts on a 4 KiB page: the part before its first huge
  // page would be small pages, so the pieces start at the boundary.
  const std::shared_ptr<std::byte[]> arena = allocate_large(total + kHugePage);
  size_t at = (kHugePage - reinterpret_cast<uintptr_t>(arena.get()) % kHugePage) % kHugePage;
  for (size_t b : bytes) {
    pieces.push_back(std::shared_ptr<std::byte[]>(arena, arena.get() + at));
    at += rounded(b);
  }
  return pieces;
}

}  // namespace mallat

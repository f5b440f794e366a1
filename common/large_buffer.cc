#include "common/large_buffer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

void advise_thread_heap(size_t room) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  void* probe = std::malloc(64);
  if (probe == nullptr) return;
  const auto at = reinterpret_cast<uintptr_t>(probe);
  std::free(probe);
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr) return;
  // The mapping that holds `probe` (an anonymous one: not the data
  // segment's "[heap]"), then the inaccessible one right after it, if any:
  // the heap's reserved room, made accessible as it grows.
  uintptr_t begin = 0, end = 0;
  char line[512];
  while (std::fgets(line, sizeof line, maps) != nullptr) {
    unsigned long lo = 0, hi = 0;
    char perms[8] = {};
    int name_at = 0;
    if (std::sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &lo, &hi, perms, &name_at) < 3) continue;
    const bool anonymous = line[name_at] == '\n' || line[name_at] == '\0';
    if (end == 0) {
      if (at >= lo && at < hi) {
        if (!anonymous) break;
        begin = lo;
        end = hi;
      }
      continue;
    }
    if (lo == end && anonymous && std::strncmp(perms, "---", 3) == 0) end = hi;
    break;
  }
  std::fclose(maps);
  // A refusal only leaves small pages.
  if (end <= begin || madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) != 0) return;
  // Allocated and freed at once, in pieces that stay below the size malloc
  // maps on their own: the heap keeps its grown part (freed memory is not
  // trimmed under a large M_TRIM_THRESHOLD, which batches set), untouched.
  constexpr size_t kPiece = size_t{30} << 20;
  std::vector<void*> pieces;
  for (size_t made = 0; made < room; made += kPiece) pieces.push_back(std::malloc(kPiece));
  for (void* piece : pieces) std::free(piece);
  // The heap's first huge page holds what the thread allocated before this
  // call, in small pages, and would stay so: made one huge page now that it
  // lies wholly in the usable part, where the kernel can (MADV_COLLAPSE,
  // Linux 6.1; its value from the kernel's header, which glibc's may lack).
  constexpr int kCollapse = 25;
  constexpr uintptr_t kHuge = uintptr_t{1} << 21;
  if (begin % kHuge == 0 && end - begin >= kHuge) (void)madvise(reinterpret_cast<void*>(begin), kHuge, kCollapse);
#else
  (void)room;
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

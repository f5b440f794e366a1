// common/large_buffer.h: whatever the kernel does with the advice, a large
// buffer has the size asked for and (assign_large) every element zero, also
// when it replaces a vector that held other values.
#include "common/large_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace mallat {
namespace {

TEST(LargeBuffer, AssignLargeIsZeroedAtTheRequestedSize) {
  for (size_t n : {size_t{0}, size_t{5}, size_t{3} << 20}) {  // small, and 12 MiB of int32 (advised)
    std::vector<int32_t> v(100, 7);
    assign_large(v, n);
    ASSERT_EQ(v.size(), n);
    EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](int32_t x) { return x == 0; })) << n;
  }
}

TEST(LargeBuffer, AllocateLargeGivesWritableStorage) {
  const size_t bytes = size_t{9} << 20;
  auto storage = allocate_large(bytes);
  ASSERT_NE(storage.get(), nullptr);
  std::memset(storage.get(), 0xAB, bytes);
  EXPECT_EQ(static_cast<unsigned char>(storage[bytes - 1]), 0xAB);
  advise_huge_pages(nullptr, bytes);  // nothing to advise: no effect, no crash
}

// Pieces of one allocation: each of its size, on a cache line of its own,
// none overlapping another, and each alive after the others are gone.
TEST(LargeBuffer, PiecesAreApartAndOwnTheirStorage) {
  const std::vector<size_t> bytes = {100, 0, size_t{3} << 20, 64, 1};
  std::vector<std::shared_ptr<std::byte[]>> pieces = allocate_large_pieces(bytes);
  ASSERT_EQ(pieces.size(), bytes.size());
  for (size_t i = 0; i < pieces.size(); ++i) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(pieces[i].get()) % 64, 0u) << i;
    std::memset(pieces[i].get(), static_cast<int>(i + 1), bytes[i]);
  }
  for (size_t i = 0; i + 1 < pieces.size(); ++i) EXPECT_GE(pieces[i + 1].get(), pieces[i].get() + bytes[i]) << i;
  std::shared_ptr<std::byte[]> last = pieces[2];
  pieces.clear();
  EXPECT_EQ(static_cast<unsigned char>(last[(size_t{3} << 20) - 1]), 3);
  EXPECT_TRUE(allocate_large_pieces(std::vector<size_t>{0, 0}).empty());
}

// The smaps entry of the mapping that holds `p`: its header line, then its
// fields (empty where none holds it).
std::string smaps_entry_of(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  std::string line, entry;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' ')) {
      if (inside) break;
      inside = at >= lo && at < hi;
    }
    if (inside) entry += line + "\n";
  }
  return entry;
}

// A thread's heap advised: the thread allocates and frees as before, and,
// where the kernel offers transparent huge pages on advice and the heap is a
// mapping of its own (glibc's thread arenas), that mapping is marked for them.
TEST(LargeBuffer, AThreadsHeapIsAdvisedForHugePages) {
  std::string entry;
  bool wrote = false;
  std::thread thread([&] {
    advise_thread_heap(size_t{16} << 20);
    auto* bytes = static_cast<unsigned char*>(std::malloc(size_t{4} << 20));
    ASSERT_NE(bytes, nullptr);
    std::memset(bytes, 0x5A, size_t{4} << 20);
    wrote = bytes[(size_t{4} << 20) - 1] == 0x5A;
    std::free(bytes);
    void* small = std::malloc(64);  // from the thread's heap, whatever malloc's mmap threshold
    entry = smaps_entry_of(small);
    std::free(small);
  });
  thread.join();
  EXPECT_TRUE(wrote);
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(thp, modes);
  if (modes.empty() || modes.find("[never]") != std::string::npos) GTEST_SKIP() << "no transparent huge pages";
  const std::string header = entry.substr(0, entry.find('\n'));
  if (header.find('[') != std::string::npos || header.find('/') != std::string::npos)
    GTEST_SKIP() << "the thread's heap is not a mapping of its own: " << header;
  const size_t flags = entry.find("VmFlags:");
  ASSERT_NE(flags, std::string::npos) << entry;
  EXPECT_NE(entry.find(" hg", flags), std::string::npos) << entry;
}

}  // namespace
}  // namespace mallat

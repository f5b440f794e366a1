// common/large_buffer.h: whatever the kernel does with the advice, a large
// buffer has the size asked for and (assign_large) every element zero, also
// when it replaces a vector that held other values.
#include "common/large_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "common/thread_pool.h"

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

// Pieces whose pages a pool touched first are laid out as those of the plain
// call (the same offsets from the first piece, which starts on a 2 MiB
// boundary), each of its size and writable, on a pool of one thread (no
// touch) and of several.
TEST(LargeBuffer, PiecesTouchedOnAPoolAreLaidOutAsThePlainOnes) {
  const std::vector<size_t> bytes = {size_t{5} << 20, 100, 0, size_t{3} << 20, 4097, 64};
  const std::vector<std::shared_ptr<std::byte[]>> plain = allocate_large_pieces(bytes);
  for (int threads : {1, 4}) {
    ThreadPool pool(threads);
    std::vector<std::shared_ptr<std::byte[]>> pieces = allocate_large_pieces(bytes, pool);
    ASSERT_EQ(pieces.size(), bytes.size()) << threads;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(pieces[0].get()) % (uintptr_t{1} << 21), 0u) << threads;
    for (size_t i = 0; i < pieces.size(); ++i) {
      EXPECT_EQ(pieces[i].get() - pieces[0].get(), plain[i].get() - plain[0].get()) << threads << " " << i;
      std::memset(pieces[i].get(), static_cast<int>(i + 1), bytes[i]);
    }
    for (size_t i = 0; i < pieces.size(); ++i) {
      if (bytes[i] > 0) {
        EXPECT_EQ(static_cast<unsigned char>(pieces[i][bytes[i] - 1]), i + 1) << threads << " " << i;
      }
    }
  }
  ThreadPool pool(4);
  EXPECT_TRUE(allocate_large_pieces(std::vector<size_t>{0, 0}, pool).empty());
}

}  // namespace
}  // namespace mallat

// The staged copier's split of a copy into chunks (codec/stages/staged_chunks.h):
// whole rows, at most a chunk's bytes each, covering every row once in order.
#include "codec/stages/staged_chunks.h"

#include <gtest/gtest.h>

namespace mallat::codec {
namespace {

TEST(StagedChunks, SplitsWholeRowsThatFitAChunk) {
  // A 3840x2048 RGB raster in 4 MiB chunks: 364 rows each, the last 228.
  const std::vector<ChunkRows> chunks = staged_chunks(11520, 2048, size_t{4} << 20);
  ASSERT_EQ(chunks.size(), 6u);
  for (size_t k = 0; k + 1 < chunks.size(); ++k) EXPECT_EQ(chunks[k], (ChunkRows{k * 364, 364}));
  EXPECT_EQ(chunks.back(), (ChunkRows{1820, 228}));
}

TEST(StagedChunks, CoversEveryRowOnceWithinTheChunk) {
  for (size_t width : {1, 3, 7, 100, 4096, 4097}) {
    for (size_t rows : {1, 2, 5, 63, 64, 65, 1000}) {
      for (size_t chunk : {4096, 10000, 65536}) {
        const std::vector<ChunkRows> chunks = staged_chunks(width, rows, chunk);
        if (width > chunk) {
          EXPECT_TRUE(chunks.empty()) << width << " " << rows << " " << chunk;
          continue;
        }
        size_t next = 0;
        for (const ChunkRows& c : chunks) {
          EXPECT_EQ(c.first, next);
          EXPECT_GE(c.count, 1u);
          EXPECT_LE(c.count * width, chunk);
          next += c.count;
        }
        EXPECT_EQ(next, rows) << width << " " << rows << " " << chunk;
      }
    }
  }
}

TEST(StagedChunks, NothingToCopyOrARowLargerThanAChunkGoesDirect) {
  EXPECT_TRUE(staged_chunks(0, 10, 4096).empty());
  EXPECT_TRUE(staged_chunks(10, 0, 4096).empty());
  EXPECT_TRUE(staged_chunks(4097, 10, 4096).empty());
  EXPECT_EQ(staged_chunks(4096, 3, 4096).size(), 3u);
}

}  // namespace
}  // namespace mallat::codec

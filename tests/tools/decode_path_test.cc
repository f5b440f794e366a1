// Which path `mallat decode` takes for one file without --streamed or
// --whole-image (tools/decode_streamed.h, streamed_by_default).
#include <gtest/gtest.h>

#include <cstdint>

#include "common/thread_pool.h"
#include "tools/decode_streamed.h"

namespace mallat::tools {
namespace {

constexpr uint64_t k4k = uint64_t{3840} * 2048 * 3;  // the mosaic's decoded samples
constexpr uint64_t k64M = uint64_t{1} << 26;

TEST(DecodePath, ReversibleStreamsStreamAtAnyThreadCount) {
  for (int threads : {1, 2, 3, 4, 16, 128}) EXPECT_TRUE(streamed_by_default(k4k, false, threads)) << threads;
  EXPECT_TRUE(streamed_by_default(1, false, 64));
}

TEST(DecodePath, IrreversibleStreamsStreamUpToTwoThreads) {
  EXPECT_TRUE(streamed_by_default(k4k, true, 1));
  EXPECT_TRUE(streamed_by_default(k4k, true, 2));
  EXPECT_FALSE(streamed_by_default(k4k, true, 3));
  EXPECT_FALSE(streamed_by_default(k4k, true, 16));
  EXPECT_FALSE(streamed_by_default(k64M - 1, true, 16));
}

TEST(DecodePath, From64MSamplesEveryStreamStreams) {
  EXPECT_TRUE(streamed_by_default(k64M, true, 16));
  EXPECT_TRUE(streamed_by_default(uint64_t{15360} * 8192 * 3, true, 128));
}

TEST(DecodePath, ZeroThreadsMeansEveryCore) {
  const bool few = ThreadPool::hardware_threads() <= 2;
  EXPECT_EQ(streamed_by_default(k4k, true, 0), few);
  EXPECT_TRUE(streamed_by_default(k4k, false, 0));
}

}  // namespace
}  // namespace mallat::tools

// The device runner's staged copier (codec/stages/cuda/staged_copy.h):
// rows up through its two pinned chunks, read back with a plain copy, are
// the host's, for pitched rows of one chunk, of many (the last partial),
// of a row too large for a chunk (direct), and for contiguous bytes with
// a tail; one copier for every call. Labelled gpu: without a device each
// test skips and says why.
#include "codec/stages/cuda/staged_copy.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "common/host_staging.h"
#include "dwt/cuda/device_buffer.h"
#include "tests/entropy_cuda/cuda_cases.h"

namespace mallat::codec::cuda {
namespace {

std::vector<std::byte> pattern(size_t n, unsigned seed) {
  std::vector<std::byte> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 2654435761u + seed) >> 13);
  return v;
}

// rows x width bytes up from a host buffer of pitch hp into a device one
// of pitch dp (zeroed), then down again with a plain copy: the rows come
// back, and the device's bytes between rows are still zero.
void round_trip(StagedCopier& copier, size_t width, size_t rows, size_t hp, size_t dp, ThreadPool& pool,
                cudaStream_t s) {
  const std::vector<std::byte> host = pattern(hp * rows, static_cast<unsigned>(width + rows));
  dwt::cuda::DeviceArena device;
  ASSERT_TRUE(device.reserve(dp * rows).ok());
  ASSERT_EQ(cudaMemsetAsync(device.data(), 0, dp * rows, s), cudaSuccess);
  ASSERT_TRUE(copier.upload(host.data(), hp, device.data(), dp, width, rows, s, pool).ok());
  std::vector<std::byte> back(dp * rows, std::byte{0x5A});
  ASSERT_EQ(cudaMemcpyAsync(back.data(), device.data(), dp * rows, cudaMemcpyDeviceToHost, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  size_t bad = 0, touched = 0;
  for (size_t r = 0; r < rows; ++r) {
    for (size_t x = 0; x < dp; ++x) {
      if (x < width) bad += back[r * dp + x] != host[r * hp + x];
      else touched += back[r * dp + x] != std::byte{0};
    }
  }
  EXPECT_EQ(bad, 0u) << width << "x" << rows << ", pitches " << hp << " " << dp;
  EXPECT_EQ(touched, 0u) << width << "x" << rows << ", pitches " << hp << " " << dp;
}

// A copier with its stream and pool, where a device can be used.
class StagedCopierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_DEVICE();
    auto made = dwt::cuda::make_stream();
    ASSERT_TRUE(made.ok()) << made.status().message();
    stream_ = std::move(made).value();
  }
  cudaStream_t s() const { return stream_.get(); }

  ThreadPool pool_{4};
  dwt::cuda::Stream stream_;
  StagedCopier copier_;
};

TEST_F(StagedCopierTest, RowsGoUpAsTheyAre) {
  // One chunk; a raster's tile in a wider image (six chunks, the last
  // partial); a row larger than a chunk (direct); odd widths and pitches.
  round_trip(copier_, 300, 7, 333, 300, pool_, s());
  round_trip(copier_, 3840 * 3, 2048, 5000 * 3, 3840 * 3, pool_, s());
  round_trip(copier_, kPinnedMostBytes + 3, 2, kPinnedMostBytes + 10, kPinnedMostBytes + 3, pool_, s());
  round_trip(copier_, 1001, 9001, 1003, 1024, pool_, s());
  round_trip(copier_, 1, 1, 1, 1, pool_, s());
}

TEST_F(StagedCopierTest, BytesWithATailGoUpAsTheyAre) {
  for (size_t n : {size_t{1}, size_t{65536}, size_t{65537}, size_t{9} << 20, (size_t{13} << 20) + 12345}) {
    const std::vector<std::byte> host = pattern(n, static_cast<unsigned>(n));
    dwt::cuda::DeviceArena device;
    ASSERT_TRUE(device.reserve(n).ok());
    ASSERT_TRUE(copier_.upload_bytes(host.data(), device.data(), n, s(), pool_).ok());
    std::vector<std::byte> back(n);
    ASSERT_EQ(cudaMemcpyAsync(back.data(), device.data(), n, cudaMemcpyDeviceToHost, s()), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s()), cudaSuccess);
    EXPECT_TRUE(back == host) << n << " bytes";
  }
}

}  // namespace
}  // namespace mallat::codec::cuda

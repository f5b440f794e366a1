// The device's HT plane statistics (codec/stages/cuda/ht_statistics_launch.h,
// entropy/cuda/ht/statistics_kernel.cuh) cut at a tile's bit lengths
// (entropy/ht/compact_plane_statistics.h): blocks of several sizes in rows
// wider than themselves, some past the exact integer energies, come down
// and expand to the shared code's statistics on the host to the bit; a cut
// below a block's bit lengths is flagged (kHtStatisticsCut), not written
// short. Labelled gpu: without a device each test skips and says why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "codec/stages/cuda/ht_statistics_launch.h"
#include "dwt/cuda/device_buffer.h"
#include "entropy/ht/compact_plane_statistics.h"
#include "entropy/ht/shared_plane_statistics.h"
#include "entropy/t1_device_job.h"
#include "tests/entropy/laplacian_block.h"
#include "tests/entropy_cuda/cuda_cases.h"

namespace mallat::codec {
namespace {

struct Blocks {
  std::vector<int32_t> coefficients;
  std::vector<entropy::T1DeviceJob> jobs;
  uint32_t most_bitplanes = 0;
};

// Blocks of w x h in rows 3 samples wider, each with Mb its indices'
// bound (their largest |q| >> F's bit length), scales up to 2^24 so that
// some are past the exact sums.
Blocks blocks_of() {
  Blocks b;
  const int sizes[][2] = {{64, 64}, {33, 17}, {1, 1}, {64, 5}, {8, 64}, {32, 32}};
  unsigned seed = 3;
  for (const auto& size : sizes) {
    for (const double scale : {0.3, 3.0, 700.0, 1e7}) {
      const uint32_t w = static_cast<uint32_t>(size[0]), h = static_cast<uint32_t>(size[1]);
      const uint32_t stride = w + 3;
      const std::vector<int32_t> v = entropy::laplacian_block(scale, ++seed, size_t{w} * h);
      entropy::T1DeviceJob job;
      job.coefficient_offset = b.coefficients.size();
      job.stride = stride;
      job.width = static_cast<uint16_t>(w);
      job.height = static_cast<uint16_t>(h);
      job.fraction_bits = static_cast<uint8_t>(seed % 3);
      uint32_t all = 0;
      for (uint32_t y = 0; y < h; ++y) {
        for (uint32_t x = 0; x < w; ++x) {
          const int32_t q = v[size_t{y} * w + x];
          b.coefficients.push_back(q);
          all |= entropy::ht_index_magnitude(q);
        }
        for (uint32_t x = w; x < stride; ++x) b.coefficients.push_back(0x7FFFFFFF);  // never read
      }
      job.num_bitplanes = static_cast<uint8_t>(entropy::ht_bit_length(all >> job.fraction_bits));
      b.most_bitplanes = std::max<uint32_t>(b.most_bitplanes, job.num_bitplanes);
      b.jobs.push_back(job);
    }
  }
  return b;
}

// The statistics of `b`'s blocks cut at `layout` on the device, and the
// launch's flags.
uint32_t gather(const Blocks& b, const entropy::HtCompactLayout& layout, std::vector<unsigned char>& out) {
  dwt::cuda::DeviceArena coefficients, jobs, statistics;
  const size_t bytes = b.jobs.size() * layout.stride();
  EXPECT_TRUE(coefficients.reserve(b.coefficients.size() * sizeof(int32_t)).ok());
  EXPECT_TRUE(jobs.reserve(b.jobs.size() * sizeof(entropy::T1DeviceJob)).ok());
  EXPECT_TRUE(statistics.reserve(bytes + sizeof(uint32_t)).ok());
  EXPECT_EQ(cudaMemcpy(coefficients.data(), b.coefficients.data(), b.coefficients.size() * sizeof(int32_t),
                       cudaMemcpyHostToDevice),
            cudaSuccess);
  EXPECT_EQ(cudaMemcpy(jobs.data(), b.jobs.data(), b.jobs.size() * sizeof(entropy::T1DeviceJob),
                       cudaMemcpyHostToDevice),
            cudaSuccess);
  auto* refused = reinterpret_cast<uint32_t*>(statistics.data() + bytes);
  EXPECT_EQ(cudaMemset(statistics.data(), 0, bytes + sizeof(uint32_t)), cudaSuccess);
  EXPECT_TRUE(cuda::launch_ht_statistics(reinterpret_cast<const entropy::T1DeviceJob*>(jobs.data()), b.jobs.size(),
                                         reinterpret_cast<const int32_t*>(coefficients.data()),
                                         b.coefficients.size(), layout,
                                         reinterpret_cast<unsigned char*>(statistics.data()), refused, nullptr)
                  .ok());
  out.assign(bytes + sizeof(uint32_t), 0);
  EXPECT_EQ(cudaMemcpy(out.data(), statistics.data(), out.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  uint32_t flags = 0;
  std::memcpy(&flags, out.data() + bytes, sizeof flags);
  return flags;
}

TEST(HtStatisticsCuda, CutStatisticsExpandToTheSharedCodes) {
  SKIP_WITHOUT_DEVICE();
  const Blocks b = blocks_of();
  const entropy::HtCompactLayout layout = entropy::HtCompactLayout::for_bitplanes(b.most_bitplanes);
  std::vector<unsigned char> out;
  ASSERT_EQ(gather(b, layout, out), 0u);
  int deep = 0;
  for (size_t j = 0; j < b.jobs.size(); ++j) {
    const entropy::T1DeviceJob& job = b.jobs[j];
    const entropy::HtBlockIndices indices{b.coefficients.data() + job.coefficient_offset, job.width, job.height,
                                          job.stride};
    entropy::HtPlaneCounts counts;
    double sums[entropy::kHtPlanes];
    entropy::HtPlaneStatistics want, got;
    ASSERT_TRUE(entropy::ht_block_statistics(indices, job.fraction_bits, counts, sums, want));
    deep += !entropy::ht_energy_exact(counts);
    layout.expand(out.data() + j * layout.stride(), got);
    EXPECT_EQ(std::memcmp(&got, &want, sizeof got), 0) << "block " << j << ", " << job.width << "x" << job.height;
  }
  EXPECT_GT(deep, 0);
}

TEST(HtStatisticsCuda, ACutBelowABlocksBitLengthsIsFlagged) {
  SKIP_WITHOUT_DEVICE();
  const Blocks b = blocks_of();
  ASSERT_GT(b.most_bitplanes, 1u);
  std::vector<unsigned char> out;
  EXPECT_EQ(gather(b, entropy::HtCompactLayout::for_bitplanes(b.most_bitplanes - 1), out),
            entropy::kHtStatisticsCut);
}

}  // namespace
}  // namespace mallat::codec

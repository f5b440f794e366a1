// Tier-1 decoding on the GPU (entropy/cuda) against the CPU decoder: every
// case of tests/entropy/t1_shared_decoder_cases.h (every style and size,
// cut after every pass, damaged, rejected parameters) in one launch, each
// block's samples and info equal to decode_code_block's; and the hybrid
// decoder of make_device_block_decoder on a real device, every split.
// Labelled gpu: without a device each test skips and says why.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "entropy/block_coder.h"
#include "entropy/cuda/t1_device_decoder.h"
#include "entropy/cuda/t1_device_encoder.h"
#include "entropy/t1_decode_batch.h"
#include "tests/entropy/t1_shared_decoder_cases.h"
#include "tests/entropy_cuda/skip_without_device.h"

namespace mallat::entropy::testing {
namespace {

// The cases as BlockToDecode (one piece each) and outputs of their sizes.
struct Batch {
  std::vector<DecodeCase> cases;
  std::vector<std::span<const uint8_t>> pieces;
  std::vector<BlockToDecode> blocks;
  std::vector<std::vector<int32_t>> samples;
  std::vector<DecodedBlock> out;

  explicit Batch(std::vector<DecodeCase> all) : cases(std::move(all)) {
    pieces.resize(cases.size());
    samples.resize(cases.size());
    for (size_t k = 0; k < cases.size(); ++k) {
      const DecodeCase& c = cases[k];
      pieces[k] = c.data;
      BlockToDecode b;
      b.pieces = std::span<const std::span<const uint8_t>>(pieces).subspan(k, 1);
      b.segment_lengths = c.segment_lengths;
      b.num_passes = c.num_passes;
      b.zero_bitplanes = c.zero_bitplanes;
      b.num_bitplanes = c.num_bitplanes;
      b.orientation = c.orientation;
      b.style = c.style;
      blocks.push_back(b);
      samples[k].assign(static_cast<size_t>(std::max(c.width, 0)) * std::max(c.height, 0), 0x11111111);
      out.push_back({{samples[k].data(), c.width, c.height, c.width}, {}, internal_error("not decoded")});
    }
  }
};

std::vector<DecodeCase> all_cases() {
  std::vector<DecodeCase> cases = shared_decode_cases();
  for (const DecodeCase& c : bad_decode_cases()) {
    if (c.width >= 1 && c.height >= 1) cases.push_back(c);
  }
  return cases;
}

TEST(Tier1CudaDecode, KernelMatchesTheCpuDecoderOnEveryCase) {
  SKIP_WITHOUT_DEVICE();
  Batch b(all_cases());
  Result<T1DecodeBatchLayout> layout = lay_out_t1_decode_batch(b.blocks, b.out);
  ASSERT_TRUE(layout.ok()) << layout.status().message();
  std::vector<uint8_t> bytes(layout->bytes);
  std::vector<uint32_t> segments(layout->segments);
  for (size_t k = 0; k < b.blocks.size(); ++k) {
    gather_t1_decode_block(b.blocks[k], layout->jobs[k], bytes.data(), segments.data());
  }
  for (int blocks_per_warp : {0, 1, 16, 32}) {
    auto device = cuda::T1DeviceDecoder::create(blocks_per_warp);
    ASSERT_TRUE(device.ok()) << device.status().message();
    Status s = (*device)->upload(layout->jobs, bytes, segments, layout->samples);
    ASSERT_TRUE(s.ok()) << s.message();
    s = (*device)->decode();
    ASSERT_TRUE(s.ok()) << s.message();
    std::vector<SharedT1DecodeResult> results(layout->jobs.size());
    std::vector<int32_t> samples(layout->samples);
    s = (*device)->download(results, samples);
    ASSERT_TRUE(s.ok()) << s.message();
    for (size_t k = 0; k < b.cases.size(); ++k) {
      ASSERT_TRUE(same_decoding(decode_on_cpu(b.cases[k]), results[k], samples.data() + layout->jobs[k].sample_offset))
          << b.cases[k].name << " (blocks per warp " << blocks_per_warp << ")";
    }
  }
}

TEST(Tier1CudaDecode, UploadRejectsJobsPastTheirBuffers) {
  SKIP_WITHOUT_DEVICE();
  auto device = cuda::T1DeviceDecoder::create();
  ASSERT_TRUE(device.ok()) << device.status().message();
  T1DecodeJob job;
  job.width = 64;
  job.height = 64;
  job.length = 10;
  std::vector<uint8_t> bytes(9);
  EXPECT_FALSE((*device)->upload({&job, 1}, bytes, {}, 4096).ok());
  bytes.resize(10);
  EXPECT_FALSE((*device)->upload({&job, 1}, bytes, {}, 4095).ok());
  EXPECT_TRUE((*device)->upload({&job, 1}, bytes, {}, 4096).ok());
}

TEST(Tier1CudaDecode, HybridDecoderGivesTheCpuSamplesAtEveryShare) {
  SKIP_WITHOUT_DEVICE();
  std::vector<DecodeCase> some;
  const std::vector<DecodeCase> all = all_cases();
  for (size_t i = 0; i < all.size(); i += 9) some.push_back(all[i]);
  ThreadPool pool(4);
  for (double share : {0.3, 1.0}) {
    DeviceCoderOptions o;
    o.device_share = share;
    o.wait_for_device = true;
    o.min_device_blocks = 0;
    o.adapt = false;
    auto decoder = make_device_block_decoder(o);
    ASSERT_TRUE(decoder.ok()) << decoder.status().message();
    Batch b(some);
    ASSERT_TRUE((*decoder)->decode(b.blocks, b.out, pool).ok());
    EXPECT_TRUE((*decoder)->device_status().ok()) << (*decoder)->device_status().message();
    EXPECT_GT((*decoder)->device_times().device_blocks, 0u);
    for (size_t k = 0; k < b.cases.size(); ++k) {
      const CpuDecoded want = decode_on_cpu(b.cases[k]);
      ASSERT_EQ(b.out[k].status.code(), want.status.code()) << b.cases[k].name;
      if (!want.status.ok()) continue;
      EXPECT_EQ(b.out[k].info.lowest_plane, want.info.lowest_plane) << b.cases[k].name;
      EXPECT_EQ(b.out[k].info.ended_in_significance_pass, want.info.ended_in_significance_pass) << b.cases[k].name;
      ASSERT_EQ(b.samples[k], want.samples) << b.cases[k].name;
    }
  }
}

}  // namespace
}  // namespace mallat::entropy::testing

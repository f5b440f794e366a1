// The HT kernels (entropy/cuda/ht/) against the CPU's HT coder: a batch of
// random blocks of every shape, Mb up to 31, fraction bits, cleanup planes
// with and without refinement, both vertical modes, coded in one launch, every
// byte, pass length and distortion bit equal to encode_ht_code_block's (slots
// downloaded whole and packed); and those blocks' streams, cut after every
// pass and damaged, decoded in one launch to decode_ht_code_block's samples
// and info. Labelled gpu: without a device each test skips and says why.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "entropy/cuda/t1_device_decoder.h"
#include "entropy/cuda/t1_device_encoder.h"
#include "entropy/ht/code_block.h"
#include "entropy/t1_decode_batch.h"
#include "entropy/t1_encode_batch.h"
#include "tests/entropy/ht_test_blocks.h"
#include "tests/entropy_cuda/skip_without_device.h"

namespace mallat::entropy {
namespace {

struct EncodeCase {
  ht_test::Block block;
  HtEncodeSettings settings;
};

std::vector<EncodeCase> encode_cases(unsigned seed, int count) {
  std::mt19937 rng(seed);
  std::vector<EncodeCase> cases;
  for (int i = 0; i < count; ++i) {
    EncodeCase c;
    c.block = ht_test::random_block(rng, i % 3 == 0 ? 6 : 0);
    const int mb = c.block.mb;
    c.settings.cleanup_plane = i % 4 == 0 || mb < 2 ? 0 : static_cast<int>(rng() % static_cast<unsigned>(mb));
    c.settings.refinement = c.settings.cleanup_plane > 0 && rng() % 2 == 0;
    c.settings.vertical_causal = rng() % 2 == 0;
    c.settings.distortions = rng() % 5 != 0;
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<BlockToEncode> blocks_of(const std::vector<EncodeCase>& cases) {
  std::vector<BlockToEncode> blocks;
  for (const EncodeCase& c : cases) {
    BlockToEncode b;
    b.coefficients = c.block.view();
    b.num_bitplanes = c.block.mb;
    b.fraction_bits = c.block.fraction_bits;
    b.style.ht = true;
    b.style.vertical_causal = c.settings.vertical_causal;
    b.ht_cleanup_plane = c.settings.cleanup_plane;
    b.ht_refinement = c.settings.refinement;
    b.distortions = c.settings.distortions;
    blocks.push_back(b);
  }
  return blocks;
}

void expect_same_block(const EncodedCodeBlock& device, const EncodedCodeBlock& cpu, const std::string& what) {
  EXPECT_EQ(device.data, cpu.data) << what;
  EXPECT_EQ(device.zero_bitplanes, cpu.zero_bitplanes) << what;
  ASSERT_EQ(device.num_passes, cpu.num_passes) << what;
  ASSERT_EQ(device.passes.size(), cpu.passes.size()) << what;
  for (size_t p = 0; p < cpu.passes.size(); ++p) {
    EXPECT_EQ(device.passes[p].cumulative_length, cpu.passes[p].cumulative_length) << what << " pass " << p;
    EXPECT_EQ(device.passes[p].terminated, cpu.passes[p].terminated) << what << " pass " << p;
    EXPECT_EQ(device.passes[p].distortion_decrease, cpu.passes[p].distortion_decrease) << what << " pass " << p;
  }
}

TEST(HtCuda, EncodingKernelGivesTheCpuCodersBlocks) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<EncodeCase> cases = encode_cases(5, 600);
  const std::vector<BlockToEncode> blocks = blocks_of(cases);
  Result<T1DeviceBatchLayout> layout = lay_out_t1_batch(blocks);
  ASSERT_TRUE(layout.ok()) << layout.status().message();
  ASSERT_EQ(layout->coder, BlockCoderKind::kHt);
  std::vector<int32_t> coefficients(layout->coefficients);
  for (size_t k = 0; k < blocks.size(); ++k) gather_t1_block(blocks[k], layout->jobs[k], coefficients.data());
  for (int blocks_per_warp : {0, 1, 32}) {
    auto device = cuda::T1DeviceEncoder::create(cuda::T1StateMemory::kGlobal, blocks_per_warp);
    ASSERT_TRUE(device.ok()) << device.status().message();
    Status s = (*device)->upload(layout->jobs, coefficients, layout->slot_capacity);
    ASSERT_TRUE(s.ok()) << s.message();
    s = (*device)->encode();
    ASSERT_TRUE(s.ok()) << s.message();
    cuda::T1DeviceBatchResult whole;
    ASSERT_TRUE((*device)->download(whole).ok());
    Result<cuda::T1DeviceBatchView> packed = (*device)->download_packed();
    ASSERT_TRUE(packed.ok()) << packed.status().message();
    for (size_t k = 0; k < cases.size(); ++k) {
      const EncodeCase& c = cases[k];
      const std::string what = c.block.describe() + " p=" + std::to_string(c.settings.cleanup_plane) +
                               (c.settings.refinement ? " refined" : "") + " per warp " +
                               std::to_string(blocks_per_warp);
      auto cpu = encode_ht_code_block(c.block.view(), c.block.mb, c.block.fraction_bits, c.settings);
      ASSERT_TRUE(cpu.ok()) << what;
      Result<EncodedCodeBlock> from_slot = whole.block(k);
      ASSERT_TRUE(from_slot.ok()) << what << ": " << from_slot.status().message();
      expect_same_block(*from_slot, *cpu, what + " (slots)");
      Result<EncodedCodeBlock> from_packed =
          finish_packed_device_block(blocks[k], packed->results[k], packed->passes + packed->pass_offset[k],
                                     packed->bytes + packed->byte_offset[k]);
      ASSERT_TRUE(from_packed.ok()) << what;
      expect_same_block(*from_packed, *cpu, what + " (packed)");
    }
  }
}

// The blocks' streams as decoders receive them: every pass count, each as
// its segments; and damaged copies.
struct DecodeInputs {
  std::vector<std::vector<uint8_t>> data;
  std::vector<std::vector<uint32_t>> lengths;
  std::vector<std::span<const uint8_t>> pieces;
  std::vector<BlockToDecode> blocks;
  std::vector<std::vector<int32_t>> samples;
  std::vector<DecodedBlock> out;
  std::vector<const ht_test::Block*> source;
};

DecodeInputs decode_inputs(const std::vector<EncodeCase>& cases) {
  DecodeInputs in;
  std::mt19937 rng(3);
  std::vector<BlockToDecode> plain;
  for (const EncodeCase& c : cases) {
    auto coded = encode_ht_code_block(c.block.view(), c.block.mb, c.block.fraction_bits, c.settings);
    if (!coded.ok()) continue;
    for (int n = 0; n <= coded->num_passes; ++n) {
      for (bool damaged : {false, true}) {
        if (damaged && n == 0) continue;
        const uint32_t lcup = n > 0 ? coded->passes[0].cumulative_length : 0;
        const uint32_t end = n > 0 ? coded->passes[static_cast<size_t>(n - 1)].cumulative_length : 0;
        std::vector<uint8_t> bytes(coded->data.begin(), coded->data.begin() + end);
        if (damaged && !bytes.empty()) {
          bytes[rng() % bytes.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
          bytes.resize(rng() % (bytes.size() + 1));
        }
        std::vector<uint32_t> lengths;
        if (n > 0) lengths.push_back(lcup);
        if (n > 1) lengths.push_back(end - lcup);
        in.data.push_back(std::move(bytes));
        in.lengths.push_back(std::move(lengths));
        BlockToDecode b;
        b.num_passes = n;
        b.zero_bitplanes = coded->zero_bitplanes;
        b.num_bitplanes = c.block.mb;
        b.style.ht = true;
        b.style.vertical_causal = c.settings.vertical_causal;
        plain.push_back(b);
        in.source.push_back(&c.block);
      }
    }
  }
  const size_t n = plain.size();
  in.pieces.resize(n);
  in.samples.resize(n);
  for (size_t k = 0; k < n; ++k) {
    in.pieces[k] = in.data[k];
    plain[k].pieces = std::span<const std::span<const uint8_t>>(in.pieces).subspan(k, 1);
    plain[k].segment_lengths = in.lengths[k];
    const ht_test::Block& b = *in.source[k];
    in.samples[k].assign(b.v.size(), 0x11111111);
    in.out.push_back({{in.samples[k].data(), b.w, b.h, b.w}, {}, internal_error("not decoded")});
  }
  in.blocks = std::move(plain);
  return in;
}

TEST(HtCuda, DecodingKernelGivesTheCpuDecodersSamples) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<EncodeCase> cases = encode_cases(9, 200);
  DecodeInputs in = decode_inputs(cases);
  Result<T1DecodeBatchLayout> layout = lay_out_t1_decode_batch(in.blocks, in.out);
  ASSERT_TRUE(layout.ok()) << layout.status().message();
  std::vector<uint8_t> bytes(layout->bytes);
  std::vector<uint32_t> segments(layout->segments);
  for (size_t k = 0; k < in.blocks.size(); ++k) {
    gather_t1_decode_block(in.blocks[k], layout->jobs[k], bytes.data(), segments.data());
  }
  auto device = cuda::T1DeviceDecoder::create();
  ASSERT_TRUE(device.ok()) << device.status().message();
  ASSERT_TRUE((*device)->upload(layout->jobs, bytes, segments, layout->samples).ok());
  ASSERT_TRUE((*device)->decode().ok());
  std::vector<SharedT1DecodeResult> results(layout->jobs.size());
  std::vector<int32_t> samples(layout->samples);
  ASSERT_TRUE((*device)->download(results, samples).ok());
  for (size_t k = 0; k < in.blocks.size(); ++k) {
    const ht_test::Block& b = *in.source[k];
    const std::string what = b.describe() + " block " + std::to_string(k);
    finish_device_decoded_block(in.blocks[k], results[k], samples.data() + layout->jobs[k].sample_offset, in.out[k]);
    ASSERT_TRUE(in.out[k].status.ok()) << what;
    CodeBlockToDecode cpu_in;
    cpu_in.data = in.data[k];
    cpu_in.segment_lengths = in.lengths[k];
    cpu_in.num_passes = in.blocks[k].num_passes;
    cpu_in.zero_bitplanes = in.blocks[k].zero_bitplanes;
    cpu_in.num_bitplanes = in.blocks[k].num_bitplanes;
    cpu_in.style = in.blocks[k].style;
    std::vector<int32_t> cpu(b.v.size());
    auto info = decode_ht_code_block(cpu_in, {cpu.data(), b.w, b.h, b.w});
    ASSERT_TRUE(info.ok()) << what;
    EXPECT_EQ(in.samples[k], cpu) << what;
    EXPECT_EQ(in.out[k].info.lowest_plane, info->lowest_plane) << what;
    EXPECT_EQ(in.out[k].info.ended_in_significance_pass, info->ended_in_significance_pass) << what;
    // The device's own verdict, not a CPU fallback.
    EXPECT_EQ(results[k].status, SharedT1DecodeStatus::kOk) << what;
  }
}

}  // namespace
}  // namespace mallat::entropy

// The shared HT block coder (entropy/ht/shared_code_block.h, what the GPU's
// HT kernels run) against the CPU's (encode_ht_code_block,
// decode_ht_code_block): the same bytes, passes and distortions to the bit
// for random and Laplacian blocks of every shape at every cleanup plane, with
// and without refinement, both vertical modes, with fraction bits; the same
// samples and info for every pass count those streams allow, for streams
// cut short and bytes flipped, and for the parameters the CPU rejects.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "entropy/ht/code_block.h"
#include "entropy/ht/shared_code_block.h"
#include "tests/entropy/ht_test_blocks.h"
#include "tests/entropy/laplacian_block.h"

namespace mallat::entropy {
namespace {

SharedT1Block shared_block(const ht_test::Block& b, bool vertical_causal) {
  SharedT1Block block;
  block.coefficients = b.v.data();
  block.width = b.w;
  block.height = b.h;
  block.stride = b.w;
  block.num_bitplanes = b.mb;
  block.fraction_bits = b.fraction_bits;
  block.style.ht = true;
  block.style.vertical_causal = vertical_causal;
  return block;
}

// Encodes `b` both ways and expects the same; returns the CPU's block.
EncodedCodeBlock expect_same_encoding(const ht_test::Block& b, const HtEncodeSettings& settings,
                                      const std::string& what) {
  auto cpu = encode_ht_code_block(b.view(), b.mb, b.fraction_bits, settings);
  EXPECT_TRUE(cpu.ok()) << what;
  if (!cpu.ok()) return {};
  static HtBlockState state;
  const uint32_t capacity = ht_slot_capacity(static_cast<uint32_t>(b.w * b.h), b.mb + b.fraction_bits);
  std::vector<uint8_t> slot(capacity, 0xAB);
  CodingPass passes[3];
  const HtBlockSettings shared_settings{settings.cleanup_plane, settings.refinement, settings.distortions};
  const SharedT1Result r = encode_ht_block_shared(shared_block(b, settings.vertical_causal), shared_settings, state,
                                                  {slot.data(), capacity, passes}, ht::host_vlc_tables());
  EXPECT_EQ(r.status, SharedT1Status::kOk) << what;
  EXPECT_EQ(r.zero_bitplanes, cpu->zero_bitplanes) << what;
  EXPECT_EQ(r.num_passes, cpu->num_passes) << what;
  EXPECT_EQ(r.length, cpu->data.size()) << what;
  if (r.status != SharedT1Status::kOk || r.length != cpu->data.size()) return *cpu;
  EXPECT_EQ(std::vector<uint8_t>(slot.begin() + 1, slot.begin() + 1 + r.length), cpu->data) << what;
  for (int i = 0; i < r.num_passes && i < static_cast<int>(cpu->passes.size()); ++i) {
    EXPECT_EQ(passes[i].cumulative_length, cpu->passes[i].cumulative_length) << what << " pass " << i;
    EXPECT_EQ(passes[i].terminated, cpu->passes[i].terminated) << what << " pass " << i;
    EXPECT_EQ(passes[i].distortion_decrease, cpu->passes[i].distortion_decrease) << what << " pass " << i;
  }
  return *cpu;
}

// Decodes `data` as a block of `b`'s shape both ways and expects the same.
void expect_same_decoding(const ht_test::Block& b, std::span<const uint8_t> data,
                          std::span<const uint32_t> segment_lengths, int num_passes, int zero_bitplanes,
                          bool vertical_causal, const std::string& what) {
  CodeBlockToDecode block;
  block.data = data;
  block.segment_lengths = segment_lengths;
  block.num_passes = num_passes;
  block.zero_bitplanes = zero_bitplanes;
  block.num_bitplanes = b.mb;
  block.style.ht = true;
  block.style.vertical_causal = vertical_causal;
  std::vector<int32_t> cpu(b.v.size(), -5);
  const auto info = decode_ht_code_block(block, {cpu.data(), b.w, b.h, b.w});

  SharedT1DecodeBlock shared;
  shared.data = data.data();
  shared.length = static_cast<uint32_t>(data.size());
  shared.segment_lengths = segment_lengths.data();
  shared.num_segments = static_cast<uint32_t>(segment_lengths.size());
  shared.width = b.w;
  shared.height = b.h;
  shared.num_passes = num_passes;
  shared.zero_bitplanes = zero_bitplanes;
  shared.num_bitplanes = b.mb;
  shared.style = block.style;
  static HtBlockState state;
  // A stride wider than the block: the padding must stay as it was.
  const int stride = b.w + 2;
  std::vector<int32_t> samples(static_cast<size_t>(stride) * b.h, -5);
  const SharedT1DecodeResult r = decode_ht_block_shared(shared, state, samples.data(), stride, ht::host_vlc_tables());
  ASSERT_EQ(info.ok(), r.status == SharedT1DecodeStatus::kOk) << what;
  if (!info.ok()) return;
  EXPECT_EQ(r.lowest_plane, info->lowest_plane) << what;
  EXPECT_EQ(r.ended_in_significance_pass, info->ended_in_significance_pass) << what;
  for (int y = 0; y < b.h; ++y) {
    for (int x = 0; x < stride; ++x) {
      const int32_t expected = x < b.w ? cpu[static_cast<size_t>(y) * b.w + x] : -5;
      ASSERT_EQ(samples[static_cast<size_t>(y) * stride + x], expected) << what << " at " << x << "," << y;
    }
  }
}

// Every way to cut the passes of `coded` a decoder may be given: the cleanup
// alone, with SigProp, with both; as one segment and as two.
void expect_same_decodings(const ht_test::Block& b, const EncodedCodeBlock& coded, bool vertical_causal,
                           const std::string& what) {
  if (coded.num_passes == 0) {
    expect_same_decoding(b, {}, {}, 0, coded.zero_bitplanes, vertical_causal, what + " empty");
    return;
  }
  for (int n = 1; n <= coded.num_passes; ++n) {
    const uint32_t lcup = coded.passes[0].cumulative_length;
    const uint32_t end = coded.passes[static_cast<size_t>(n - 1)].cumulative_length;
    const std::span<const uint8_t> data(coded.data.data(), end);
    std::vector<uint32_t> lengths = {lcup};
    if (n > 1) lengths.push_back(end - lcup);
    expect_same_decoding(b, data, lengths, n, coded.zero_bitplanes, vertical_causal,
                         what + " passes " + std::to_string(n));
  }
}

TEST(HtShared, RandomBlocksCodeAndDecodeAsTheCpuCoder) {
  std::mt19937 rng(7);
  for (int i = 0; i < 160; ++i) {
    const ht_test::Block b = ht_test::random_block(rng, i % 3 == 0 ? 6 : 0);
    const bool causal = rng() % 2 == 0;
    // Lossless, then a random plane with and without refinement.
    const int p = b.mb > 1 ? static_cast<int>(rng() % static_cast<unsigned>(b.mb)) : 0;
    for (const HtEncodeSettings& settings :
         {HtEncodeSettings{0, false, causal, true}, HtEncodeSettings{p, false, causal, true},
          HtEncodeSettings{p, p > 0, causal, true}, HtEncodeSettings{p, p > 0, causal, false}}) {
      const std::string what = b.describe() + " p=" + std::to_string(settings.cleanup_plane) +
                               (settings.refinement ? " refined" : "") + (causal ? " causal" : "");
      const EncodedCodeBlock coded = expect_same_encoding(b, settings, what);
      expect_same_decodings(b, coded, causal, what);
    }
  }
}

TEST(HtShared, LaplacianBlocksCodeAndDecodeAsTheCpuCoder) {
  for (int i = 0; i < 40; ++i) {
    ht_test::Block b;
    b.w = 64;
    b.h = 64;
    // Every other block with the rate control's two fraction bits: there
    // the coders lower exponent bounds (entropy/ht/exponent_bounds.h).
    b.fraction_bits = 2 * (i % 2);
    b.mb = 16 - b.fraction_bits;
    b.v = laplacian_block(1.0 + 4.0 * i, static_cast<unsigned>(i));
    for (int p = 0; p < 6; ++p) {
      const HtEncodeSettings settings{p, p > 0, i % 2 == 1, true};
      const std::string what = "laplacian " + std::to_string(i) + " p=" + std::to_string(p);
      expect_same_decodings(b, expect_same_encoding(b, settings, what), settings.vertical_causal, what);
    }
  }
}

TEST(HtShared, DamagedStreamsDecodeAsTheCpuCoder) {
  std::mt19937 rng(13);
  for (int i = 0; i < 120; ++i) {
    const ht_test::Block b = ht_test::random_block(rng, 0);
    const int p = b.mb > 1 ? 1 : 0;
    const EncodedCodeBlock coded = expect_same_encoding(b, {p, p > 0, false, true}, b.describe());
    if (coded.num_passes == 0) continue;
    std::vector<uint8_t> data = coded.data;
    // Bytes flipped, then the data cut short of what the lengths say.
    for (int k = 0; k < 1 + i % 4; ++k) data[rng() % data.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
    const std::vector<uint32_t> lengths = {coded.passes[0].cumulative_length,
                                           static_cast<uint32_t>(coded.data.size()) -
                                               coded.passes[0].cumulative_length};
    const std::span<const uint32_t> segments(lengths.data(), coded.num_passes > 1 ? 2 : 1);
    expect_same_decoding(b, data, segments, coded.num_passes, coded.zero_bitplanes, false,
                         b.describe() + " flipped");
    const size_t cut = rng() % data.size();
    expect_same_decoding(b, std::span<const uint8_t>(data.data(), cut), segments, coded.num_passes,
                         coded.zero_bitplanes, false, b.describe() + " cut at " + std::to_string(cut));
    // Random bytes as the whole block, lengths as they are.
    for (uint8_t& byte : data) byte = static_cast<uint8_t>(rng());
    expect_same_decoding(b, data, segments, coded.num_passes, coded.zero_bitplanes, false, b.describe() + " noise");
  }
}

// A slot too small for a block says so (the device batch then codes the
// block again on the CPU) and nothing is written past it.
TEST(HtShared, ASlotTooSmallOverflowsWithinItself) {
  ht_test::Block b;
  b.w = 64;
  b.h = 64;
  b.mb = 16;
  b.v = laplacian_block(40.0, 5);
  static HtBlockState state;
  for (const bool refinement : {false, true}) {
    const uint32_t full = ht_slot_capacity(4096, b.mb);
    for (const uint32_t capacity : {full / 8, full / 40}) {
      std::vector<uint8_t> slot(capacity + 64, 0xAB);
      CodingPass passes[3];
      const SharedT1Result r = encode_ht_block_shared(shared_block(b, false), {refinement ? 1 : 0, refinement, true},
                                                      state, {slot.data(), capacity, passes}, ht::host_vlc_tables());
      EXPECT_EQ(r.status, SharedT1Status::kOutputOverflow) << capacity;
      for (size_t i = capacity; i < slot.size(); ++i) ASSERT_EQ(slot[i], 0xAB) << capacity << " at " << i;
    }
  }
}

TEST(HtShared, RejectsWhatTheCpuCoderRejects) {
  std::mt19937 rng(17);
  ht_test::Block b = ht_test::random_block(rng, 0);
  const std::vector<uint8_t> data(16, 0x55);
  // Too many passes for the planes, P beyond Mb, Mb beyond 31.
  expect_same_decoding(b, data, {}, 3 * b.mb, 0, false, "passes");
  expect_same_decoding(b, data, {}, 1, b.mb + 1, false, "P");
  b.mb = 40;
  expect_same_decoding(b, data, {}, 1, 0, false, "Mb");
}

}  // namespace
}  // namespace mallat::entropy

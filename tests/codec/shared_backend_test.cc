// EncodeOptions/DecodeOptions::dwt_instance (one DWT backend made once and
// reused by many calls) and ::stage_times (each stage's time): neither
// changes a byte of what encode writes or a sample of what decode gives.
#include <gtest/gtest.h>

#include <memory>

#include "codec/codec.h"
#include "common/image.h"

namespace mallat::codec {
namespace {

Image pattern(int64_t w, int64_t h, int n) {
  Image image = make_image(w, h, n, 8, false).value();
  for (int c = 0; c < n; ++c)
    for (int64_t i = 0; i < w * h; ++i)
      image.components[c].samples[i] = static_cast<int32_t>((i * (c + 3) + (i / w) * 7 + ((i ^ (i / w)) & 31)) & 255);
  return image;
}

TEST(SharedBackend, ManyCallsShareOneBackendAndWriteTheSameFiles) {
  auto made = dwt::make_backend(dwt::BackendKind::kCpu, 2);
  ASSERT_TRUE(made.ok()) << made.status().message();
  const std::shared_ptr<dwt::Backend> backend = std::move(*made);
  for (const bool reversible : {true, false}) {
    for (int n : {1, 3}) {
      const Image image = pattern(77, 53, n);
      EncodeOptions own;
      own.threads = 2;
      own.reversible = reversible;
      own.resolutions = 4;
      own.tile_width = own.tile_height = 40;  // several tiles through one backend
      if (!reversible) {
        own.rate_kind = EncodeOptions::RateKind::kRatio;
        own.rate_values = {30, 10};
      }
      EncodeOptions shared = own;
      shared.dwt_instance = backend;
      shared.dwt_backend = dwt::BackendKind::kReference;  // ignored: the instance wins
      const auto a = encode(image, own), b = encode(image, shared);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(*a, *b) << reversible << " " << n;
      DecodeOptions d;
      d.threads = 2;
      const auto x = decode(*a, d);
      d.dwt_instance = backend;
      const auto y = decode(*a, d);
      ASSERT_TRUE(x.ok() && y.ok());
      for (int c = 0; c < n; ++c) EXPECT_EQ(x->components[c].samples, y->components[c].samples);
    }
  }
}

TEST(StageTimes, TimedStagesGiveTheSameFilesAndEveryStageIsMeasured) {
  const Image image = pattern(300, 200, 3);
  for (const bool reversible : {true, false}) {
    EncodeOptions plain;
    plain.threads = 2;
    plain.reversible = reversible;
    plain.rate_kind = EncodeOptions::RateKind::kRatio;
    plain.rate_values = {20};
    StageTimes encode_times;
    EncodeOptions timed = plain;
    timed.stage_times = &encode_times;
    const auto a = encode(image, plain), b = encode(image, timed);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*a, *b);
    EXPECT_GT(encode_times.colour_transform_ms, 0);
    EXPECT_GT(encode_times.dwt_ms, 0);
    EXPECT_GT(encode_times.block_coding_ms, 0);
    EXPECT_GT(encode_times.rate_allocation_ms, 0);
    EXPECT_GT(encode_times.tier2_ms, 0);

    StageTimes decode_times;
    DecodeOptions d;
    d.threads = 2;
    const auto x = decode(*a, d);
    d.stage_times = &decode_times;
    const auto y = decode(*a, d);
    ASSERT_TRUE(x.ok() && y.ok());
    for (int c = 0; c < 3; ++c) EXPECT_EQ(x->components[c].samples, y->components[c].samples);
    EXPECT_GT(decode_times.tier2_ms, 0);
    EXPECT_GT(decode_times.block_coding_ms, 0);
    EXPECT_GT(decode_times.dwt_ms, 0);
    EXPECT_GT(decode_times.colour_transform_ms, 0);
    EXPECT_EQ(decode_times.rate_allocation_ms, 0);
  }
}

}  // namespace
}  // namespace mallat::codec

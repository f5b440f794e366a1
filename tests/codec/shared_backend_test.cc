// CallResources::dwt (one DWT backend made once and reused by many calls)
// and EncodeOptions/DecodeOptions::time_stages (each stage's time in the
// report): neither changes a byte of what encode writes or a sample of what
// decode gives.
#include <gtest/gtest.h>

#include <memory>

#include "codec/codec.h"
#include "codec/decoder/decode_call.h"
#include "codec/encoder/encode_call.h"
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
      shared.dwt_backend = dwt::BackendKind::kReference;  // ignored: the resources' backend wins
      CallResources resources;
      resources.dwt = backend;
      const auto a = encode(image, own), b = encode(image, shared, resources, nullptr);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(*a, *b) << reversible << " " << n;
      DecodeOptions d;
      d.threads = 2;
      const auto x = decode(*a, d);
      const auto y = decode(*a, d, resources, nullptr, nullptr);
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
    EncodeOptions timed = plain;
    timed.time_stages = true;
    EncodeReport report;
    const auto a = encode(image, plain), b = encode(image, timed, &report);
    ASSERT_TRUE(a.ok() && b.ok());
    const StageTimes& encode_times = report.stage_times;
    EXPECT_EQ(*a, *b);
    EXPECT_GT(encode_times.colour_transform_ms, 0);
    EXPECT_GT(encode_times.dwt_ms, 0);
    EXPECT_GT(encode_times.block_coding_ms, 0);
    EXPECT_GT(encode_times.rate_allocation_ms, 0);
    EXPECT_GT(encode_times.tier2_ms, 0);

    DecodeOptions d;
    d.threads = 2;
    const auto x = decode(*a, d);
    d.time_stages = true;
    DecodeReport decoded;
    const auto y = decode(*a, d, &decoded);
    ASSERT_TRUE(x.ok() && y.ok());
    const StageTimes& decode_times = decoded.stage_times;
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

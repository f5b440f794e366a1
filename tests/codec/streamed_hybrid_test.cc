// The streamed encode and decode (codec/api/encode_streamed.h,
// decode_streamed.h) with their code-blocks through the hybrid coders
// (entropy/hybrid/), the host standing in for the device with the shared HT
// block coder (entropy/ht/shared_code_block.h, the source the device's
// kernels run): the CPU path's file and samples, whatever the split, with
// blocks coded on both sides.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "codec/decoder/decode_call.h"
#include "codec/encoder/encode_call.h"
#include "entropy/ht/shared_code_block.h"
#include "entropy/hybrid/hybrid_block_decoder.h"
#include "entropy/hybrid/hybrid_block_encoder.h"
#include "entropy/t1_decode_batch.h"
#include "entropy/t1_encode_batch.h"
#include "tests/codec/encode_streamed_rows.h"
#include "tests/codec/joined_strips.h"

namespace mallat::codec {
namespace {

// Launches the stand-in ran, and the blocks it took.
struct HostRuns {
  std::atomic<int> runs{0};
  std::atomic<size_t> blocks{0};
};

// The HT encoding kernel's work on the host: each job through
// encode_ht_block_shared into its slot, finished as the CUDA coder finishes.
class HostHtEncoder final : public entropy::DeviceBlockEncoder {
 public:
  explicit HostHtEncoder(std::shared_ptr<HostRuns> runs) : runs_(std::move(runs)) {}
  std::string name() const override { return "host"; }
  Status prepare(std::span<const entropy::BlockToEncode> blocks) override {
    blocks_ = blocks;
    MALLAT_ASSIGN_OR_RETURN(layout_, entropy::lay_out_t1_batch(blocks));
    coefficients_.assign(layout_.coefficients, 0);
    return Status::Ok();
  }
  void gather(size_t k) override { entropy::gather_t1_block(blocks_[k], layout_.jobs[k], coefficients_.data()); }
  Status run(entropy::DeviceCodingTimes&) override {
    if (layout_.coder != entropy::BlockCoderKind::kHt) return internal_error("the HT stand-in was given EBCOT blocks");
    const size_t n = layout_.jobs.size(), capacity = layout_.slot_capacity;
    runs_->runs.fetch_add(1);
    runs_->blocks.fetch_add(n);
    results_.assign(n, {});
    passes_.assign(n * entropy::kMaxCodingPasses, {});
    slots_.assign(n * capacity, 0);
    auto state = std::make_unique<entropy::HtBlockState>();
    const entropy::ht::SharedVlcTables tables = entropy::ht::host_vlc_tables();
    for (size_t j = 0; j < n; ++j) {
      const entropy::T1DeviceJob& job = layout_.jobs[j];
      const entropy::HtBlockSettings settings{job.ht_cleanup_plane, (job.ht_flags & entropy::kHtRefinement) != 0,
                                              (job.ht_flags & entropy::kHtDistortions) != 0};
      const entropy::SharedT1Output out{slots_.data() + j * capacity, static_cast<uint32_t>(capacity),
                                        passes_.data() + j * entropy::kMaxCodingPasses};
      results_[j] = entropy::encode_ht_block_shared(entropy::shared_block_of(job, coefficients_.data()), settings,
                                                    *state, out, tables);
    }
    return Status::Ok();
  }
  Result<entropy::EncodedCodeBlock> finish(size_t k) override {
    return entropy::finish_device_block(blocks_[k], results_[k], passes_.data() + k * entropy::kMaxCodingPasses,
                                        slots_.data() + k * layout_.slot_capacity, layout_.slot_capacity);
  }
  Status reserve(size_t, size_t) override { return Status::Ok(); }

 private:
  std::shared_ptr<HostRuns> runs_;
  std::span<const entropy::BlockToEncode> blocks_;
  entropy::T1DeviceBatchLayout layout_;
  std::vector<int32_t> coefficients_;
  std::vector<entropy::SharedT1Result> results_;
  std::vector<entropy::CodingPass> passes_;
  std::vector<uint8_t> slots_;
};

// The HT decoding kernel's work on the host: each job through
// decode_ht_block_shared into one sample buffer, finished as the CUDA
// decoder finishes.
class HostHtDecoder final : public entropy::DeviceBlockDecoder {
 public:
  explicit HostHtDecoder(std::shared_ptr<HostRuns> runs) : runs_(std::move(runs)) {}
  std::string name() const override { return "host"; }
  Status prepare(std::span<const entropy::BlockToDecode> blocks, std::span<const entropy::DecodedBlock> out) override {
    blocks_ = blocks;
    MALLAT_ASSIGN_OR_RETURN(layout_, entropy::lay_out_t1_decode_batch(blocks, out));
    bytes_.assign(layout_.bytes, 0);
    segments_.assign(layout_.segments, 0);
    return Status::Ok();
  }
  void gather(size_t k) override {
    entropy::gather_t1_decode_block(blocks_[k], layout_.jobs[k], bytes_.data(), segments_.data());
  }
  Status run(entropy::DeviceCodingTimes&) override {
    if (layout_.coder != entropy::BlockCoderKind::kHt) return internal_error("the HT stand-in was given EBCOT blocks");
    runs_->runs.fetch_add(1);
    runs_->blocks.fetch_add(layout_.jobs.size());
    samples_.assign(layout_.samples, 0x7A7A7A7A);
    results_.assign(layout_.jobs.size(), {});
    auto state = std::make_unique<entropy::HtBlockState>();
    const entropy::ht::SharedVlcTables tables = entropy::ht::host_vlc_tables();
    for (size_t j = 0; j < layout_.jobs.size(); ++j) {
      const entropy::T1DecodeJob& job = layout_.jobs[j];
      results_[j] = entropy::decode_ht_block_shared(entropy::shared_block_of(job, bytes_.data(), segments_.data()),
                                                    *state, samples_.data() + job.sample_offset, job.width, tables);
    }
    return Status::Ok();
  }
  void finish(size_t k, entropy::DecodedBlock& out) override {
    entropy::finish_device_decoded_block(blocks_[k], results_[k], samples_.data() + layout_.jobs[k].sample_offset,
                                         out);
  }
  Status reserve(size_t, size_t, size_t) override { return Status::Ok(); }

 private:
  std::shared_ptr<HostRuns> runs_;
  std::span<const entropy::BlockToDecode> blocks_;
  entropy::T1DecodeBatchLayout layout_;
  std::vector<uint8_t> bytes_;
  std::vector<uint32_t> segments_;
  std::vector<int32_t> samples_;
  std::vector<entropy::SharedT1DecodeResult> results_;
};

// `share` of each batch's samples to the stand-in, unadapted, every batch.
entropy::DeviceCoderOptions split(double share) {
  entropy::DeviceCoderOptions o;
  o.device_share = share;
  o.adapt = false;
  o.wait_for_device = true;
  o.min_device_blocks = 0;
  return o;
}

// The hybrid coders over the stand-ins as HT's devices.
std::shared_ptr<entropy::BlockEncoder> hybrid_encoder(std::shared_ptr<HostRuns> runs, double share) {
  entropy::DeviceBlockEncoderStart start = [runs]() -> Result<std::unique_ptr<entropy::DeviceBlockEncoder>> {
    return std::unique_ptr<entropy::DeviceBlockEncoder>(new HostHtEncoder(runs));
  };
  return entropy::make_hybrid_block_encoder(
      entropy::device_block_encoders(entropy::BlockCoderKind::kHt, std::move(start)), split(share));
}
std::shared_ptr<entropy::BlockDecoder> hybrid_decoder(std::shared_ptr<HostRuns> runs, double share) {
  entropy::DeviceBlockDecoderStart start = [runs]() -> Result<std::unique_ptr<entropy::DeviceBlockDecoder>> {
    return std::unique_ptr<entropy::DeviceBlockDecoder>(new HostHtDecoder(runs));
  };
  return entropy::make_hybrid_block_decoder(
      entropy::device_block_decoders(entropy::BlockCoderKind::kHt, std::move(start)), split(share));
}

// HT lossless (one tile, and tiles), and HT quantised under a rate target
// (rate control by estimates: the kept blocks coded at their planes, with
// SigProp and MagRef): the streamed encode through the hybrid coder writes
// the CPU's file, and the streamed decode of it through the hybrid decoder
// gives the CPU's samples, each with blocks on the stand-in.
TEST(StreamedHybrid, HtBlocksOnTheDeviceGiveTheCpuPathsFileAndSamples) {
  const Image image = test_image(176, 136, 3, 8, false, 38);
  for (int variant = 0; variant < 3; ++variant) {
    EncodeOptions o = options(4);
    o.style.ht = true;
    o.xcb = o.ycb = 4;  // 16x16 blocks: many to a row of code-blocks
    if (variant == 1) o.tile_width = o.tile_height = 96;
    if (variant == 2) {
      o.reversible = false;
      o.rate_kind = EncodeOptions::RateKind::kRatio;
      o.rate_values = {12};
    }
    const std::string what = "variant " + std::to_string(variant);
    expect_same(image, o, what);  // the CPU's streamed file is encode()'s
    const Result<std::vector<uint8_t>> cpu = streamed(image, o);
    ASSERT_TRUE(cpu.ok()) << what << ": " << cpu.status().message();
    DecodeOptions d;
    d.threads = 2;
    const Result<Image> want = decode(*cpu, d);
    ASSERT_TRUE(want.ok()) << what << ": " << want.status().message();
    for (const double share : {0.4, 1.0}) {
      const std::string at = what + " share " + std::to_string(share);
      auto encode_runs = std::make_shared<HostRuns>();
      CallResources resources;
      resources.block_encoder = hybrid_encoder(encode_runs, share);
      ImageRows rows{image, {}};
      std::vector<uint8_t> file;
      const FileSink sink = [&](std::span<const uint8_t> piece) {
        file.insert(file.end(), piece.begin(), piece.end());
        return Status::Ok();
      };
      ASSERT_TRUE(encode_streamed(rows.source(), o, resources, sink, nullptr).ok()) << at;
      EXPECT_TRUE(file == *cpu) << at << ": " << file.size() << " bytes, the CPU's " << cpu->size();
      EXPECT_GT(encode_runs->runs.load(), 1) << at;
      const entropy::DeviceCodingTimes coded = resources.block_encoder->device_times();
      EXPECT_GT(coded.device_blocks, 0u) << at;
      EXPECT_EQ(encode_runs->blocks.load(), coded.device_blocks) << at;  // each once
      EXPECT_EQ(coded.cpu_blocks > 0, share < 1) << at;

      auto decode_runs = std::make_shared<HostRuns>();
      CallResources decoding;
      decoding.block_decoder = hybrid_decoder(decode_runs, share);
      JoinedStrips strips;
      const Result<bool> done = decode_streamed(*cpu, d, decoding, strips, nullptr);
      ASSERT_TRUE(done.ok()) << at << ": " << done.status().message();
      ASSERT_TRUE(*done) << at;
      ASSERT_EQ(strips.image.components.size(), want->components.size()) << at;
      for (size_t c = 0; c < want->components.size(); ++c)
        EXPECT_TRUE(strips.image.components[c].samples == want->components[c].samples) << at << " component " << c;
      EXPECT_GT(decode_runs->runs.load(), 1) << at;
      const entropy::DeviceCodingTimes decoded = decoding.block_decoder->device_times();
      EXPECT_GT(decoded.device_blocks, 0u) << at;
      EXPECT_EQ(decode_runs->blocks.load(), decoded.device_blocks) << at;
    }
  }
}

}  // namespace
}  // namespace mallat::codec

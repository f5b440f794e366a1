#include "entropy/hybrid_block_encoder.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

#include "entropy/hybrid_coding.h"
#include "entropy/t1.h"

namespace mallat::entropy {
namespace {

uint64_t samples_of(const BlockToEncode& b) {
  return static_cast<uint64_t>(b.coefficients.width) * static_cast<uint64_t>(b.coefficients.height);
}

// The room a launch takes for `options.expected_samples`: the device's
// share with a margin for the share's moves, in blocks of 4096 samples (a
// 64x64 block; smaller ones at the edges, so twice as many blocks).
struct ExpectedLaunch {
  size_t coefficients = 0, blocks = 0;
};
ExpectedLaunch expected_launch(const DeviceCoderOptions& options) {
  const double share = std::min(1.0, std::clamp(options.device_share, 0.0, 1.0) * 1.5);
  ExpectedLaunch e;
  e.coefficients = static_cast<size_t>(static_cast<double>(options.expected_samples) * share);
  e.blocks = std::min(options.max_blocks_per_launch, e.coefficients / 2048 + 1);
  return e;
}

std::shared_ptr<detail::DeviceStart<T1Device>> start_encoder_device(T1DeviceStart make,
                                                                  const DeviceCoderOptions& options) {
  const ExpectedLaunch expected = expected_launch(options);
  std::function<Status(T1Device&)> prepare;
  if (expected.coefficients > 0) {
    prepare = [expected](T1Device& d) { return d.reserve(expected.coefficients, expected.blocks); };
  }
  return detail::start_device<T1Device>(std::move(make), std::move(prepare));
}

class HybridBlockEncoder final : public BlockEncoder {
 public:
  HybridBlockEncoder(T1DeviceStart make, const DeviceCoderOptions& options)
      : options_(options),
        share_(std::clamp(options.device_share, 0.0, 1.0)),
        ht_(make_ht_block_encoder()),
        cpu_(make_ebcot_block_encoder()),
        start_(start_encoder_device(std::move(make), options)) {}

  std::string name() const override { return start_->coder_name("ebcot"); }
  DeviceCodingTimes device_times() const override { return times_; }
  Status device_status() const override { return start_->start_status(); }

  Status encode(std::span<const BlockToEncode> blocks, std::span<EncodedCodeBlock> out, ThreadPool& pool,
                const BatchWork& work) override {
    if (out.size() != blocks.size()) return invalid_argument("a Tier-1 batch and its outputs differ in size");
    // 15444-15 blocks stay on the CPU's HT coder (one kind per batch,
    // codec/stages/block_coding.cc).
    if (!blocks.empty() && block_coder_kind(blocks[0].style) == BlockCoderKind::kHt) {
      return ht_->encode(blocks, out, pool, work);
    }
    T1Device* const device = start_->ready(options_.wait_for_device);
    std::vector<uint64_t> samples(blocks.size());
    for (size_t k = 0; k < blocks.size(); ++k) samples[k] = samples_of(blocks[k]);
    const size_t n = device == nullptr ? 0 : detail::device_block_count(samples, share_, options_);
    if (n == 0) {
      times_.cpu_blocks += blocks.size();
      return cpu_->encode(blocks, out, pool, work);
    }
    // Blocks [0, n) on the device, [n, size) on the pool from the back;
    // each quantised (work.each) just before it is gathered or coded.
    const auto start = std::chrono::steady_clock::now();
    MALLAT_RETURN_IF_ERROR(device->prepare(blocks.first(n)).with_context("Tier-1 on the device"));
    times_.prepare_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    detail::SplitSteps steps;
    steps.gather = [&](size_t j) {
      if (work.each) work.each(j);
      device->gather(j);
    };
    steps.run = [&](DeviceCodingTimes& t) { return device->run(t); };
    steps.cpu = [&](size_t k) -> Status {
      if (work.each) work.each(k);
      const BlockToEncode& b = blocks[k];
      MALLAT_ASSIGN_OR_RETURN(out[k], encode_code_block(b.coefficients, b.orientation, b.num_bitplanes, b.style,
                                                        b.fraction_bits));
      return Status::Ok();
    };
    steps.finish = [&](size_t k) -> Status {
      MALLAT_ASSIGN_OR_RETURN(out[k], device->finish(k));
      return Status::Ok();
    };
    return detail::hybrid_split(n, samples, pool, work, steps, times_, options_.adapt, share_);
  }

 private:
  DeviceCoderOptions options_;
  double share_;
  std::unique_ptr<BlockEncoder> ht_;
  std::unique_ptr<BlockEncoder> cpu_;
  std::shared_ptr<detail::DeviceStart<T1Device>> start_;
  DeviceCodingTimes times_;
};

}  // namespace

std::unique_ptr<BlockEncoder> make_hybrid_block_encoder(T1DeviceStart start, const DeviceCoderOptions& options) {
  return std::make_unique<HybridBlockEncoder>(std::move(start), options);
}


}  // namespace mallat::entropy

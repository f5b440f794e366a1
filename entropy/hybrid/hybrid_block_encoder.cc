#include "entropy/hybrid/hybrid_block_encoder.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "entropy/hybrid/coalesced_launch.h"
#include "entropy/hybrid/hybrid_coding.h"
#include "entropy/ebcot/ebcot.h"

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

// The start-up's room for the expected image, or nothing.
std::function<Status(T1Device&)> reserve_expected(const DeviceCoderOptions& options) {
  const ExpectedLaunch expected = expected_launch(options);
  if (expected.coefficients == 0) return {};
  return [expected](T1Device& d) { return d.reserve(expected.coefficients, expected.blocks); };
}

class HybridBlockEncoder final : public BlockEncoder {
 public:
  HybridBlockEncoder(T1DeviceStart make, const DeviceCoderOptions& options)
      : options_(options),
        ht_(make_ht_block_encoder()),
        cpu_(make_ebcot_block_encoder()),
        slots_(options.device_slots, make, reserve_expected(options)),
        launches_(detail::round_rule(options)),
        state_(std::clamp(options.device_share, 0.0, 1.0)) {}

  std::string name() const override { return slots_.first().coder_name("ebcot"); }
  DeviceCodingTimes device_times() const override { return state_.times(); }
  Status device_status() const override {
    const Status started = slots_.start_failure();
    return started.ok() ? state_.failure() : started;
  }

  Status encode(std::span<const BlockToEncode> blocks, std::span<EncodedCodeBlock> out, ThreadPool& pool,
                const BatchWork& work) override {
    if (out.size() != blocks.size()) return invalid_argument("a Tier-1 batch and its outputs differ in size");
    // 15444-15 blocks stay on the CPU's HT coder (one kind per batch,
    // codec/stages/block_coding.cc).
    if (!blocks.empty() && block_coder_kind(blocks[0].style) == BlockCoderKind::kHt) {
      return ht_->encode(blocks, out, pool, work);
    }
    const bool ready = slots_.ready(options_.wait_for_device);
    std::vector<uint64_t> samples(blocks.size());
    for (size_t k = 0; k < blocks.size(); ++k) samples[k] = samples_of(blocks[k]);
    return state_.code(
        samples, ready, options_, [&] { return cpu_->encode(blocks, out, pool, work); },
        [&](size_t n, DeviceCodingTimes& times, double& share) {
          return encode_split(n, samples, blocks, out, pool, work, times, share);
        });
  }

 private:
  // Blocks [0, n) on the device, [n, size) on the pool from the back;
  // each quantised (work.each) just before it is gathered or coded. The
  // device's blocks go in one launch with other callers' (entropy/hybrid/coalesced_launch.h).
  Status encode_split(size_t n, std::span<const uint64_t> samples, std::span<const BlockToEncode> blocks,
                      std::span<EncodedCodeBlock> out, ThreadPool& pool, const BatchWork& work,
                      DeviceCodingTimes& times, double& share) {
    const auto start = std::chrono::steady_clock::now();
    Result<Launches::Ticket> joined = launches_.join(
        n,
        [&](Lists& l) { l.insert(l.end(), blocks.begin(), blocks.begin() + static_cast<std::ptrdiff_t>(n)); },
        [&](const Lists& l, int slot) -> Status {
          MALLAT_ASSIGN_OR_RETURN(T1Device * d, slots_.at(slot));
          return d->prepare(l);
        });
    if (!joined.ok()) return joined.status().with_context("Tier-1 on the device");
    const Launches::Ticket ticket = *joined;
    T1Device& device = **slots_.at(ticket.round->slot);
    const size_t at = ticket.offset;
    const std::string round = detail::note_join(*ticket.round, start, times);
    auto on_cpu = [&](size_t k) -> Status {
      const BlockToEncode& b = blocks[k];
      MALLAT_ASSIGN_OR_RETURN(out[k], encode_code_block(b.coefficients, b.orientation, b.num_bitplanes, b.style,
                                                        b.fraction_bits));
      return Status::Ok();
    };
    // A failed launch leaves the device's blocks, quantised as they were
    // gathered, to the CPU: the same bytes, and the device is not used again.
    Status launch;
    detail::SplitSteps steps;
    steps.gather = [&](size_t j) {
      if (work.each) work.each(j);
      device.gather(at + j);
    };
    steps.run = [&](DeviceCodingTimes& t) {
      launch = launches_.run(
          ticket, [&] { return detail::run_recorded([&](DeviceCodingTimes& own) { return device.run(own); }, t, round); });
      return Status::Ok();
    };
    steps.cpu = [&](size_t k) -> Status {
      if (work.each) work.each(k);
      return on_cpu(k);
    };
    steps.finish = [&](size_t k) -> Status {
      if (!launch.ok()) return on_cpu(k);
      MALLAT_ASSIGN_OR_RETURN(out[k], device.finish(at + k));
      return Status::Ok();
    };
    const Status split = detail::hybrid_split(n, samples, pool, work, steps, times, options_.adapt, share);
    launches_.leave(ticket);
    if (!launch.ok()) state_.device_failed(launch.with_context("Tier-1 on the device"));
    return split;
  }

  using Lists = std::vector<BlockToEncode>;
  using Launches = detail::CoalescedLaunches<Lists>;

  DeviceCoderOptions options_;
  std::unique_ptr<BlockEncoder> ht_;
  std::unique_ptr<BlockEncoder> cpu_;
  detail::DeviceSlots<T1Device> slots_;
  Launches launches_;
  detail::SplitState state_;
};

}  // namespace

std::unique_ptr<BlockEncoder> make_hybrid_block_encoder(T1DeviceStart start, const DeviceCoderOptions& options) {
  return std::make_unique<HybridBlockEncoder>(std::move(start), options);
}


}  // namespace mallat::entropy

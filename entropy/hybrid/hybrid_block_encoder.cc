#include "entropy/hybrid/hybrid_block_encoder.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "entropy/cpu_block_coder.h"
#include "entropy/device_coders.h"
#include "entropy/hybrid/coalesced_launch.h"
#include "entropy/hybrid/hybrid_coding.h"

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
std::function<Status(DeviceBlockEncoder&)> reserve_expected(const DeviceCoderOptions& options) {
  const ExpectedLaunch expected = expected_launch(options);
  if (expected.coefficients == 0) return {};
  return [expected](DeviceBlockEncoder& d) { return d.reserve(expected.coefficients, expected.blocks); };
}

using Lists = std::vector<BlockToEncode>;
using Launches = detail::CoalescedLaunches<Lists>;
using DeviceLane = detail::DeviceLane<DeviceBlockEncoder, Lists>;

class HybridBlockEncoder final : public BlockEncoder {
 public:
  HybridBlockEncoder(const DeviceBlockEncoders& devices, const DeviceCoderOptions& options) : options_(options) {
    for (size_t c = 0; c < kBlockCoderKinds; ++c) {
      const auto coder = static_cast<BlockCoderKind>(c);
      cpu_[c] = coder == BlockCoderKind::kHt ? make_ht_block_encoder() : make_ebcot_block_encoder();
      if (devices.start[c] && device_encodes(coder)) {
        lanes_[c] = std::make_unique<DeviceLane>(devices.start[c], reserve_expected(options), options);
      }
    }
  }

  std::string name() const override {
    return detail::lanes_name(lanes_, [this](size_t c) { return cpu_[c]->name(); });
  }
  DeviceCodingTimes device_times() const override { return detail::lanes_times(lanes_); }
  Status device_status() const override { return detail::lanes_status(lanes_); }

  Status encode(std::span<const BlockToEncode> blocks, std::span<EncodedCodeBlock> out, ThreadPool& pool,
                const BatchWork& work) override {
    if (out.size() != blocks.size()) return invalid_argument("a Tier-1 batch and its outputs differ in size");
    // One coder per batch (codec/stages/block_coding.cc); one without a
    // device stays on its CPU coder. An empty batch (its beside work alone)
    // goes as Part 1's.
    const BlockCoderKind coder = blocks.empty() ? BlockCoderKind::kEbcot : block_coder_kind(blocks[0].style);
    const size_t c = static_cast<size_t>(coder);
    if (!lanes_[c]) return cpu_[c]->encode(blocks, out, pool, work);
    DeviceLane& lane = *lanes_[c];
    const bool ready = lane.slots.ready(options_.wait_for_device);
    std::vector<uint64_t> samples(blocks.size());
    for (size_t k = 0; k < blocks.size(); ++k) samples[k] = samples_of(blocks[k]);
    return lane.state.code(
        samples, ready, options_, [&] { return cpu_[c]->encode(blocks, out, pool, work); },
        [&](size_t n, DeviceCodingTimes& times, double& share) {
          return encode_split(lane, detail::one_block_encoder(coder), n, samples, blocks, out, pool, work, times,
                              share);
        });
  }

 private:
  // Blocks [0, n) on `lane`'s device, [n, size) on the pool from the back
  // by `on_cpu_coder`; each quantised (work.each) just before it is
  // gathered or coded. The device's blocks go in one launch with other
  // callers' (entropy/hybrid/coalesced_launch.h).
  Status encode_split(DeviceLane& lane, detail::EncodeOneBlock on_cpu_coder, size_t n,
                      std::span<const uint64_t> samples, std::span<const BlockToEncode> blocks,
                      std::span<EncodedCodeBlock> out, ThreadPool& pool, const BatchWork& work,
                      DeviceCodingTimes& times, double& share) {
    const auto start = std::chrono::steady_clock::now();
    Result<Launches::Ticket> joined = lane.launches.join(
        n,
        [&](Lists& l) { l.insert(l.end(), blocks.begin(), blocks.begin() + static_cast<std::ptrdiff_t>(n)); },
        [&](const Lists& l, int slot) -> Status {
          MALLAT_ASSIGN_OR_RETURN(DeviceBlockEncoder * d, lane.slots.at(slot));
          return d->prepare(l);
        });
    if (!joined.ok()) return joined.status().with_context("Tier-1 on the device");
    const Launches::Ticket ticket = *joined;
    DeviceBlockEncoder& device = **lane.slots.at(ticket.round->slot);
    const size_t at = ticket.offset;
    const std::string round = detail::note_join(*ticket.round, start, times);
    auto on_cpu = [&](size_t k) -> Status {
      MALLAT_ASSIGN_OR_RETURN(out[k], on_cpu_coder(blocks[k]));
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
      launch = lane.launches.run(
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
    lane.launches.leave(ticket);
    if (!launch.ok()) lane.state.device_failed(launch.with_context("Tier-1 on the device"));
    return split;
  }

  DeviceCoderOptions options_;
  // Per coder (BlockCoderKind): its CPU coder, and its device side where it
  // has one.
  std::array<std::unique_ptr<BlockEncoder>, kBlockCoderKinds> cpu_;
  detail::Lanes<DeviceLane> lanes_;
};

}  // namespace

std::unique_ptr<BlockEncoder> make_hybrid_block_encoder(DeviceBlockEncoders devices,
                                                        const DeviceCoderOptions& options) {
  return std::make_unique<HybridBlockEncoder>(devices, options);
}

}  // namespace mallat::entropy

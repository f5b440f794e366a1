#include "entropy/hybrid/hybrid_block_decoder.h"

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

uint64_t samples_of(const DecodedBlock& b) {
  return static_cast<uint64_t>(b.samples.width) * static_cast<uint64_t>(b.samples.height);
}

// The room a launch takes for `options.expected_samples`: the device's share
// with a margin for the share's moves; codeword bytes of about 2 bytes a
// sample at most for lossless coding (16 planes' worth for a few); blocks of
// 4096 samples (smaller ones at the edges, so twice as many).
Status reserve_expected(DeviceBlockDecoder& device, const DeviceCoderOptions& options) {
  const double share = std::min(1.0, std::clamp(options.device_share, 0.0, 1.0) * 1.5);
  const auto samples = static_cast<size_t>(static_cast<double>(options.expected_samples) * share);
  return device.reserve(2 * samples, samples, std::min(options.max_blocks_per_launch, samples / 2048 + 1));
}

// The start-up's room for the expected image, or nothing.
std::function<Status(DeviceBlockDecoder&)> prepare_for(const DeviceCoderOptions& options) {
  if (options.expected_samples == 0) return {};
  return [options](DeviceBlockDecoder& d) { return reserve_expected(d, options); };
}

struct Lists {
  std::vector<BlockToDecode> blocks;
  std::vector<DecodedBlock> out;
};
using Launches = detail::CoalescedLaunches<Lists>;
using DeviceLane = detail::DeviceLane<DeviceBlockDecoder, Lists>;

class HybridBlockDecoder final : public BlockDecoder {
 public:
  HybridBlockDecoder(const DeviceBlockDecoders& devices, const DeviceCoderOptions& options) : options_(options) {
    for (size_t c = 0; c < kBlockCoderKinds; ++c) {
      const auto coder = static_cast<BlockCoderKind>(c);
      cpu_[c] = coder == BlockCoderKind::kHt ? make_ht_block_decoder() : make_ebcot_block_decoder();
      if (devices.start[c] && device_decodes(coder)) {
        lanes_[c] = std::make_unique<DeviceLane>(devices.start[c], prepare_for(options), options);
      }
    }
  }

  std::string name() const override {
    return detail::lanes_name(lanes_, [this](size_t c) { return cpu_[c]->name() + " decoding"; });
  }
  DeviceCodingTimes device_times() const override { return detail::lanes_times(lanes_); }
  Status device_status() const override { return detail::lanes_status(lanes_); }

  Status decode(std::span<const BlockToDecode> blocks, std::span<DecodedBlock> out, ThreadPool& pool,
                const BatchWork& work) override {
    if (out.size() != blocks.size()) return invalid_argument("a Tier-1 batch and its outputs differ in size");
    // One coder per batch (codec/stages/block_coding.cc); one without a
    // device stays on its CPU decoder. An empty batch (its beside work
    // alone) goes as Part 1's.
    const BlockCoderKind coder = blocks.empty() ? BlockCoderKind::kEbcot : block_coder_kind(blocks[0].style);
    const size_t c = static_cast<size_t>(coder);
    if (!lanes_[c]) return cpu_[c]->decode(blocks, out, pool, work);
    DeviceLane& lane = *lanes_[c];
    const bool ready = lane.slots.ready(options_.wait_for_device);
    std::vector<uint64_t> samples(out.size());
    for (size_t k = 0; k < out.size(); ++k) samples[k] = samples_of(out[k]);
    return lane.state.code(
        samples, ready, options_, [&] { return cpu_[c]->decode(blocks, out, pool, work); },
        [&](size_t n, DeviceCodingTimes& times, double& share) {
          return decode_split(lane, detail::one_block_decoder(coder), n, samples, blocks, out, pool, work, times,
                              share);
        });
  }

 private:
  // Blocks [0, n) on `lane`'s device, [n, size) on the pool from the back
  // by `on_cpu_coder`; each dequantised (work.each) once its samples are
  // in place. The device's blocks go in one launch with other callers'
  // (entropy/hybrid/coalesced_launch.h).
  Status decode_split(DeviceLane& lane, detail::DecodeOneBlock on_cpu_coder, size_t n,
                      std::span<const uint64_t> samples, std::span<const BlockToDecode> blocks,
                      std::span<DecodedBlock> out, ThreadPool& pool, const BatchWork& work,
                      DeviceCodingTimes& times, double& share) {
    const auto start = std::chrono::steady_clock::now();
    const auto first_n = static_cast<std::ptrdiff_t>(n);
    Result<Launches::Ticket> joined = lane.launches.join(
        n,
        [&](Lists& l) {
          l.blocks.insert(l.blocks.end(), blocks.begin(), blocks.begin() + first_n);
          l.out.insert(l.out.end(), out.begin(), out.begin() + first_n);
        },
        [&](const Lists& l, int slot) -> Status {
          MALLAT_ASSIGN_OR_RETURN(DeviceBlockDecoder * d, lane.slots.at(slot));
          return d->prepare(l.blocks, l.out);
        });
    if (!joined.ok()) return joined.status().with_context("Tier-1 on the device");
    const Launches::Ticket ticket = *joined;
    DeviceBlockDecoder& device = **lane.slots.at(ticket.round->slot);
    const size_t at = ticket.offset;
    const std::string round = detail::note_join(*ticket.round, start, times);
    auto after = [&](size_t k) {
      if (out[k].status.ok() && work.each) work.each(k);
      return Status::Ok();
    };
    // A failed launch leaves the device's blocks to the CPU: the same
    // samples, and the device is not used again.
    Status launch;
    detail::SplitSteps steps;
    steps.gather = [&](size_t j) { device.gather(at + j); };
    steps.run = [&](DeviceCodingTimes& t) {
      launch = lane.launches.run(
          ticket, [&] { return detail::run_recorded([&](DeviceCodingTimes& own) { return device.run(own); }, t, round); });
      return Status::Ok();
    };
    steps.cpu = [&](size_t k) {
      detail::decode_one_block(on_cpu_coder, blocks[k], out[k]);
      return after(k);
    };
    steps.finish = [&](size_t k) {
      if (launch.ok()) {
        device.finish(at + k, out[k]);
      } else {
        detail::decode_one_block(on_cpu_coder, blocks[k], out[k]);
      }
      return after(k);
    };
    const Status split = detail::hybrid_split(n, samples, pool, work, steps, times, options_.adapt, share);
    lane.launches.leave(ticket);
    if (!launch.ok()) lane.state.device_failed(launch.with_context("Tier-1 on the device"));
    return split;
  }

  DeviceCoderOptions options_;
  // Per coder (BlockCoderKind): its CPU decoder, and its device side where
  // it has one.
  std::array<std::unique_ptr<BlockDecoder>, kBlockCoderKinds> cpu_;
  detail::Lanes<DeviceLane> lanes_;
};

}  // namespace

std::unique_ptr<BlockDecoder> make_hybrid_block_decoder(DeviceBlockDecoders devices,
                                                        const DeviceCoderOptions& options) {
  return std::make_unique<HybridBlockDecoder>(devices, options);
}

}  // namespace mallat::entropy

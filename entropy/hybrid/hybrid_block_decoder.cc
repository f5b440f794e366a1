#include "entropy/hybrid/hybrid_block_decoder.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "entropy/hybrid/coalesced_launch.h"
#include "entropy/hybrid/hybrid_coding.h"
#include "entropy/ebcot/decode_batch.h"

namespace mallat::entropy {
namespace {

uint64_t samples_of(const DecodedBlock& b) {
  return static_cast<uint64_t>(b.samples.width) * static_cast<uint64_t>(b.samples.height);
}

// The room a launch takes for `options.expected_samples`: the device's share
// with a margin for the share's moves; codeword bytes of about 2 bytes a
// sample at most for lossless coding (16 planes' worth for a few); blocks of
// 4096 samples (smaller ones at the edges, so twice as many).
Status reserve_expected(T1DecodeDevice& device, const DeviceCoderOptions& options) {
  const double share = std::min(1.0, std::clamp(options.device_share, 0.0, 1.0) * 1.5);
  const auto samples = static_cast<size_t>(static_cast<double>(options.expected_samples) * share);
  return device.reserve(2 * samples, samples, std::min(options.max_blocks_per_launch, samples / 2048 + 1));
}

class HybridBlockDecoder final : public BlockDecoder {
 public:
  HybridBlockDecoder(T1DecodeDeviceStart make, const DeviceCoderOptions& options)
      : options_(options),
        ht_(make_ht_block_decoder()),
        cpu_(make_ebcot_block_decoder()),
        slots_(options.device_slots, make, prepare_for(options)),
        launches_(detail::round_rule(options)),
        state_(std::clamp(options.device_share, 0.0, 1.0)) {}

  std::string name() const override { return slots_.first().coder_name("ebcot decoding"); }
  DeviceCodingTimes device_times() const override { return state_.times(); }
  Status device_status() const override {
    const Status started = slots_.start_failure();
    return started.ok() ? state_.failure() : started;
  }

  Status decode(std::span<const BlockToDecode> blocks, std::span<DecodedBlock> out, ThreadPool& pool,
                const BatchWork& work) override {
    if (out.size() != blocks.size()) return invalid_argument("a Tier-1 batch and its outputs differ in size");
    // 15444-15 blocks stay on the CPU's HT decoder (one kind per batch,
    // codec/stages/block_coding.cc).
    if (!blocks.empty() && block_coder_kind(blocks[0].style) == BlockCoderKind::kHt) {
      return ht_->decode(blocks, out, pool, work);
    }
    const bool ready = slots_.ready(options_.wait_for_device);
    std::vector<uint64_t> samples(out.size());
    for (size_t k = 0; k < out.size(); ++k) samples[k] = samples_of(out[k]);
    return state_.code(
        samples, ready, options_, [&] { return cpu_->decode(blocks, out, pool, work); },
        [&](size_t n, DeviceCodingTimes& times, double& share) {
          return decode_split(n, samples, blocks, out, pool, work, times, share);
        });
  }

 private:
  struct Lists {
    std::vector<BlockToDecode> blocks;
    std::vector<DecodedBlock> out;
  };
  using Launches = detail::CoalescedLaunches<Lists>;

  // Blocks [0, n) on the device, [n, size) on the pool from the back; each
  // dequantised (work.each) once its samples are in place. The device's
  // blocks go in one launch with other callers' (entropy/hybrid/coalesced_launch.h).
  // The start-up's room for the expected image, or nothing.
  static std::function<Status(T1DecodeDevice&)> prepare_for(const DeviceCoderOptions& options) {
    if (options.expected_samples == 0) return {};
    return [options](T1DecodeDevice& d) { return reserve_expected(d, options); };
  }

  Status decode_split(size_t n, std::span<const uint64_t> samples, std::span<const BlockToDecode> blocks,
                      std::span<DecodedBlock> out, ThreadPool& pool, const BatchWork& work,
                      DeviceCodingTimes& times, double& share) {
    const auto start = std::chrono::steady_clock::now();
    const auto first_n = static_cast<std::ptrdiff_t>(n);
    Result<Launches::Ticket> joined = launches_.join(
        n,
        [&](Lists& l) {
          l.blocks.insert(l.blocks.end(), blocks.begin(), blocks.begin() + first_n);
          l.out.insert(l.out.end(), out.begin(), out.begin() + first_n);
        },
        [&](const Lists& l, int slot) -> Status {
          MALLAT_ASSIGN_OR_RETURN(T1DecodeDevice * d, slots_.at(slot));
          return d->prepare(l.blocks, l.out);
        });
    if (!joined.ok()) return joined.status().with_context("Tier-1 on the device");
    const Launches::Ticket ticket = *joined;
    T1DecodeDevice& device = **slots_.at(ticket.round->slot);
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
      launch = launches_.run(
          ticket, [&] { return detail::run_recorded([&](DeviceCodingTimes& own) { return device.run(own); }, t, round); });
      return Status::Ok();
    };
    steps.cpu = [&](size_t k) {
      decode_block_on_cpu(blocks[k], out[k]);
      return after(k);
    };
    steps.finish = [&](size_t k) {
      if (launch.ok()) {
        device.finish(at + k, out[k]);
      } else {
        decode_block_on_cpu(blocks[k], out[k]);
      }
      return after(k);
    };
    const Status split = detail::hybrid_split(n, samples, pool, work, steps, times, options_.adapt, share);
    launches_.leave(ticket);
    if (!launch.ok()) state_.device_failed(launch.with_context("Tier-1 on the device"));
    return split;
  }

  DeviceCoderOptions options_;
  std::unique_ptr<BlockDecoder> ht_;
  std::unique_ptr<BlockDecoder> cpu_;
  detail::DeviceSlots<T1DecodeDevice> slots_;
  Launches launches_;
  detail::SplitState state_;
};

}  // namespace

std::unique_ptr<BlockDecoder> make_hybrid_block_decoder(T1DecodeDeviceStart start, const DeviceCoderOptions& options) {
  return std::make_unique<HybridBlockDecoder>(std::move(start), options);
}

}  // namespace mallat::entropy

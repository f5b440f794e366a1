// The device runner's inverse stages for one tile at a time
// (device_tile_stages.h): the tile's code-blocks up as Tier-2 found them,
// then Tier-1 decoding (entropy/cuda), reconstruction (E.1, H.1), the
// inverse DWT (Annex F, dwt/cuda), the inverse RCT or ICT, DC shift and
// clamp (G.1.2, G.2, G.3) on one stream; only the components' samples come
// back, at their stored width (stored_samples.h), and are widened into the
// image on the pool. Each step gives the CPU runner's results bit for bit
// (device_decode_plan.h's rules; the CUDA DWT's and Tier-1's own equality).
#pragma once

#include <memory>
#include <vector>

#include "codec/stages/busy_time.h"
#include "codec/stages/cuda/staged_copy.h"
#include "codec/stages/device_tile_stages.h"
#include "codec/stages/tile_buffers.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "dwt/cuda/device_buffer.h"
#include "entropy/cuda/tile_block_coders.h"

namespace mallat::codec {

struct DeviceDecodePlan;

class DeviceDecodeSlot {
 public:
  // CUDA's side of a slot: a Tier-1 decoder with its stream. `sharing`:
  // how many slots launch side by side (start_device_tile_context's).
  static Result<std::unique_ptr<DeviceDecodeSlot>> create(int sharing = 1);

  // Every inverse stage of `tile` (device_decode_unsupported accepts it).
  // False, with nothing written to the image, where a block's parameters
  // stopped the device's decoder: the caller then decodes the tile on the
  // CPU, whose messages say what and where. `span`: the tile's on the
  // device (busy_time.h), set where it ran to the end.
  Result<bool> run(DecodeTile& tile, ThreadPool& pool, DeviceDecodeTimes& times, DeviceSpan& span);

 private:
  DeviceDecodeSlot(int sharing, std::unique_ptr<entropy::cuda::TileDecoder> t1)
      : sharing_(sharing), t1_(std::move(t1)) {}
  Status gather(const DecodeTile& tile, const DeviceDecodePlan& plan, ThreadPool& pool);
  Status inverse(const DecodeTile& tile, const DeviceDecodePlan& plan, cudaStream_t s);
  Status download(const DecodeTile& tile, const DeviceDecodePlan& plan, cudaStream_t s);
  void widen(DecodeTile& tile, const DeviceDecodePlan& plan, ThreadPool& pool) const;

  int sharing_ = 1;
  std::unique_ptr<entropy::cuda::TileDecoder> t1_;
  dwt::cuda::DeviceArena planes_, out_, scratch_[2], jobs_, stored_;
  dwt::cuda::HostArena bytes_host_, segments_host_, stored_host_, results_host_;
  cuda::StagedCopier copier_;  // pageable codeword bytes up (staged_copy.h)
  enum Step { kStart, kUploaded, kDecoded, kInverted, kDownloaded, kSteps };
  std::vector<dwt::cuda::Event> events_;
};

}  // namespace mallat::codec

#include "tools/batch_lanes.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "codec/stages/device_tile_stages.h"
#include "common/timeline.h"
#include "dwt/dwt.h"
#include "tools/device_placement.h"

namespace mallat::tools {

Status parse_batch_files(const std::string& value, int* files) {
  size_t used = 0;
  int k = 0;
  try {
    k = std::stoi(value, &used);
  } catch (...) {
    used = 0;
  }
  if (used == 0 || used != value.size() || k < 1 || k > 16)
    return invalid_argument("--batch-files must be a whole number from 1 to 16, got '" + value + "'");
  *files = k;
  return Status::Ok();
}

namespace {

// A backend of the options' kind, made once for the lane's files.
Status own_backend(dwt::BackendKind kind, int threads, std::shared_ptr<dwt::Backend>* instance) {
  MALLAT_ASSIGN_OR_RETURN(std::unique_ptr<dwt::Backend> made, dwt::make_backend(kind, threads));
  *instance = std::move(made);
  return Status::Ok();
}

// With a timeline (common/timeline.h) a lane's codec calls time their
// stages one by one, into times of the lane's own (its calls run one at a
// time), kept to the end of the process.
codec::StageTimes* lane_stage_times() { return timeline::enabled() ? new codec::StageTimes : nullptr; }

}  // namespace

namespace {

// The lanes' shared runner context, started on a thread while the first
// files are read (their first tile waits for it), kept to the process's
// end; without a device every tile goes to the CPU runner.
std::shared_ptr<codec::DeviceTileContext> shared_device_tiles(int lanes, int tile_slots, int most,
                                                               codec::DeviceTileUse use) {
  const int slots = tile_slots > 0 ? tile_slots : std::min(std::max(lanes, 1), most);
  std::shared_ptr<codec::DeviceTileContext> tiles = codec::start_device_tile_context(slots, slots, use);
  keep_until_exit(tiles);
  return tiles;
}

}  // namespace

Result<std::vector<codec::EncodeOptions>> encode_lanes(const codec::EncodeOptions& opt, int lanes,
                                                       bool whole_tiles, int tile_slots) {
  std::vector<codec::EncodeOptions> all(static_cast<size_t>(lanes < 1 ? 1 : lanes), opt);
  std::shared_ptr<codec::DeviceTileContext> shared_tiles;
  for (codec::EncodeOptions& lane : all) {
    MALLAT_RETURN_IF_ERROR(own_backend(lane.dwt_backend, lane.threads, &lane.dwt_instance));
    lane.stage_times = lane_stage_times();
    // The device coder when there is one (shared), else null: each call
    // then makes the CPU's coders.
    MALLAT_ASSIGN_OR_RETURN(lane.block_encoder_instance, codec::block_encoder_for(lane, *lane.dwt_instance));
    // The slots' streams and buffers, so that the lanes' tiles run side by
    // side on the GPU; without a device the hybrid coder above says why.
    if (whole_tiles && lane.block_encoder_instance) {
      if (!shared_tiles)
        shared_tiles = shared_device_tiles(lanes, tile_slots, kWholeTileSlots, codec::DeviceTileUse::kEncode);
      lane.device_tile_context = shared_tiles;
    }
  }
  return all;
}

Result<std::vector<codec::DecodeOptions>> decode_lanes(const codec::DecodeOptions& opt, int lanes, bool whole_tiles,
                                                       int tile_slots) {
  std::vector<codec::DecodeOptions> all(static_cast<size_t>(lanes < 1 ? 1 : lanes), opt);
  std::shared_ptr<codec::DeviceTileContext> shared_tiles;
  for (codec::DecodeOptions& lane : all) {
    MALLAT_RETURN_IF_ERROR(own_backend(lane.dwt_backend, lane.threads, &lane.dwt_instance));
    lane.stage_times = lane_stage_times();
    if (whole_tiles && lane.block_decoder_instance) {
      if (!shared_tiles)
        shared_tiles = shared_device_tiles(lanes, tile_slots, kWholeTileDecodeSlots, codec::DeviceTileUse::kDecode);
      lane.device_tile_context = shared_tiles;
    }
  }
  return all;
}

}  // namespace mallat::tools

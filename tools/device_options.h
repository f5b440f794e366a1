// How encode's and decode's --device cuda share the GPU in a batch (issue 15):
// the device's part of each tile's Part 1 code-blocks (--device-share), the
// rounds that may hold the GPU at once (--device-slots) and when a round of
// files' blocks closes (--device-rounds). Rows for both commands' tables
// (option_table.h) and what they make of entropy::DeviceCoderOptions
// (entropy/hybrid/coalesced_launch.h, entropy/hybrid/hybrid_block_encoder.h).
#pragma once

#include <optional>
#include <string>

#include "entropy/block_coder.h"
#include "tools/option_table.h"

namespace mallat::tools {

// What the options asked for; unset values take the defaults of
// apply_device_request.
struct DeviceRequest {
  double share = -1;  // --device-share; < 0: unset
  int slots = 0;      // --device-slots; 0: unset
  int tile_slots = 0;  // --device-tile-slots; 0: the batch's default (batch_lanes.h, kWholeTileSlots)
  std::optional<entropy::DeviceCoderOptions::RoundClose> rounds;  // --device-rounds
  std::optional<bool> whole_tiles;  // --device-stages: all (true) or tier1 (false)
};

// Whether a command's tiles go to the device whole (--device-stages all;
// codec/stages/device_tile_stages.h): as asked, else for a batch (the
// default there, kBatchWholeTiles) and not for one file.
bool device_whole_tiles(const DeviceRequest& request, bool batch);

Status parse_device_share(const std::string& value, DeviceRequest* request);
Status parse_device_slots(const std::string& value, DeviceRequest* request);
Status parse_device_tile_slots(const std::string& value, DeviceRequest* request);
Status parse_device_rounds(const std::string& value, DeviceRequest* request);
Status parse_device_stages(const std::string& value, DeviceRequest* request);

inline constexpr std::string_view kDeviceShareHelp =
    "with --device cuda: the part of each tile's Part 1 code-block samples the GPU codes, 0..1, fixed (default: "
    "1 for a batch of files; for one file encoded 0.5 at first, then where the GPU and the CPU threads finished "
    "together); 0 codes everything on the CPU with CUDA started all the same. Given, it starts CUDA for one file "
    "encoded whatever its size; one file decoded stays on the CPU. The output is the same whatever F";
inline constexpr std::string_view kDeviceSlotsHelp =
    "with --device cuda in a batch: up to N rounds of files' code-blocks hold the GPU at once, each with its own "
    "buffers and stream (1..4; default 2 for a batch, 1 for one file), so that one round is gathered or finished "
    "on the CPU while another runs on the GPU, and two rounds' launches run side by side";
inline constexpr std::string_view kDeviceTileSlotsHelp =
    "with --device cuda in a batch whose tiles go to the GPU whole (--device-stages all): up to N tiles on the GPU "
    "at once, each with its own buffers and stream, shared by the --batch-files lanes (1..16; default the lanes, "
    "at most 8 for an encode and 6 for a decode). The output is the same whatever N";
inline constexpr std::string_view kDeviceRoundsHelp =
    "with --device cuda in a batch: when the files coded at once (--batch-files) put their code-blocks in one "
    "launch: 'window' waits for all of them or 20 ms after the first, 'free' (default) launches as soon as a "
    "slot of the GPU is free with the files that came while none was (slots' launches side by side), 'idle' "
    "as soon as a slot is free and no other launch is under way (the files that came meanwhile together)";

inline constexpr std::string_view kDeviceStagesHelp =
    "with --device cuda: 'all' (a batch's default) sends each tile of Part 1 code-blocks without ROI to the GPU "
    "whole (its samples up; DC shift, RCT or ICT, DWT, the 9/7's quantisation and Tier-1 there; only the blocks' "
    "bytes back), other tiles (HT, ROI) as "
    "'tier1'; 'tier1' (one file's default) runs colour and DWT on the CPU and shares Tier-1 as --device-share "
    "says. One file uses the GPU at all only from 128 M samples or with --device-share. The output is the same "
    "either way";

// --device-share, --device-slots and --device-rounds for a table whose
// Settings has `DeviceRequest device_request`.
template <typename Settings>
Option<Settings> device_share_row() {
  return {{"--device-share"}, "F", kDeviceShareHelp, "0.6",
          [](Settings& s, const std::string& v) { return parse_device_share(v, &s.device_request); }};
}
template <typename Settings>
Option<Settings> device_slots_row() {
  return {{"--device-slots"}, "N", kDeviceSlotsHelp, "2",
          [](Settings& s, const std::string& v) { return parse_device_slots(v, &s.device_request); }};
}
template <typename Settings>
Option<Settings> device_tile_slots_row() {
  return {{"--device-tile-slots"}, "N", kDeviceTileSlotsHelp, "4",
          [](Settings& s, const std::string& v) { return parse_device_tile_slots(v, &s.device_request); }};
}
template <typename Settings>
Option<Settings> device_rounds_row() {
  return {{"--device-rounds"}, "R", kDeviceRoundsHelp, "free",
          [](Settings& s, const std::string& v) { return parse_device_rounds(v, &s.device_request); }};
}

inline constexpr std::string_view kDecodeDeviceStagesHelp =
    "with --device cuda, for a batch: 'all' (the default) decodes each tile of Part 1 code-blocks on the GPU whole "
    "(the blocks' bytes up; Tier-1, dequantisation, inverse DWT, inverse RCT or ICT, DC shift and clamp there; the "
    "samples back at their stored width), other tiles (HT, -d regions, over 16 bits) as 'tier1'; 'tier1' decodes "
    "Tier-1 on the GPU and the CPU together and the rest on the CPU. The output is the same either way";

template <typename Settings>
Option<Settings> device_stages_row(std::string_view help = kDeviceStagesHelp) {
  return {{"--device-stages"}, "S", help, "tier1",
          [](Settings& s, const std::string& v) { return parse_device_stages(v, &s.device_request); }};
}

// A batch's tiles go to the device whole unless --device-stages tier1:
// measured in docs/HISTORY.md ("Whole tiles on the device").
inline constexpr bool kBatchWholeTiles = true;

// A batch's share when --device-share is not given: every Part 1 block on
// the GPU, fixed. H200 machine, 16 cores, 32 copies of the 3840x2048 mosaic,
// -threads 16, K = 2, whole command, median of 2 (docs/HISTORY.md,
// "What serialises a batch"): lossless encode 68.8 ms/image at share 1
// against 81.0 adapted from 0.5 (user+sys 14.8 s against 30.4 s); decode
// 55.7 against 64.5 ms/image (2 slots, rounds that close when free). In a
// batch the CPU's threads have other files' stages to run, so the device's
// share of one file's blocks is worth more than the adapted split (which
// balances one file's two sides) says.
inline constexpr double kBatchDeviceShare = 1.0;

// A batch's slots and rounds when --device-slots and --device-rounds are not
// given: 2 slots, rounds that close as soon as a slot is free. The same
// machine and batch, --batch-files 3, medians of 2 (docs/HISTORY.md): lossless
// encode 58.0-59.2 ms/image against 66.0 with 1 slot ('free', K = 2),
// 63.4 by 'window' (K = 4), 76.3 by 'idle' (2 slots, merged launches);
// decode 50.2-54.8 against 57.5 ('idle') and 60.7 (1 slot). One file's blocks
// fill few of the GPU's warps (docs/HISTORY.md), so two files' launches
// side by side cost little more than one, and no file waits for company.
inline constexpr int kBatchDeviceSlots = 2;

// Puts `request` into `coder` for a command coding `files_at_once` files at
// a time; `batch`: a batch of files, whose defaults differ (kBatchDeviceShare).
void apply_device_request(const DeviceRequest& request, bool batch, int files_at_once,
                          entropy::DeviceCoderOptions& coder);

}  // namespace mallat::tools

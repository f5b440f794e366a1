// How encode's and decode's --device cuda share the GPU in a batch (issue 15):
// the device's part of each tile's Part 1 code-blocks (--device-share), the
// rounds that may hold the GPU at once (--device-slots) and when a round of
// files' blocks closes (--device-rounds). Rows for both commands' tables
// (option_table.h) and what they make of entropy::DeviceCoderOptions
// (entropy/coalesced_launch.h, entropy/hybrid_block_encoder.h).
#pragma once

#include <string>

#include "entropy/block_coder.h"
#include "tools/option_table.h"

namespace mallat::tools {

// What the options asked for; unset values take the defaults of
// apply_device_request.
struct DeviceRequest {
  double share = -1;  // --device-share; < 0: unset
  int slots = 0;      // --device-slots; 0: unset
  enum class Rounds { kUnset, kWindow, kFree } rounds = Rounds::kUnset;  // --device-rounds
};

Status parse_device_share(const std::string& value, DeviceRequest* request);
Status parse_device_slots(const std::string& value, DeviceRequest* request);
Status parse_device_rounds(const std::string& value, DeviceRequest* request);

inline constexpr std::string_view kDeviceShareHelp =
    "with --device cuda: the part of each tile's Part 1 code-block samples the GPU codes, 0..1, fixed (default: "
    "0.5 at first, then where the GPU and the CPU threads finished together); 0 codes everything on the CPU "
    "with CUDA started all the same. The output is the same whatever F";
inline constexpr std::string_view kDeviceSlotsHelp =
    "with --device cuda in a batch: up to N rounds of files' code-blocks hold the GPU at once, each with its own "
    "buffers and stream (1..4; default 1), so that one round is gathered or finished on the CPU while another "
    "runs on the GPU";
inline constexpr std::string_view kDeviceRoundsHelp =
    "with --device cuda in a batch: when the files coded at once (--batch-files) put their code-blocks in one "
    "launch: 'window' waits for all of them or 20 ms after the first (default), 'free' launches as soon as a "
    "slot of the GPU is free with the files that came while none was";

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
Option<Settings> device_rounds_row() {
  return {{"--device-rounds"}, "R", kDeviceRoundsHelp, "free",
          [](Settings& s, const std::string& v) { return parse_device_rounds(v, &s.device_request); }};
}

// Puts `request` into `coder` for a command coding `files_at_once` files at
// a time.
void apply_device_request(const DeviceRequest& request, int files_at_once, entropy::DeviceCoderOptions& coder);

}  // namespace mallat::tools

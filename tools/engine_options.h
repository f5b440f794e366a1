// encode's and decode's options that go to the engine (codec/api/engine.h):
// --device, -threads' lanes, --batch-files, and how a batch shares the GPU
// (--device-share, --device-slots, --device-tile-slots, --device-rounds,
// --device-stages). Rows for both commands' tables (option_table.h) that
// parse each into a plain EngineOptions value; every default is the
// engine's (engine/placement.h).
#pragma once

#include <string>
#include <string_view>

#include "codec/api/engine.h"
#include "tools/option_table.h"

namespace mallat::tools {

// --device (also --dwt): cpu, cuda or auto; a bad value names the option.
Status parse_device(const std::string& value, Device* device);
Status parse_device_share(const std::string& value, EngineOptions* engine);
Status parse_device_slots(const std::string& value, EngineOptions* engine);
Status parse_device_tile_slots(const std::string& value, EngineOptions* engine);
Status parse_device_rounds(const std::string& value, EngineOptions* engine);
Status parse_device_stages(const std::string& value, EngineOptions* engine);
// --batch-files: a whole number from 1 to 256.
Status parse_batch_files(const std::string& value, int* files);


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
    "with --device cuda: 'all' (a batch's default) sends each tile of Part 1 or HT code-blocks without ROI to the "
    "GPU whole (its samples up; DC shift, RCT or ICT, DWT, the 9/7's quantisation and Tier-1 there; only the "
    "blocks' bytes back; under an HT rate target the tile stays there through rate control, its plane statistics "
    "back and the chosen planes coded there, where the image is one tile and --ht-rate is auto or estimated), "
    "other tiles (ROI, other HT rate targets) as 'tier1'; 'tier1' (one file's default) runs colour and DWT on the CPU and shares Tier-1 as --device-share "
    "says. One file given either uses the GPU as it says; otherwise one Part 1 file uses the GPU at all only from "
    "128 M samples or with --device-share, one HT file only with --device-share. The output is the same either way";

// --device-share, --device-slots, --device-tile-slots, --device-rounds and
// --device-stages for a table whose Settings has `EngineOptions engine`.
template <typename Settings>
Option<Settings> device_share_row() {
  return {{"--device-share"}, "F", kDeviceShareHelp, "0.6",
          [](Settings& s, const std::string& v) { return parse_device_share(v, &s.engine); }};
}
template <typename Settings>
Option<Settings> device_slots_row() {
  return {{"--device-slots"}, "N", kDeviceSlotsHelp, "2",
          [](Settings& s, const std::string& v) { return parse_device_slots(v, &s.engine); }};
}
template <typename Settings>
Option<Settings> device_tile_slots_row() {
  return {{"--device-tile-slots"}, "N", kDeviceTileSlotsHelp, "4",
          [](Settings& s, const std::string& v) { return parse_device_tile_slots(v, &s.engine); }};
}
template <typename Settings>
Option<Settings> device_rounds_row() {
  return {{"--device-rounds"}, "R", kDeviceRoundsHelp, "free",
          [](Settings& s, const std::string& v) { return parse_device_rounds(v, &s.engine); }};
}

inline constexpr std::string_view kDecodeDeviceStagesHelp =
    "with --device cuda, for a batch: 'all' (the default) decodes each tile of Part 1 code-blocks on the GPU whole "
    "(the blocks' bytes up; Tier-1, dequantisation, inverse DWT, inverse RCT or ICT, DC shift and clamp there; the "
    "samples back at their stored width), other tiles (HT, -d regions, over 16 bits) as 'tier1'; 'tier1' decodes "
    "Tier-1 on the GPU and the CPU together and the rest on the CPU. The output is the same either way";

template <typename Settings>
Option<Settings> device_stages_row(std::string_view help = kDeviceStagesHelp) {
  return {{"--device-stages"}, "S", help, "tier1",
          [](Settings& s, const std::string& v) { return parse_device_stages(v, &s.engine); }};
}

// What --batch-files' help says of K's default (a literal: the table keeps a view).
inline constexpr std::string_view kBatchFilesHelp =
    "a batch codes K files at once (default: one per thread, fewer where memory would not hold them; 3 with --device "
    "cuda or auto), sharing -threads threads (each with every thread with --device cuda or auto); with --device cuda "
    "they share the GPU (--device-slots, --device-rounds). The files are the same whatever K";
inline constexpr std::string_view kEncodeBatchFilesHelp =
    "a batch codes K files at once (default: on the CPU one per thread, fewer where memory would not hold them, "
    "the -threads threads shared among them; with --device cuda or auto, 12 with --device-stages all, a batch's "
    "default, whose tiles go to the GPU whole, at most 8 tiles at once: --device-tile-slots, else 3; each of those "
    "with every thread); with --device cuda they share the GPU (--device-slots, --device-rounds). The files are the "
    "same whatever K";
inline constexpr std::string_view kDecodeBatchFilesHelp =
    "a batch decodes K files at once (default: on the CPU one per thread, fewer where memory would not hold them "
    "(from the first file's size), the -threads threads shared among them; with --device cuda or auto, 8 with "
    "--device-stages all, a batch's default, whose tiles are decoded on the GPU whole, at most 6 tiles at once: "
    "--device-tile-slots, or a batch of small Part 1 files decoded in rounds (--device), else 3; each of those with every thread); with --device cuda they share the GPU "
    "(--device-slots, --device-rounds). The images are the same whatever K";

// --batch-files K, for encode's and decode's tables (Settings::engine).
template <typename Settings>
Option<Settings> batch_files_row(std::string_view help = kBatchFilesHelp) {
  return {{"--batch-files"}, "K", help, "3",
          [](Settings& s, const std::string& v) { return parse_batch_files(v, &s.engine.files_at_once); }};
}

}  // namespace mallat::tools

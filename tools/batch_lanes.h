// The lanes of a batch that codes several files at once (run_batch's
// files_at_once, --batch-files K): each lane its own copy of the codec
// options with a DWT backend of its own (a backend's calls run one at a
// time), all sharing the one device coder, which puts the lanes' device
// blocks in one launch (entropy/hybrid/coalesced_launch.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codec/api/decode.h"
#include "codec/api/encode.h"
#include "common/status.h"
#include "tools/option_table.h"

namespace mallat::tools {

// Files coded at once when --batch-files is not given. H200 machine, 16
// threads, 32 copies of the 3840x2048 mosaic, lossless, median wall s
// (docs/HISTORY.md, "Files at once" and "What serialises a batch"):
// with the GPU's 2 slots (tools/device_options.h) K = 2, 3: encode 2.23,
// 1.85-1.89 s; decode 1.97, 1.61-1.75 s; K = 4 no better (2.09, 1.93 s);
// the CPU path K = 2, 3, 4: encode 3.73-3.91, 3.80, 3.51 s; decode
// 3.49-3.73, 3.37, 3.38 s. With the GPU a lane spends about half of each
// file waiting for its launch, so a third lane keeps the GPU fed.
inline constexpr int kDefaultBatchFiles = 3;

// The same for a batch encode whose tiles go to the device whole
// (--device cuda, --device-stages all: codec/stages/device_tile_stages.h):
// 12 lanes sharing 8 of the device's slots (kWholeTileSlots), so that the
// other lanes run their CPU stages (reading, narrowing, rate allocation,
// Tier-2) while eight tiles are on the GPU. Once the slots' big host
// buffers were no longer pinned (common/host_staging.h), more slots cost
// little at the start: session 13's run B (H200 machine, 2026-11-25, 3
// alternated rounds, medians, whole commands over 64 copies of the
// mosaic, -threads 16, ms per batch), S6 K10 against S8 K12: lossless
// 1714 / 1576, -I -r 20 1794 / 1714 (the CPU path 8450 and 7143). Before
// that (session 12's run I, pinned buffers, one host, 5 rounds, -I -r 20,
// ms per image): S4 K8 30.2, S6 K8 27.5, S6 K10 25.8, S8 K10 27.6, S8 K12
// 26.7. Earlier (session 11's slower Tier-1 kernels, 4 slots), lanes on 4
// slots: run H, K = 4 / 6: lossless 35.3 / 30.5, -I -r 20 45.8 / 36.9;
// run I, K = 6 / 8: lossless 31.0 / 30.5, -I -r 20 37.9 / 35.4; before the
// slots were shared (a slot per lane) K = 3, 4, 6 gave 45.7-48.4,
// 42.2-43.8, 44.2-44.6.
inline constexpr int kWholeTileBatchFiles = 12;

// The same for a batch decode whose tiles go to the device whole: 8 lanes
// on 6 slots (kWholeTileDecodeSlots). Session 13's run E (H200 machine,
// 2026-11-25, 64 copies of the mosaic, -threads 16, whole commands, ms per
// batch, medians of 4 alternated rounds), S4 K6 / S6 K8 / S8 K10: -I -r 20
// 887 / 751 / 743, lossless 1617 / 1464 / 1470 (the CPU path 2709 and
// 6493); S4 K6 ran right after the CPU path's run, which later runs showed
// costs the next GPU run about 100 ms (run F), so eight slots, which hold
// more device memory, were not taken for 1%. With pinned buffers (session
// 12's runs H, I and J) S4 K6 against S6 K8 was 13.5 / 12.7, 14.8 / 13.3,
// 13.8 / 14.6 ms an image (-I -r 20) and 23.4 / 24.8 (lossless, run J).
inline constexpr int kWholeTileDecodeBatchFiles = 8;

// The device's slots that a batch's lanes share when tiles go to the
// device whole (at most this many tiles on the GPU at once; a lane holds a
// slot only while its tile is there): K lanes get min(K, 8) for an encode
// and min(K, 6) for a decode, or --device-tile-slots (runs above).
inline constexpr int kWholeTileSlots = 8;
inline constexpr int kWholeTileDecodeSlots = 6;

// K for a batch: --batch-files' value where given (above 0), else the
// default of its path.
inline int batch_files_for(int given, bool whole_tiles_on_device) {
  return given > 0 ? given : whole_tiles_on_device ? kWholeTileBatchFiles : kDefaultBatchFiles;
}

// Files a batch reads ahead of its lanes (run_batch's files_ahead): 2, or 4
// where the device takes whole tiles, whose lanes finish a file every
// 25-30 ms while a PPM takes 55-65 ms to read. H200 machine, 2026-11-24,
// 64 copies of the mosaic, lossless, K = 4, 3 alternated rounds, ms per
// image: ahead 2: 44.1, 43.6, 43.5; 4: 41.2, 52.4, 41.7; 6: 41.9, 43.2, 45.5.
inline int files_ahead_for(bool whole_tiles_on_device) { return whole_tiles_on_device ? 4 : 2; }

// Parses --batch-files' value: a whole number from 1 to 16.
Status parse_batch_files(const std::string& value, int* files);

// What --batch-files' help says of K's default (a literal: the table keeps a view).
inline constexpr std::string_view kBatchFilesHelp =
    "a batch codes K files at once (default 3), each with -threads threads; with --device cuda they share the GPU "
    "(--device-slots, --device-rounds). The files are the same whatever K";
inline constexpr std::string_view kEncodeBatchFilesHelp =
    "a batch codes K files at once (default 3; 12 with --device cuda or auto and --device-stages all, a batch's "
    "default, whose tiles go to the GPU whole, at most 8 tiles at once: --device-tile-slots), each with -threads "
    "threads; with --device cuda they share the GPU (--device-slots, --device-rounds). The files are the same "
    "whatever K";

inline constexpr std::string_view kDecodeBatchFilesHelp =
    "a batch decodes K files at once (default 3; 8 with --device cuda or auto and --device-stages all, a batch's "
    "default, whose tiles are decoded on the GPU whole, at most 6 tiles at once: --device-tile-slots), each with "
    "-threads threads; with --device cuda they share the GPU (--device-slots, --device-rounds). The images are the "
    "same whatever K";

// --batch-files K, for encode's and decode's tables (Settings::batch_files).
template <typename Settings>
Option<Settings> batch_files_row(std::string_view help = kBatchFilesHelp) {
  return {{"--batch-files"}, "K", help, "3",
          [](Settings& s, const std::string& v) { return parse_batch_files(v, &s.batch_files); }};
}

// `lanes` copies of `opt` (whose device coder, if any, they share), each
// with a DWT backend and CPU coder of its own.
// With `whole_tiles` and a device coder, the lanes also share a device
// runner context of `tile_slots` slots (--device-tile-slots; 0:
// min(lanes, kWholeTileSlots)) (codec/stages/device_tile_stages.h) for the
// tiles they take whole, kept to the process's end (keep_until_exit); where
// the device does not start, the tiles go to the CPU runner.
Result<std::vector<codec::EncodeOptions>> encode_lanes(const codec::EncodeOptions& opt, int lanes,
                                                       bool whole_tiles = false, int tile_slots = 0);
// The same for a decode: with `whole_tiles` and a device decoder, the
// lanes share a device runner context of `tile_slots` slots (0: min(lanes,
// kWholeTileDecodeSlots)) for the tiles it decodes whole.
Result<std::vector<codec::DecodeOptions>> decode_lanes(const codec::DecodeOptions& opt, int lanes,
                                                       bool whole_tiles = false, int tile_slots = 0);

}  // namespace mallat::tools

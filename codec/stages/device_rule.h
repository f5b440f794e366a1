// What the device takes: the one rule, for the device runner's whole tiles
// (encode and decode, device_tile_stages.h), the planners
// (device_tile_plan.h, device_decode_plan.h) and the engine's placement
// (device_encode_options_problem). The per-coder part, which coders have a
// device coder in which direction, is entropy/device_coders.h; a GPU HT coder
// switches HT on there and this rule follows. Plain C++, tested as pure
// functions in CI (tests/codec/device_rule_test.cc).
//
// Each function gives why the device does not take something, or an empty
// string when it does.
#pragma once

#include <span>
#include <string>

#include "codec/stages/tile_buffers.h"
#include "entropy/code_block_style.h"

namespace mallat::codec {

enum class DeviceDirection { kEncode, kDecode };

// A code-block of `style` (its coder and mode switches) with an ROI shift
// of `roi_shift` (H.1): its coder must have a device coder in `direction`
// (entropy/device_coders.h; such a coder takes every mode switch and every
// code-block size A.6.1 allows), and an encode's block no ROI shift (the
// device's gather quantises without one). A decode's ROI shift is undone by
// the device's reconstruction (inverse_jobs.h).
std::string device_block_problem(const entropy::CodeBlockStyle& style, int roi_shift, DeviceDirection direction);

// A component of `precision` bits: a decode's at most 16 (a 9/7 sample
// rounds as the CPU's does up to 24, and the stored types hold 16); an
// encode's any (stored_samples.h sends int32 samples past 16 bits).
std::string device_precision_problem(int precision, DeviceDirection direction);

// A decode of a region (-d, DecodeOptions::region): decoded on the CPU,
// whose inverse DWT runs over each level's window (region_dwt.h).
std::string device_region_problem(bool region);

// Why the colour transform cannot run on `planes` (fewer than three, or
// planes 0..2 of other sizes or wavelets): both runners' rule.
std::string colour_planes_problem(std::span<const TilePlane> planes);

// A tile whose blocks rate control codes again after quantisation
// (EncodeTile::codes_blocks_again): the device keeps the tile's indices
// where they lie, holding its slot, and codes the blocks rate control
// chooses there (device_tile_stages.h) only where rate control is by
// estimates (`estimated`: EncodeTile::ht_statistics, the statistics
// gathered on the device), at the nominal steps alone (not `finer_steps`,
// EncodeTile::ht_finer: rate control would move the indices to finer
// steps on the host), and the image is one tile (`image_tiles`): every
// tile of an image is quantised before rate control codes any, so a second
// tile would wait for a slot the first holds where the slots are fewer
// than the tiles. One tile an image holds at most one slot a lane, each
// let go once its image's rate control is done, so a batch's lanes never
// wait on one another for ever.
std::string device_codes_again_problem(bool estimated, bool finer_steps, int64_t image_tiles);

// Every forward stage of `tile`: its blocks by device_block_problem, each
// inside its plane, all of one block coder, the image's components holding
// the tile's samples, a colour transform's planes by colour_planes_problem,
// and a caller that codes the blocks again (EncodeTile::codes_blocks_again)
// by device_codes_again_problem. 5/3 and 9/7 planes.
std::string device_tile_unsupported(const EncodeTile& tile);

// Every inverse stage of `tile`: a whole decode (device_region_problem),
// its blocks by device_block_problem with no error found before decoding,
// all of one block coder, each inside its plane, a plane for each image component holding the tile
// inside it, a colour transform's planes by colour_planes_problem,
// components by device_precision_problem.
std::string device_decode_unsupported(const DecodeTile& tile);

// The part of device_tile_unsupported that an encode's options decide for
// every tile: blocks of `style`, an ROI (`roi`: some blocks shifted). Empty
// when the runner will take every tile as far as the options tell (the
// engine then starts no hybrid coder's room for a batch's blocks).
std::string device_encode_options_problem(const entropy::CodeBlockStyle& style, bool roi);

}  // namespace mallat::codec

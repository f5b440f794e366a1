// Which block coders have a device coder, per direction: the per-coder part
// of the one rule of what the device takes (codec/stages/device_rule.h has
// the rest: ROI, sample depth, regions, a tile's shape). The hybrid coders
// (entropy/hybrid/) send a batch to the device only for a coder whose row
// says so, make_device_block_encoder / _decoder start a device only for
// those, and the device runner's tiles follow the same rows.
//
// A coder's row goes on once its device coder implements DeviceBlockEncoder /
// DeviceBlockDecoder (entropy/hybrid/device_block_coder.h) and registers its
// start in entropy/cuda/device_block_coders.cc.
#pragma once

#include <array>
#include <cstddef>

#include "entropy/block_coder.h"

namespace mallat::entropy {

inline constexpr size_t kBlockCoderKinds = 2;

// Whether a coder's blocks can be encoded and decoded on the device. A coder
// that has one takes every mode switch of its style byte (A.6.1 Table A.19)
// and every code-block size A.6.1 allows.
struct DeviceCoderRow {
  bool encode = false;
  bool decode = false;
};

// Indexed by BlockCoderKind.
inline constexpr std::array<DeviceCoderRow, kBlockCoderKinds> kDeviceCoders = {{
    {true, true},    // kEbcot: Part 1, Annex D (entropy/cuda/ebcot/)
    {true, true},    // kHt: 15444-15 (entropy/cuda/ht/)
}};

constexpr bool device_encodes(BlockCoderKind coder) { return kDeviceCoders[static_cast<size_t>(coder)].encode; }
constexpr bool device_decodes(BlockCoderKind coder) { return kDeviceCoders[static_cast<size_t>(coder)].decode; }

// The coder's name in messages: "EBCOT", "HT".
constexpr const char* block_coder_name(BlockCoderKind coder) {
  return coder == BlockCoderKind::kHt ? "HT" : "EBCOT";
}

}  // namespace mallat::entropy

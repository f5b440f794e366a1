#include "codec/stages/device_rule.h"

#include "entropy/device_coders.h"

namespace mallat::codec {

std::string device_block_problem(const entropy::CodeBlockStyle& style, int roi_shift, DeviceDirection direction) {
  const entropy::BlockCoderKind coder = entropy::block_coder_kind(style);
  const bool encode = direction == DeviceDirection::kEncode;
  if (!(encode ? entropy::device_encodes(coder) : entropy::device_decodes(coder))) {
    return std::string(entropy::block_coder_name(coder)) + " code-blocks are " + (encode ? "coded" : "decoded") +
           " on the CPU";
  }
  if (encode && roi_shift != 0) return "ROI (Annex H) is coded on the CPU";
  return "";
}

std::string device_precision_problem(int precision, DeviceDirection direction) {
  if (direction == DeviceDirection::kDecode && precision > 16) {
    return "components of more than 16 bits are decoded on the CPU";
  }
  return "";
}

std::string device_region_problem(bool region) { return region ? "a region is decoded on the CPU" : ""; }

std::string colour_planes_problem(std::span<const TilePlane> planes) {
  if (planes.size() < 3) return "a colour transform needs three planes";
  for (size_t c = 1; c < 3; ++c) {
    if (planes[c].wavelet != planes[0].wavelet || planes[c].width() != planes[0].width() ||
        planes[c].height() != planes[0].height()) {
      return "the colour transform's planes differ in size or wavelet";
    }
  }
  return "";
}

std::string device_codes_again_problem(bool estimated, bool finer_steps, int64_t image_tiles) {
  if (!estimated) return "rate control codes every plane of the blocks again from the host's coefficients";
  if (finer_steps) return "rate control may move the blocks' indices to finer steps on the host";
  if (image_tiles != 1) return "rate control codes the blocks again, and the image has more than one tile";
  return "";
}

namespace {

// A device batch is of one coder (entropy/t1_encode_batch.h); a tile whose
// blocks need both (HTMIXED, or COC styles that differ) is the CPU stages'.
constexpr const char* kMixedCoders = "a tile whose code-blocks need two block coders";

// Whether block `place` lies inside one of `planes`.
bool inside_a_plane(const BlockPlace& place, std::span<const TilePlane> planes) {
  return place.component >= 0 && static_cast<size_t>(place.component) < planes.size() &&
         place.inside(planes[static_cast<size_t>(place.component)]);
}

}  // namespace

std::string device_tile_unsupported(const EncodeTile& tile) {
  if (tile.image == nullptr) return "no image to read the tile from";
  if (tile.codes_blocks_again) {
    if (std::string why = device_codes_again_problem(tile.ht_statistics, !tile.ht_finer.empty(), tile.image_tiles);
        !why.empty())
      return why;
  }
  if (tile.planes.size() > tile.image->components.size()) return "more planes than the image has components";
  if (tile.colour_transform) {
    if (std::string why = colour_planes_problem(tile.planes); !why.empty()) return why;
  }
  for (size_t c = 0; c < tile.planes.size(); ++c) {
    const Component& comp = tile.image->components[c];
    const TilePlane& plane = tile.planes[c];
    if (std::string why = device_precision_problem(comp.precision, DeviceDirection::kEncode); !why.empty()) return why;
    // A fed tile's samples come from its feed, every row of each component.
    const size_t held = tile.feed != nullptr ? static_cast<size_t>(comp.width * comp.height)
                        : comp.stored.empty() ? comp.samples.size()
                                              : comp.stored.size() / static_cast<size_t>(stored_bytes(comp.precision));
    if (tile.source_x[c] < 0 || tile.source_y[c] < 0 || tile.source_x[c] + plane.width() > comp.width ||
        tile.source_y[c] + plane.height() > comp.height || held < static_cast<size_t>(comp.width * comp.height)) {
      return "component " + std::to_string(c) + " does not hold the tile's samples";
    }
  }
  for (const EncodeBlock& b : tile.blocks) {
    if (std::string why = device_block_problem(b.style, b.roi_shift, DeviceDirection::kEncode); !why.empty()) {
      return why;
    }
    if (entropy::block_coder_kind(b.style) != entropy::block_coder_kind(tile.blocks[0].style)) return kMixedCoders;
    if (!inside_a_plane(b.place, tile.planes)) return "a code-block outside its plane";
  }
  return "";
}

std::string device_decode_unsupported(const DecodeTile& tile) {
  if (std::string why = device_region_problem(!tile.windows.empty()); !why.empty()) return why;
  if (tile.image == nullptr) return "no image to write the tile to";
  if (tile.planes.size() != tile.image->components.size()) return "the planes are not the image's components";
  if (tile.origin_x.size() < tile.planes.size() || tile.origin_y.size() < tile.planes.size())
    return "no place in the image for every plane";
  if (tile.colour_transform) {
    if (std::string why = colour_planes_problem(tile.planes); !why.empty()) return why;
  }
  for (size_t c = 0; c < tile.planes.size(); ++c) {
    const Component& comp = tile.image->components[c];
    const TilePlane& plane = tile.planes[c];
    if (std::string why = device_precision_problem(comp.precision, DeviceDirection::kDecode); !why.empty()) return why;
    const int64_t x = plane.rect.x0 - tile.origin_x[c], y = plane.rect.y0 - tile.origin_y[c];
    if (x < 0 || y < 0 || x + plane.width() > comp.width || y + plane.height() > comp.height)
      return "component " + std::to_string(c) + " does not hold the whole tile";
  }
  // The coder of the first block with passes; a block without any is all
  // zero whatever its style says, and is not decoded.
  const DecodeBlock* first = nullptr;
  for (const DecodeBlock& b : tile.blocks) {
    if (std::string why = device_block_problem(b.coded.style, b.roi_shift, DeviceDirection::kDecode); !why.empty()) {
      return why;
    }
    if (b.coded.num_passes > 0) {
      if (first == nullptr) first = &b;
      if (entropy::block_coder_kind(b.coded.style) != entropy::block_coder_kind(first->coded.style)) {
        return kMixedCoders;
      }
    }
    if (!b.status.ok()) return "a code-block with an error";
    if (!inside_a_plane(b.place, tile.planes)) return "a code-block outside its plane";
  }
  return "";
}

std::string device_encode_options_problem(const entropy::CodeBlockStyle& style, bool roi) {
  return device_block_problem(style, roi ? 1 : 0, DeviceDirection::kEncode);
}

}  // namespace mallat::codec

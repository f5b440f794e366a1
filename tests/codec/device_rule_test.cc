// The one rule of what the device takes (codec/stages/device_rule.h) as pure
// functions: every reason it gives, in each direction, and the per-coder
// rows it follows (entropy/device_coders.h); then that the planners and the
// options' check agree with it: a tile the rule refuses is one whose plan
// fails with the rule's reason, and one it takes plans.
#include "codec/stages/device_rule.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codec/stages/device_decode_plan.h"
#include "codec/stages/device_tile_plan.h"
#include "entropy/device_coders.h"
#include "tests/codec/device_scene.h"

namespace mallat::codec {
namespace {

entropy::CodeBlockStyle ht_style() {
  entropy::CodeBlockStyle s;
  s.ht = true;
  return s;
}

TEST(DeviceRule, CodersFollowTheirRows) {
  for (const DeviceDirection d : {DeviceDirection::kEncode, DeviceDirection::kDecode}) {
    for (const entropy::CodeBlockStyle& style : {entropy::CodeBlockStyle{}, ht_style()}) {
      const entropy::BlockCoderKind coder = entropy::block_coder_kind(style);
      const bool on = d == DeviceDirection::kEncode ? entropy::device_encodes(coder) : entropy::device_decodes(coder);
      EXPECT_EQ(device_block_problem(style, 0, d).empty(), on) << entropy::block_coder_name(coder);
    }
  }
  for (const entropy::BlockCoderKind coder : {entropy::BlockCoderKind::kEbcot, entropy::BlockCoderKind::kHt}) {
    EXPECT_TRUE(entropy::device_encodes(coder));
    EXPECT_TRUE(entropy::device_decodes(coder));
  }
}

TEST(DeviceRule, EveryReason) {
  const entropy::CodeBlockStyle part1;
  // Coders: both have device coders, either way.
  EXPECT_EQ(device_block_problem(ht_style(), 0, DeviceDirection::kEncode), "");
  EXPECT_EQ(device_block_problem(ht_style(), 0, DeviceDirection::kDecode), "");
  // Every Part 1 mode switch, HTMIXED's bit without HT's included.
  for (int bit = 0; bit < 8; ++bit) {
    if (bit == 6) continue;
    const entropy::CodeBlockStyle style = entropy::CodeBlockStyle::from_byte(static_cast<uint8_t>(1 << bit));
    EXPECT_EQ(device_block_problem(style, 0, DeviceDirection::kEncode), "") << "bit " << bit;
    EXPECT_EQ(device_block_problem(style, 0, DeviceDirection::kDecode), "") << "bit " << bit;
  }
  // ROI: an encode's shift stays on the CPU, a decode's is reconstructed
  // on the device.
  EXPECT_EQ(device_block_problem(part1, 3, DeviceDirection::kEncode), "ROI (Annex H) is coded on the CPU");
  EXPECT_EQ(device_block_problem(part1, 3, DeviceDirection::kDecode), "");
  EXPECT_EQ(device_block_problem(ht_style(), 3, DeviceDirection::kEncode), "ROI (Annex H) is coded on the CPU");
  // Sample depth: a decode's at most 16 bits, an encode's any.
  EXPECT_EQ(device_precision_problem(16, DeviceDirection::kDecode), "");
  EXPECT_EQ(device_precision_problem(17, DeviceDirection::kDecode),
            "components of more than 16 bits are decoded on the CPU");
  EXPECT_EQ(device_precision_problem(38, DeviceDirection::kEncode), "");
  // Regions.
  EXPECT_EQ(device_region_problem(false), "");
  EXPECT_EQ(device_region_problem(true), "a region is decoded on the CPU");
  // Options.
  EXPECT_EQ(device_encode_options_problem(part1, false), "");
  EXPECT_EQ(device_encode_options_problem(part1, true), "ROI (Annex H) is coded on the CPU");
  EXPECT_EQ(device_encode_options_problem(ht_style(), false), "");
  EXPECT_NE(device_encode_options_problem(ht_style(), true), "");
}

// Rate control's second coding of a tile's blocks: on the device only by
// estimates, at the nominal steps, for an image of one tile (a tile holds
// its slot until rate control ends; a second tile of the image would wait
// for it).
TEST(DeviceRule, CodingAgain) {
  EXPECT_EQ(device_codes_again_problem(true, false, 1), "");
  EXPECT_EQ(device_codes_again_problem(false, false, 1),
            "rate control codes every plane of the blocks again from the host's coefficients");
  EXPECT_EQ(device_codes_again_problem(true, true, 1),
            "rate control may move the blocks' indices to finer steps on the host");
  EXPECT_EQ(device_codes_again_problem(true, false, 2),
            "rate control codes the blocks again, and the image has more than one tile");
  EXPECT_EQ(device_codes_again_problem(true, false, 0),
            "rate control codes the blocks again, and the image has more than one tile");
  EXPECT_NE(device_codes_again_problem(false, true, 4), "");
}

TEST(DeviceRule, ColourPlanes) {
  const Scene scene;
  EncodeTile t = scene.tile(false);
  EXPECT_EQ(colour_planes_problem(t.planes), "");
  EXPECT_EQ(colour_planes_problem(std::span<const TilePlane>(t.planes).first(2)),
            "a colour transform needs three planes");
  t.planes[2].rect.x1 -= 1;
  EXPECT_EQ(colour_planes_problem(t.planes), "the colour transform's planes differ in size or wavelet");
}

// The forward planner takes what the rule takes and fails with its reason
// otherwise; the options' check says no wherever a tile of such options
// would be refused for them.
TEST(DeviceRule, TheForwardPlannerAgrees) {
  const Scene scene;
  const auto agree = [](const EncodeTile& tile, const std::string& reason) {
    EXPECT_EQ(device_tile_unsupported(tile), reason);
    const Result<DeviceTilePlan> plan = plan_device_tile(tile);
    EXPECT_EQ(plan.ok(), reason.empty());
    if (!plan.ok()) {
      EXPECT_NE(plan.status().message().find(reason), std::string::npos) << plan.status().message();
    }
  };
  agree(scene.tile(false), "");
  agree(scene.tile(false, dwt::Wavelet::k97), "");
  EncodeTile ht = scene.tile(false);
  for (EncodeBlock& b : ht.blocks) b.style.ht = true;
  agree(ht, "");
  EncodeTile mixed = scene.tile(false);
  mixed.blocks[1].style.ht = true;
  agree(mixed, "a tile whose code-blocks need two block coders");
  // Rate control that codes the blocks again: taken by estimates alone, at
  // the nominal steps, in an image of one tile.
  EncodeTile again = scene.tile(false);
  for (EncodeBlock& b : again.blocks) b.style.ht = true;
  again.codes_blocks_again = true;
  agree(again, device_codes_again_problem(false, false, 1));
  again.ht_statistics = true;
  agree(again, "");
  again.image_tiles = 2;
  agree(again, device_codes_again_problem(true, false, 2));
  again.image_tiles = 1;
  again.ht_finer.resize(again.blocks.size());
  agree(again, device_codes_again_problem(true, true, 1));
  const EncodeTile roi = scene.tile(false, dwt::Wavelet::k53, 2);
  agree(roi, device_encode_options_problem({}, true));
  EXPECT_NE(device_encode_options_problem({}, true), "");
  EncodeTile wide = scene.tile(false);
  Image deep = scene.image;
  deep.components[3].precision = 24;
  wide.image = &deep;
  agree(wide, "");  // any depth up
}

// A decoder's tile of the scene's blocks, none of them with passes (so that
// Tier-1 has nothing to decode and the plan stands on the rule alone).
struct BareDecodeTile {
  Image image;
  std::vector<int64_t> origin_x, origin_y;
  DecodeTile tile;
  explicit BareDecodeTile(const Scene& scene) : image(scene.image) {
    const EncodeTile e = scene.tile(false);
    for (Component& comp : image.components) comp.samples.clear();
    tile.image = &image;
    tile.colour_transform = true;
    tile.planes = e.planes;
    for (const TilePlane& p : e.planes) {
      origin_x.push_back(p.rect.x0 - scene.sx);
      origin_y.push_back(p.rect.y0 - scene.sy);
    }
    tile.origin_x = origin_x;
    tile.origin_y = origin_y;
    for (const EncodeBlock& b : e.blocks) {
      DecodeBlock d;
      d.place = b.place;
      d.coded.orientation = b.orientation;
      d.coded.num_bitplanes = b.num_bitplanes;
      tile.blocks.push_back(d);
    }
  }
};

TEST(DeviceRule, TheInversePlannerAgrees) {
  const Scene scene;
  const auto agree = [](const DecodeTile& tile, const std::string& reason) {
    EXPECT_EQ(device_decode_unsupported(tile), reason);
    const Result<DeviceDecodePlan> plan = plan_device_decode(tile);
    EXPECT_EQ(plan.ok(), reason.empty());
    if (!plan.ok()) {
      EXPECT_NE(plan.status().message().find(reason), std::string::npos) << plan.status().message();
    }
  };
  agree(BareDecodeTile(scene).tile, "");
  {
    BareDecodeTile s(scene);
    s.tile.blocks[4].coded.style.ht = true;
    // Only blocks with passes are decoded: a style elsewhere does not count.
    agree(s.tile, "");
    s.tile.blocks[4].coded.num_passes = 1;
    s.tile.blocks[5].coded.num_passes = 1;
    EXPECT_EQ(device_decode_unsupported(s.tile), "a tile whose code-blocks need two block coders");
  }
  {
    BareDecodeTile s(scene);
    for (DecodeBlock& b : s.tile.blocks) b.coded.style.ht = true;
    agree(s.tile, "");
  }
  {
    BareDecodeTile s(scene);
    s.tile.blocks[4].roi_shift = 3;
    agree(s.tile, "");
  }
  {
    BareDecodeTile s(scene);
    s.image.components[3].precision = 20;
    agree(s.tile, device_precision_problem(20, DeviceDirection::kDecode));
  }
  {
    BareDecodeTile s(scene);
    s.tile.windows.resize(s.tile.planes.size());
    agree(s.tile, device_region_problem(true));
  }
}

}  // namespace
}  // namespace mallat::codec

// The tile stages (codec/stages/tile_stages.h) through the CPU runner: each
// stage equals the plain functions it wraps, applied plane by plane or
// block by block; the ranges that fuse two stages per block give what the
// two give one after the other; forward stages then inverse stages give back
// the 5/3's samples exactly; HT code-blocks go to the HT block coder.
#include "codec/stages/tile_stages.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "codec/api/decode.h"
#include "codec/api/encode.h"
#include "codec/stages/component_transform.h"
#include "codec/stages/tile_output.h"
#include "common/image.h"
#include "quant/dequantize.h"
#include "quant/quantize.h"
#include "tests/codec/coded_tile.h"

namespace mallat::codec {
namespace {

constexpr int64_t kWidth = 61, kHeight = 45;          // odd sizes
constexpr int64_t kTileX0 = 7, kTileY0 = 3;            // odd origin: the DWT's parity shows
constexpr int kLevels = 3;

// An RGB image, smooth with noise, 8 bits.
Image test_image(uint32_t seed) {
  std::mt19937 rng(seed);
  Image image = *make_image(kWidth, kHeight, 3, 8, false);
  for (int c = 0; c < 3; ++c) {
    for (int64_t y = 0; y < kHeight; ++y) {
      for (int64_t x = 0; x < kWidth; ++x) {
        const double smooth = 128 + 90 * std::sin(0.11 * x + 0.7 * c) * std::cos(0.07 * y);
        image.components[c].samples[y * kWidth + x] =
            std::clamp(static_cast<int32_t>(smooth) + static_cast<int32_t>(rng() % 21) - 10, 0, 255);
      }
    }
  }
  return image;
}

// Code-blocks of up to 16 x 16 over every subband of a plane's packed
// layout (dwt/geometry.h), each subband's blocks in raster order.
std::vector<std::pair<BlockPlace, entropy::BandOrientation>> partition(int component, const dwt::Rect& rect) {
  std::vector<std::pair<BlockPlace, entropy::BandOrientation>> blocks;
  auto cut = [&](const dwt::Rect& band, dwt::Band orientation) {
    for (int64_t y = band.y0; y < band.y1; y += 16) {
      for (int64_t x = band.x0; x < band.x1; x += 16) {
        blocks.push_back({{component, x, y, std::min<int64_t>(16, band.x1 - x), std::min<int64_t>(16, band.y1 - y)},
                          static_cast<entropy::BandOrientation>(orientation)});
      }
    }
  };
  cut(dwt::packed_subband_rect(rect, kLevels, kLevels, dwt::Band::kLL), dwt::Band::kLL);
  for (int nb = kLevels; nb >= 1; --nb) {
    for (dwt::Band band : {dwt::Band::kHL, dwt::Band::kLH, dwt::Band::kHH}) {
      cut(dwt::packed_subband_rect(rect, kLevels, nb, band), band);
    }
  }
  return blocks;
}

dwt::Rect tile_rect() { return {kTileX0, kTileY0, kTileX0 + kWidth, kTileY0 + kHeight}; }

// The tile of `image` for the forward stages. Every fifth block of
// component 1 has a region-of-interest shift.
EncodeTile encode_tile(const Image& image, dwt::Wavelet wavelet, const entropy::CodeBlockStyle& style) {
  EncodeTile tile;
  tile.image = &image;
  tile.colour_transform = true;
  for (int c = 0; c < 3; ++c) {
    TilePlane plane;
    plane.rect = tile_rect();
    plane.levels = kLevels;
    plane.wavelet = wavelet;
    plane.allocate();
    tile.planes.push_back(std::move(plane));
    tile.source_x.push_back(0);
    tile.source_y.push_back(0);
    int n = 0;
    for (const auto& [place, orientation] : partition(c, tile_rect())) {
      EncodeBlock b;
      b.place = place;
      b.orientation = orientation;
      b.style = style;
      b.roi_shift = c == 1 && n++ % 5 == 0 ? 3 : 0;
      // Enough planes for the 5/3's growth over 8-bit samples; the 9/7's
      // indices at a step of 1/2 likewise.
      b.num_bitplanes = 18 + b.roi_shift;
      b.step = 0.5;
      b.fraction_bits = wavelet == dwt::Wavelet::k97 ? std::min(8, 31 - b.num_bitplanes) : 0;
      tile.blocks.push_back(b);
    }
  }
  return tile;
}

std::vector<uint32_t> words(const TilePlane& plane) {
  std::vector<uint32_t> out(plane.count());
  std::memcpy(out.data(), plane.storage.get(), out.size() * 4);
  return out;
}

void copy_plane(const TilePlane& from, TilePlane& to) {
  to.rect = from.rect;
  to.levels = from.levels;
  to.wavelet = from.wavelet;
  to.allocate();
  std::memcpy(to.storage.get(), from.storage.get(), from.count() * 4);
}

struct Runner {
  ThreadPool pool{3};
  std::unique_ptr<dwt::Backend> dwt = dwt::make_backend(dwt::BackendKind::kCpu, 3).value();
  std::unique_ptr<TileStages> stages = make_cpu_tile_stages(pool, *dwt);
};

TEST(TileStages, ComponentTransformIsShiftThenColourTransform) {
  const Image image = test_image(1);
  for (dwt::Wavelet wavelet : {dwt::Wavelet::k53, dwt::Wavelet::k97}) {
    Runner run;
    EncodeTile tile = encode_tile(image, wavelet, {});
    ASSERT_TRUE(run.stages->forward(ForwardStage::kComponentTransform, ForwardStage::kComponentTransform, tile).ok());
    // G.1.2 over whole planes, then G.2 / G.3.
    std::vector<std::vector<int32_t>> ints(3);
    std::vector<std::vector<float>> floats(3);
    for (int c = 0; c < 3; ++c) {
      ints[c] = image.components[c].samples;
      dc_level_shift_forward(ints[c], 8, false);
      for (int32_t v : ints[c]) floats[c].push_back(static_cast<float>(v));
    }
    if (wavelet == dwt::Wavelet::k53) {
      rct_forward(ints[0], ints[1], ints[2]);
      for (int c = 0; c < 3; ++c) {
        const PlaneView<int32_t> p = tile.planes[c].ints();
        EXPECT_EQ(std::vector<int32_t>(p.data, p.data + p.width * p.height), ints[c]) << c;
      }
    } else {
      ict_forward(floats[0], floats[1], floats[2]);
      for (int c = 0; c < 3; ++c) {
        const PlaneView<float> p = tile.planes[c].floats();
        EXPECT_EQ(std::vector<float>(p.data, p.data + p.width * p.height), floats[c]) << c;
      }
    }
  }
}

TEST(TileStages, DwtStagesAreTheBackendsTransforms) {
  const Image image = test_image(2);
  for (dwt::Wavelet wavelet : {dwt::Wavelet::k53, dwt::Wavelet::k97}) {
    Runner run;
    EncodeTile tile = encode_tile(image, wavelet, {});
    ASSERT_TRUE(run.stages->forward(ForwardStage::kComponentTransform, ForwardStage::kComponentTransform, tile).ok());
    std::vector<TilePlane> expected(3);
    for (int c = 0; c < 3; ++c) copy_plane(tile.planes[c], expected[c]);
    ASSERT_TRUE(run.stages->forward(ForwardStage::kDwt, ForwardStage::kDwt, tile).ok());
    // The reference backend, one plane at a time (Annex F, at the plane's
    // own origin); the 5/3 bit-exact, the 9/7 within float rounding.
    auto reference = dwt::make_backend(dwt::BackendKind::kReference).value();
    for (int c = 0; c < 3; ++c) {
      dwt::PlaneJob job;
      job.wavelet = wavelet;
      job.levels = kLevels;
      job.x0 = kTileX0;
      job.y0 = kTileY0;
      job.samples53 = expected[c].ints();
      job.samples97 = expected[c].floats();
      ASSERT_TRUE(reference->run(job).ok());
      if (wavelet == dwt::Wavelet::k53) {
        EXPECT_EQ(words(tile.planes[c]), words(expected[c])) << c;
      } else {
        const PlaneView<float> got = tile.planes[c].floats(), want = expected[c].floats();
        for (int64_t i = 0; i < got.width * got.height; ++i) {
          ASSERT_NEAR(got.data[i], want.data[i], 1e-2 + 1e-4 * std::fabs(want.data[i])) << i;
        }
      }
    }
    // And back: the inverse stage on a decoder's tile of the same planes.
    DecodeTile back;
    for (int c = 0; c < 3; ++c) {
      back.planes.emplace_back();
      copy_plane(tile.planes[c], back.planes[c]);
    }
    ASSERT_TRUE(run.stages->inverse(InverseStage::kInverseDwt, InverseStage::kInverseDwt, back).ok());
    for (int c = 0; c < 3; ++c) {
      dwt::PlaneJob job;
      job.wavelet = wavelet;
      job.direction = dwt::Direction::kInverse;
      job.levels = kLevels;
      job.x0 = kTileX0;
      job.y0 = kTileY0;
      job.samples53 = tile.planes[c].ints();
      job.samples97 = tile.planes[c].floats();
      ASSERT_TRUE(run.dwt->run(job).ok());
      EXPECT_EQ(words(back.planes[c]), words(tile.planes[c])) << c;
    }
  }
}

TEST(TileStages, QuantisationAndBlockCodingArePerBlockCalls) {
  const Image image = test_image(3);
  for (dwt::Wavelet wavelet : {dwt::Wavelet::k53, dwt::Wavelet::k97}) {
    for (uint8_t style : {0x00, 0x3F, 0x05}) {
      SCOPED_TRACE(std::string(wavelet == dwt::Wavelet::k53 ? "5/3" : "9/7") + " style " + std::to_string(style));
      Runner run;
      EncodeTile fused = encode_tile(image, wavelet, entropy::CodeBlockStyle::from_byte(style));
      ASSERT_TRUE(run.stages->forward(ForwardStage::kComponentTransform, ForwardStage::kDwt, fused).ok());
      EncodeTile separate = encode_tile(image, wavelet, entropy::CodeBlockStyle::from_byte(style));
      for (int c = 0; c < 3; ++c) copy_plane(fused.planes[c], separate.planes[c]);
      EncodeTile plain = encode_tile(image, wavelet, entropy::CodeBlockStyle::from_byte(style));
      for (int c = 0; c < 3; ++c) copy_plane(fused.planes[c], plain.planes[c]);

      ASSERT_TRUE(run.stages->forward(ForwardStage::kQuantisation, ForwardStage::kBlockCoding, fused).ok());
      ASSERT_TRUE(run.stages->forward(ForwardStage::kQuantisation, ForwardStage::kQuantisation, separate).ok());
      ASSERT_TRUE(run.stages->forward(ForwardStage::kBlockCoding, ForwardStage::kBlockCoding, separate).ok());
      ASSERT_EQ(fused.coded.size(), plain.blocks.size());
      ASSERT_EQ(separate.coded.size(), plain.blocks.size());
      for (size_t i = 0; i < plain.blocks.size(); ++i) {
        const EncodeBlock& b = plain.blocks[i];
        // Annex E: the dead zone quantiser into a block of its own, then
        // H.1's shift; Tier-1 on the result.
        std::vector<int32_t> indices(static_cast<size_t>(b.place.width * b.place.height));
        const PlaneView<int32_t> view{indices.data(), b.place.width, b.place.height, b.place.width};
        quant::QuantizationError e;
        if (wavelet == dwt::Wavelet::k97) {
          e = quant::quantize_dead_zone(b.place.in(plain.planes[b.place.component].floats()), b.step,
                                        b.num_bitplanes - b.roi_shift, view, b.fraction_bits);
        } else {
          const PlaneView<int32_t> src = b.place.in(plain.planes[b.place.component].ints());
          for (int64_t y = 0; y < view.height; ++y) std::copy_n(src.row(y), view.width, view.row(y));
        }
        for (int32_t& v : indices) v *= int32_t{1} << b.roi_shift;
        auto coded = entropy::encode_code_block(view, b.orientation, b.num_bitplanes, b.style, b.fraction_bits);
        ASSERT_TRUE(coded.ok()) << coded.status().to_string();
        for (const EncodeTile* tile : {&fused, &separate}) {
          EXPECT_EQ(tile->quantisation[i].clipped, e.clipped) << i;
          EXPECT_EQ(tile->quantisation[i].energy, e.energy) << i;
          EXPECT_EQ(tile->coded[i].data, coded->data) << i;
          ASSERT_EQ(tile->coded[i].passes.size(), coded->passes.size()) << i;
          for (size_t k = 0; k < coded->passes.size(); ++k) {
            EXPECT_EQ(tile->coded[i].passes[k].cumulative_length, coded->passes[k].cumulative_length);
            EXPECT_EQ(tile->coded[i].passes[k].distortion_decrease, coded->passes[k].distortion_decrease);
          }
        }
      }
    }
  }
}

TEST(TileStages, BlockDecodingAndDequantisationArePerBlockCalls) {
  const Image image = test_image(4);
  for (dwt::Wavelet wavelet : {dwt::Wavelet::k53, dwt::Wavelet::k97}) {
    SCOPED_TRACE(wavelet == dwt::Wavelet::k53 ? "5/3" : "9/7");
    Runner run;
    EncodeTile coded = encode_tile(image, wavelet, entropy::CodeBlockStyle::from_byte(0x01));
    ASSERT_TRUE(run.stages->forward(ForwardStage::kComponentTransform, ForwardStage::kBlockCoding, coded).ok());
    // Truncated anywhere; some blocks without passes.
    std::mt19937 rng(5);
    std::vector<int> chosen(coded.blocks.size());
    const auto passes_of = [&](size_t i, int all) {
      if (chosen[i] == 0) chosen[i] = 1 + (all == 0 || rng() % 6 == 0 ? 0 : 1 + static_cast<int>(rng() % all));
      return chosen[i] - 1;
    };
    CodedTile fused, separate;
    decode_tile_for(coded, fused, passes_of);
    decode_tile_for(coded, separate, passes_of);
    ASSERT_TRUE(run.stages->inverse(InverseStage::kBlockDecoding, InverseStage::kDequantisation, fused.tile).ok());
    ASSERT_TRUE(run.stages->inverse(InverseStage::kBlockDecoding, InverseStage::kBlockDecoding, separate.tile).ok());
    // Between the two stages: each block as decode_code_block leaves it.
    int without_passes = 0;
    for (size_t i = 0; i < separate.tile.blocks.size(); ++i) {
      const DecodeBlock& b = separate.tile.blocks[i];
      std::vector<int32_t> direct(static_cast<size_t>(b.place.width * b.place.height));
      entropy::CodeBlockToDecode in;
      in.data = fused.pieces[i];
      in.segment_lengths = fused.lengths[i];
      in.num_passes = b.coded.num_passes;
      in.zero_bitplanes = b.coded.zero_bitplanes;
      in.num_bitplanes = b.coded.num_bitplanes;
      in.orientation = b.coded.orientation;
      in.style = b.coded.style;
      auto info = entropy::decode_code_block(in, {direct.data(), b.place.width, b.place.height, b.place.width});
      ASSERT_TRUE(info.ok());
      const PlaneView<int32_t> got = b.place.in(separate.tile.planes[b.place.component].ints());
      for (int64_t y = 0; y < got.height; ++y) {
        ASSERT_TRUE(std::equal(got.row(y), got.row(y) + got.width, direct.data() + y * got.width)) << i;
      }
      if (b.coded.num_passes == 0) {
        ++without_passes;
        continue;
      }
      EXPECT_EQ(b.info.lowest_plane, info->lowest_plane);
      EXPECT_EQ(b.info.ended_in_significance_pass, info->ended_in_significance_pass);
      // And after dequantisation (the fused run): the reconstruction of E.1.1.2.
      const TilePlane& plane = fused.tile.planes[b.place.component];
      const quant::BlockReconstruction how{b.roi_shift, b.step};
      const quant::KnownPlanes known{info->lowest_plane, info->ended_in_significance_pass};
      const PlaneView<int32_t> values{direct.data(), b.place.width, b.place.height, b.place.width};
      if (wavelet == dwt::Wavelet::k53) {
        quant::reconstruct_reversible(values, known, how);
        const PlaneView<int32_t> dequantised = b.place.in(plane.ints());
        for (int64_t y = 0; y < got.height; ++y) {
          ASSERT_TRUE(std::equal(values.row(y), values.row(y) + got.width, dequantised.row(y))) << i;
        }
      } else {
        std::vector<float> expected(direct.size());
        quant::reconstruct_irreversible(values, known, how, {expected.data(), got.width, got.height, got.width});
        const PlaneView<float> dequantised = b.place.in(plane.floats());
        for (int64_t y = 0; y < got.height; ++y) {
          ASSERT_TRUE(std::equal(expected.data() + y * got.width, expected.data() + (y + 1) * got.width,
                                 dequantised.row(y))) << i;
        }
      }
    }
    EXPECT_GT(without_passes, 0);
    // Dequantisation on its own gives what the fused run gave.
    ASSERT_TRUE(run.stages->inverse(InverseStage::kDequantisation, InverseStage::kDequantisation, separate.tile).ok());
    for (int c = 0; c < 3; ++c) EXPECT_EQ(words(fused.tile.planes[c]), words(separate.tile.planes[c])) << c;
  }
}

TEST(TileStages, BlockDecodingNamesTheFirstFailedBlock) {
  const Image image = test_image(6);
  Runner run;
  EncodeTile coded = encode_tile(image, dwt::Wavelet::k53, {});
  ASSERT_TRUE(run.stages->forward(ForwardStage::kComponentTransform, ForwardStage::kBlockCoding, coded).ok());
  CodedTile t;
  decode_tile_for(coded, t, [](size_t, int all) { return all; });
  t.tile.describe_block = [](size_t i) { return "block " + std::to_string(i); };
  // Block 9 has more passes than its planes allow (the block decoder's
  // error, named); block 12 an error found before decoding (as it is).
  t.tile.blocks[9].coded.num_passes = 3 * t.tile.blocks[9].coded.num_bitplanes;
  t.tile.blocks[12].status = unsupported("too many planes");
  Status s = run.stages->inverse(InverseStage::kBlockDecoding, InverseStage::kBlockDecoding, t.tile);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kCorruptData);
  EXPECT_EQ(s.message().rfind("block 9: ", 0), 0u) << s.message();
  t.tile.blocks[9].coded.num_passes = 0;
  t.tile.blocks[9].status = Status::Ok();
  s = run.stages->inverse(InverseStage::kBlockDecoding, InverseStage::kBlockDecoding, t.tile);
  EXPECT_EQ(s.message(), "too many planes");
}

TEST(TileStages, ForwardThenInverseGivesBackThe53Samples) {
  const Image image = test_image(7);
  Runner run;
  EncodeTile coded = encode_tile(image, dwt::Wavelet::k53, entropy::CodeBlockStyle::from_byte(0x3F));
  ASSERT_TRUE(run.stages->forward(ForwardStage::kComponentTransform, ForwardStage::kBlockCoding, coded).ok());
  CodedTile t;
  decode_tile_for(coded, t, [](size_t, int all) { return all; });
  // The output image one column wider than the tile: that column is never
  // written, so it stays as allocated, zero.
  Image out;
  for (const Component& c : image.components) {
    Component comp = c;
    comp.width = c.width + 1;
    comp.samples.clear();
    out.components.push_back(comp);
  }
  const std::vector<int64_t> origin_x(3, kTileX0), origin_y(3, kTileY0);
  t.tile.colour_transform = true;
  t.tile.image = &out;
  t.tile.origin_x = origin_x;
  t.tile.origin_y = origin_y;
  ASSERT_TRUE(run.stages->inverse(InverseStage::kBlockDecoding, InverseStage::kOutput, t.tile).ok());
  for (int c = 0; c < 3; ++c) {
    for (int64_t y = 0; y < kHeight; ++y) {
      for (int64_t x = 0; x <= kWidth; ++x) {
        const int32_t want = x < kWidth ? image.components[c].samples[y * kWidth + x] : 0;
        ASSERT_EQ(out.components[c].samples[y * (kWidth + 1) + x], want) << c << " " << x << "," << y;
      }
    }
  }
}

TEST(TileStages, OutputStageIsWriteTile) {
  const Image image = test_image(8);
  for (dwt::Wavelet wavelet : {dwt::Wavelet::k53, dwt::Wavelet::k97}) {
    Runner run;
    EncodeTile coded = encode_tile(image, wavelet, {});
    ASSERT_TRUE(run.stages->forward(ForwardStage::kComponentTransform, ForwardStage::kDwt, coded).ok());
    DecodeTile tile;
    std::vector<DecodedTileComponent> reference(3);
    std::vector<TilePlane> copies(3);
    for (int c = 0; c < 3; ++c) {
      tile.planes.emplace_back();
      copy_plane(coded.planes[c], tile.planes[c]);
      copy_plane(coded.planes[c], copies[c]);
      reference[c].rect = copies[c].rect;
      if (wavelet == dwt::Wavelet::k53) {
        reference[c].samples53 = copies[c].ints();
      } else {
        reference[c].samples97 = copies[c].floats();
      }
    }
    Image got = image, want = image;
    // Origins that put the tile partly outside the image.
    const std::vector<int64_t> origin_x(3, kTileX0 + 5), origin_y(3, kTileY0 - 4);
    tile.colour_transform = true;
    tile.image = &got;
    tile.origin_x = origin_x;
    tile.origin_y = origin_y;
    ASSERT_TRUE(run.stages->inverse(InverseStage::kOutput, InverseStage::kOutput, tile).ok());
    write_tile_reference(reference, true, origin_x, origin_y, want);
    for (int c = 0; c < 3; ++c) EXPECT_EQ(got.components[c].samples, want.components[c].samples) << c;
    // The colour transform needs three planes of one size.
    tile.planes[2].rect.x1 -= 1;
    EXPECT_EQ(run.stages->inverse(InverseStage::kOutput, InverseStage::kOutput, tile).code(), ErrorCode::kCorruptData);
  }
}

TEST(TileStages, RangesOutOfOrderAreRefused) {
  Runner run;
  EncodeTile e;
  DecodeTile d;
  EXPECT_EQ(run.stages->forward(ForwardStage::kDwt, ForwardStage::kComponentTransform, e).code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(run.stages->inverse(InverseStage::kOutput, InverseStage::kBlockDecoding, d).code(),
            ErrorCode::kInvalidArgument);
}

TEST(TileStages, HtCodeBlocksAreCodedByTheHtCoder) {
  // 15444-15's HT code-blocks reach the block coding stages, whose
  // factories give the HT block coder (entropy/ht/code_block.h); with
  // Tier-2's HT segments the file decodes to every sample.
  const Image image = test_image(9);
  EncodeOptions options;
  options.style.ht = true;
  auto out = encode(image, options);
  ASSERT_TRUE(out.ok()) << out.status().message();
  auto decoded = decode(*out, DecodeOptions{});
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  for (int c = 0; c < image.num_components(); ++c) {
    EXPECT_TRUE(decoded->components[c].samples == image.components[c].samples) << "component " << c;
  }
}

}  // namespace
}  // namespace mallat::codec

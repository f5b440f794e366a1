// The device runners' test tile (tests/codec/device_tile_plan_test.cc,
// device_decode_plan_test.cc): an image and a tile of it cut into
// code-blocks as the encoder would, for the forward runner's plan and,
// coded by the CPU runner, the inverse one's.
#pragma once

#include <algorithm>
#include <random>

#include "codec/stages/tile_buffers.h"
#include "common/image.h"
#include "dwt/geometry.h"

namespace mallat::codec {

// A 4-component image whose tile starts inside it (the samples are read
// from an offset, on rows of the image's width): components 0..2 under the
// RCT, the fourth 12-bit signed without it (8-bit unsigned as the others
// with `bytes`, so that the image fits a PNM raster).
struct Scene {
  Image image;
  dwt::Rect rect{5, 2, 5 + 53, 2 + 38};  // odd origin and sizes
  int levels = 3;
  int64_t sx = 9, sy = 4;                 // where the tile's samples start in each component

  explicit Scene(bool bytes = false) {
    image = make_image(70, 50, 4, 8, false).value();
    if (!bytes) {
      image.components[3].precision = 12;
      image.components[3].is_signed = true;
    }
    std::mt19937 rng(7);
    for (int c = 0; c < 4; ++c) {
      const int32_t lo = image.components[c].min_value(), hi = image.components[c].max_value();
      for (int32_t& v : image.components[c].samples) v = lo + static_cast<int32_t>(rng() % (hi - lo + 1));
    }
  }

  // 13x11 code-blocks over every subband of each plane's packed layout;
  // with the 9/7, a step per subband and fraction bits as the encoder sets
  // them (tile_encoder.cc), some steps small enough to clip.
  EncodeTile tile(bool allocate, dwt::Wavelet wavelet = dwt::Wavelet::k53, int roi_shift = 0) const {
    EncodeTile t;
    t.image = &image;
    t.colour_transform = true;
    for (int c = 0; c < 4; ++c) {
      TilePlane plane;
      plane.rect = rect;
      plane.levels = levels;
      plane.wavelet = wavelet;
      if (allocate) plane.allocate();
      t.planes.push_back(std::move(plane));
      t.source_x.push_back(sx);
      t.source_y.push_back(sy);
      auto cut = [&](const dwt::Rect& band, dwt::Band orientation) {
        for (int64_t y = band.y0; y < band.y1; y += 11) {
          for (int64_t x = band.x0; x < band.x1; x += 13) {
            EncodeBlock b;
            b.place = {c, x, y, std::min<int64_t>(13, band.x1 - x), std::min<int64_t>(11, band.y1 - y)};
            b.orientation = static_cast<entropy::BandOrientation>(orientation);
            b.num_bitplanes = 17;
            if (wavelet == dwt::Wavelet::k97) {
              const int k = static_cast<int>(t.blocks.size());
              b.num_bitplanes = 6 + k % 5;
              b.step = k % 7 == 0 ? 0.01 : 0.37 + 0.11 * (k % 4);
              b.fraction_bits = std::clamp(31 - b.num_bitplanes, 0, 8);
            }
            // H.1: every fifth block under a region of interest, its
            // indices shifted up (its planes counted with the shift).
            if (roi_shift > 0 && t.blocks.size() % 5 == 0) {
              b.roi_shift = roi_shift;
              b.num_bitplanes += roi_shift;
            }
            t.blocks.push_back(b);
          }
        }
      };
      cut(dwt::packed_subband_rect(rect, levels, levels, dwt::Band::kLL), dwt::Band::kLL);
      for (int nb = levels; nb >= 1; --nb)
        for (dwt::Band band : {dwt::Band::kHL, dwt::Band::kLH, dwt::Band::kHH})
          cut(dwt::packed_subband_rect(rect, levels, nb, band), band);
    }
    return t;
  }
};

}  // namespace mallat::codec

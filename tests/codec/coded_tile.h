// A test's decoder tile for what a CPU runner coded (tile_stages_test.cc,
// device_decode_plan_test.cc): every block truncated after a pass chosen by
// `passes_of(block index, its pass count)`, its bytes as one piece, the
// planes fresh.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "codec/stages/tile_buffers.h"
#include "entropy/ebcot/ebcot.h"

namespace mallat::codec {

struct CodedTile {
  DecodeTile tile;
  std::vector<std::vector<uint32_t>> lengths;
  std::vector<std::span<const uint8_t>> pieces;
};

inline void decode_tile_for(const EncodeTile& coded, CodedTile& out,
                            const std::function<int(size_t, int)>& passes_of) {
  const size_t n = coded.blocks.size();
  out.lengths.resize(n);
  out.pieces.resize(n);
  for (const TilePlane& p : coded.planes) {
    TilePlane plane;
    plane.rect = p.rect;
    plane.levels = p.levels;
    plane.wavelet = p.wavelet;
    plane.allocate();
    out.tile.planes.push_back(std::move(plane));
  }
  for (size_t i = 0; i < n; ++i) {
    const EncodeBlock& e = coded.blocks[i];
    const entropy::EncodedCodeBlock& c = coded.coded[i];
    const int passes = passes_of(i, c.num_passes);
    out.lengths[i] = entropy::codeword_segment_lengths(c, passes);
    out.pieces[i] = std::span<const uint8_t>(c.data.data(), passes == 0 ? 0 : c.passes[passes - 1].cumulative_length);
    DecodeBlock d;
    d.place = e.place;
    d.coded = {{&out.pieces[i], 1}, out.lengths[i], passes, c.zero_bitplanes, e.num_bitplanes, e.orientation, e.style};
    d.roi_shift = e.roi_shift;
    d.step = static_cast<float>(e.step);
    out.tile.blocks.push_back(d);
  }
}

}  // namespace mallat::codec

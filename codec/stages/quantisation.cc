#include "codec/stages/quantisation.h"

#include <algorithm>
#include <vector>

#include "codec/stages/quantise_statistics.h"
#include "codec/stages/tile_buffers.h"
#include "quant/dequantize.h"
#include "quant/finer_indices.h"

namespace mallat::codec {

quant::QuantizationError quantise_block(const EncodeTile& tile, size_t i) {
  const EncodeBlock& b = tile.blocks[i];
  const TilePlane& plane = tile.planes[b.place.component];
  const PlaneView<int32_t> indices = b.place.in(plane.ints());
  quant::QuantizationError e;
  if (plane.wavelet == dwt::Wavelet::k97) {
    // Irreversible: the indices carry up to 8 bits of their coefficient's
    // fraction below them (within Tier-1's 31 magnitude bits), so Tier-1
    // measures each pass against the unquantised coefficients. In place:
    // quantize_dead_zone writes each index after reading its coefficient.
    e = quant::quantize_dead_zone(b.place.in(plane.floats()), b.step, b.num_bitplanes - b.roi_shift, indices,
                                  b.fraction_bits);
  }
  if (b.roi_shift > 0) {
    // H.1: the region's coefficients are shifted up by s, above every
    // background plane; with the whole component as the region, all of them.
    for (int64_t y = 0; y < indices.height; ++y) {
      int32_t* row = indices.row(y);
      for (int64_t x = 0; x < indices.width; ++x) row[x] = row[x] * (int32_t{1} << b.roi_shift);
    }
  }
  return e;
}

namespace {

// Block i quantised as quantise_block does, and its indices' HT plane
// statistics: in one pass over its rows where that applies (the 9/7
// without ROI, quantise_statistics.h), else the two passes. The indices go
// to `indices`: the block's place in its plane, or with `to_scratch`, where
// the one pass applies, this thread's scratch.
quant::QuantizationError quantise_block_with_statistics(const EncodeTile& tile, size_t i, bool to_scratch,
                                                        entropy::HtPlaneStatistics& statistics,
                                                        PlaneView<int32_t>& indices) {
  const EncodeBlock& b = tile.blocks[i];
  const TilePlane& plane = tile.planes[b.place.component];
  indices = b.place.in(plane.ints());
  quant::QuantizationError e;
  if (plane.wavelet == dwt::Wavelet::k97 && b.roi_shift == 0) {
    thread_local std::vector<int32_t> scratch;
    PlaneView<int32_t> out = indices;
    if (to_scratch) {
      // Grown once to a code-block's most samples (15444-1 A.6.1: xcb +
      // ycb <= 12), not cleared afresh as block sizes change.
      constexpr size_t kMostSamples = 4096;
      const auto samples = static_cast<size_t>(b.place.width * b.place.height);
      if (scratch.size() < samples) scratch.resize(std::max(samples, kMostSamples));
      out = {scratch.data(), b.place.width, b.place.height, b.place.width};
    }
    if (quantise_with_ht_statistics(b.place.in(plane.floats()), b.step, b.num_bitplanes, b.fraction_bits, out, e,
                                    statistics)) {
      indices = out;
      return e;
    }
  }
  e = quantise_block(tile, i);
  // While the block's indices are in cache. The 9/7's indices are clipped
  // below 2^(Mb + F) (ROI's up-shift included: Mb counts it).
  const int magnitude_bits = plane.wavelet == dwt::Wavelet::k97 ? b.num_bitplanes + b.fraction_bits : 32;
  entropy::gather_ht_plane_statistics(indices, b.fraction_bits, statistics, magnitude_bits);
  return e;
}

// Block i's estimate at its finer step (EncodeTile::ht_finer), from its
// indices at the nominal one (`indices`) taken there in a copy.
entropy::HtPlaneEstimate finer_estimate(const EncodeTile& tile, size_t i, PlaneView<const int32_t> indices) {
  const EncodeBlock& b = tile.blocks[i];
  const FinerStep& finer = tile.ht_finer[i];
  thread_local std::vector<int32_t> copy;
  copy.resize(static_cast<size_t>(b.place.width * b.place.height));
  const PlaneView<int32_t> at{copy.data(), b.place.width, b.place.height, b.place.width};
  quant::finer_indices(indices, finer.factor, finer.magnitude_bits, at);
  entropy::HtPlaneStatistics statistics;
  entropy::gather_ht_plane_statistics(at, b.fraction_bits, statistics, finer.magnitude_bits);
  return entropy::estimate_ht_planes(statistics, b.fraction_bits);
}

}  // namespace

void quantise_blocks(EncodeTile& tile, ThreadPool& pool, const entropy::BatchWork& beside,
                     const QuantisedIndices& take) {
  tile.quantisation.assign(tile.blocks.size(), {});
  tile.ht_estimates.assign(tile.ht_statistics ? tile.blocks.size() : 0, {});
  tile.ht_finer_estimates.assign(tile.ht_statistics ? tile.ht_finer.size() : 0, {});
  const int64_t items = beside.item ? beside.items : 0;
  pool.parallel_for(items + static_cast<int64_t>(tile.blocks.size()), [&](int64_t k) {
    if (k < items) {
      beside.item(k);
      return;
    }
    const auto i = static_cast<size_t>(k - items);
    PlaneView<int32_t> indices;
    if (tile.ht_statistics) {
      entropy::HtPlaneStatistics statistics;
      tile.quantisation[i] = quantise_block_with_statistics(tile, i, static_cast<bool>(take), statistics, indices);
      tile.ht_estimates[i] = entropy::estimate_ht_planes(statistics, tile.blocks[i].fraction_bits);
      if (!tile.ht_finer.empty()) tile.ht_finer_estimates[i] = finer_estimate(tile, i, indices);
    } else {
      tile.quantisation[i] = quantise_block(tile, i);
      const EncodeBlock& b = tile.blocks[i];
      indices = b.place.in(tile.planes[b.place.component].ints());
    }
    if (beside.each) beside.each(i);
    if (take) take(i, indices);
  });
}

void dequantise_block(const DecodeTile& tile, size_t i) {
  const DecodeBlock& b = tile.blocks[i];
  const TilePlane& plane = tile.block_plane(b.place);
  const quant::KnownPlanes known{b.info.lowest_plane, b.info.ended_in_significance_pass};
  const quant::BlockReconstruction how{b.roi_shift, b.step};
  const PlaneView<int32_t> values = b.place.in(plane.ints());
  if (plane.wavelet == dwt::Wavelet::k53) {
    quant::reconstruct_reversible(values, known, how);
  } else {
    // The floats go where their integers were (tile_buffers.h).
    quant::reconstruct_irreversible(values, known, how, b.place.in(plane.floats()));
  }
}

void dequantise_blocks(DecodeTile& tile, ThreadPool& pool) {
  pool.parallel_for(static_cast<int64_t>(tile.blocks.size()), [&](int64_t i) {
    const DecodeBlock& b = tile.blocks[i];
    if (b.status.ok() && b.coded.num_passes > 0) dequantise_block(tile, static_cast<size_t>(i));
  });
}

}  // namespace mallat::codec

// What the tile pipeline's stages (tile_stages.h) work on: one plane per
// tile-component, with its geometry, and the tile's code-blocks with what
// each stage needs of them and leaves for the next.
//
// A plane's samples are 4 bytes each and change meaning in place as they go
// through the stages, so that one allocation per tile-component carries a
// tile from the image to the code-blocks and back (a device runner taking
// several stages would keep this layout in device memory):
//
//   encoding: samples (int32 for the 5/3, float for the 9/7) after the DC
//             shift and colour transform (G.1, G.2, G.3); subbands in the
//             packed layout of dwt/geometry.h after the DWT (Annex F);
//             int32 quantisation indices after quantisation (Annex E;
//             the 9/7's floats are replaced block by block);
//   decoding: the int32 values the block decoder returns (Annex D); then
//             coefficients (int32 for the 5/3, float for the 9/7) after
//             dequantisation (E.1, H.1); samples after the inverse DWT.
//
// The int32 <-> float conversions read each sample and write the result in
// its place, so every store depends on the load at the same address.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/image.h"
#include "common/large_buffer.h"
#include "common/plane_view.h"
#include "common/status.h"
#include "dwt/dwt.h"
#include "dwt/geometry.h"
#include "entropy/block_coder.h"
#include "entropy/ebcot/ebcot.h"
#include "entropy/ht/plane_estimate.h"
#include "quant/quantize.h"

namespace mallat::codec {

// One tile-component's plane, row by row without padding.
struct TilePlane {
  // Where the samples lie on the component's grid (B-12; when decoding at a
  // reduced resolution, B-14's rectangle of the highest one decoded): its
  // x0, y0 decide which samples the DWT treats as low-pass (F.3, F.4).
  dwt::Rect rect;
  int levels = 0;  // decomposition levels the forward DWT applies, or the inverse undoes
  dwt::Wavelet wavelet = dwt::Wavelet::k53;
  // Shared so that a buffer may be a piece of a larger allocation it keeps
  // alive (the streamed tile's band buffers: streamed_tile.cc).
  std::shared_ptr<std::byte[]> storage;

  int64_t width() const { return rect.width(); }
  int64_t height() const { return rect.height(); }
  size_t count() const { return rect.empty() ? 0 : static_cast<size_t>(width() * height()); }

  // Storage for count() samples, uninitialised: every stage that fills a
  // plane writes all its samples.
  void allocate() { storage = allocate_large(count() * 4); }

  PlaneView<int32_t> ints() const { return {reinterpret_cast<int32_t*>(storage.get()), width(), height(), width()}; }
  PlaneView<float> floats() const { return {reinterpret_cast<float*>(storage.get()), width(), height(), width()}; }
};

// Where a code-block's samples lie: a rectangle of plane `component`, in the
// packed subband layout the DWT leaves (dwt/geometry.h).
struct BlockPlace {
  int component = 0;
  int64_t x0 = 0, y0 = 0, width = 0, height = 0;

  // Whether the rectangle lies inside the plane.
  bool inside(const TilePlane& plane) const {
    return x0 >= 0 && y0 >= 0 && x0 + width <= plane.width() && y0 + height <= plane.height();
  }
  template <typename T>
  PlaneView<T> in(PlaneView<T> plane) const {
    return plane.sub(x0, y0, width, height);
  }
};

// A code-block on the encoder's side.
struct EncodeBlock {
  BlockPlace place;
  entropy::BandOrientation orientation = entropy::BandOrientation::kLL;
  entropy::CodeBlockStyle style;
  int num_bitplanes = 0;  // Mb (E-2) plus roi_shift
  int roi_shift = 0;      // s of H.1: the block's indices are shifted up by it
  double step = 1.0;      // Delta_b, by which the 9/7's coefficients are quantised (Annex E)
  int fraction_bits = 0;  // of |y| / Delta_b, kept below the index (entropy::BlockToEncode)
};

// A block's finer step: Delta_b / factor, where its indices lie below
// 2^magnitude_bits (M_b + F there).
struct FinerStep {
  double factor = 1;
  int magnitude_bits = 0;
};

// A tile on its way through the encoder's stages.
// The next `rows` rows of every component of a tile that is the whole image,
// read top to bottom: component c's into out[c] (rows x its width samples).
using TileFeed = std::function<Status(int64_t rows, int32_t* const* out)>;
// The same rows at their stored width (Component::stored's form:
// stored_bytes(precision) bytes a sample) into out[c].
using TileStoredFeed = std::function<Status(int64_t rows, uint8_t* const* out)>;

struct EncodeTile {
  // kComponentTransform's input: plane c takes component c of `image` from
  // sample (source_x[c], source_y[c]) on, its rect's size.
  const Image* image = nullptr;
  std::vector<int64_t> source_x, source_y;
  // When set, the samples come from here instead (`image` then describes
  // the components without holding them): a streamed encode's rows handed
  // to a runner that keeps the tile whole on a device (TileStages::
  // keeps_whole), which reads them once, so no host copy of the image is
  // made. Read once, they are not there for the CPU runner: a run that
  // fails on the device is an error of the run (kDeviceError), and the
  // caller reads its rows again.
  const TileFeed* feed = nullptr;
  // With feed, optional: the same rows at their stored width, which a
  // device runner takes instead (a quarter of the bytes for 8-bit samples).
  const TileStoredFeed* stored_feed = nullptr;
  bool colour_transform = false;  // G.2 (5/3) or G.3 (9/7) on planes 0..2, of one size

  std::vector<TilePlane> planes;
  std::vector<EncodeBlock> blocks;

  // Per block, kQuantisation's findings (9/7 only: the indices clipped to
  // Mb and the error with nothing sent) and kBlockCoding's result.
  std::vector<quant::QuantizationError> quantisation;
  std::vector<entropy::EncodedCodeBlock> coded;
  // For HT code-blocks (entropy::BlockToEncode): the plane where the cleanup
  // pass stops and whether SigProp and MagRef follow. Rate control codes a
  // tile's blocks at several planes (codec/encoder/tile_encoder.h).
  int ht_cleanup_plane = 0;
  bool ht_refinement = false;
  // When not negative, the blocks' exponent bounds are lowered at this share
  // (entropy::BlockToEncode::ht_lowering_share): coded by the CPU's coder.
  int ht_lowering_share = -1;
  // When not empty, block i's cleanup plane instead of ht_cleanup_plane
  // (a negative plane: the block is not coded, its result left empty), each
  // block above plane 0 with SigProp and MagRef when ht_refinement is set:
  // rate control codes each block at the planes its estimate chose.
  std::vector<int8_t> ht_block_planes;
  // When not empty, Part 1 block i is coded under pass_limits[i]
  // (entropy::BlockToEncode::pass_limit; 0: every pass; negative: not
  // coded, its result left empty): rate control by estimates
  // (codec/encoder/part1_rate.h).
  std::vector<int> pass_limits;
  // When set, kQuantisation run as a stage of its own also estimates each
  // HT block's cleanup at every plane into ht_estimates
  // (entropy/ht/plane_estimate.h).
  bool ht_statistics = false;
  std::vector<entropy::HtPlaneEstimate> ht_estimates;
  // When not empty (with ht_statistics), each block is estimated a second
  // time at a finer step, its indices taken there as
  // quant/finer_indices.h does, into ht_finer_estimates: rate control
  // chooses between the two steps (codec/encoder/ht_rate.h).
  std::vector<FinerStep> ht_finer;
  std::vector<entropy::HtPlaneEstimate> ht_finer_estimates;
  // Whether the passes need their distortion decreases (a rate target):
  // read by the HT coders and the CPU Part 1 coder.
  bool distortions = true;
  // The caller codes the blocks again after the forward stages (HT rate
  // control at other planes): the quantised indices must stay where they
  // lie until the caller is done with the tile, in the host's planes, or
  // on a device where device_rule.h's device_codes_again_problem allows.
  bool codes_blocks_again = false;
  // The tiles of the image: a device that keeps this tile's indices for
  // the caller holds one of its slots until the caller lets it go, which
  // the image's next tile would wait for (device_rule.h).
  int64_t image_tiles = 1;
  // When set, kBlockCoding codes the tile's code-blocks through it (the
  // hybrid coder of the device's coders and the CPU's, made once per
  // encode) instead of a CPU coder made for the call.
  entropy::BlockEncoder* hybrid_coder = nullptr;
  // Set by a runner that took the tile to a device, failed there and ran
  // it on the CPU instead (the same results): what the device said.
  std::string device_failure;
};

// A code-block on the decoder's side.
struct DecodeBlock {
  BlockPlace place;
  // kBlockDecoding's input; a block without passes is all zero.
  entropy::BlockToDecode coded;
  int roi_shift = 0;  // s of H.1
  float step = 1.0f;  // Delta_b (E-3, single precision); 9/7 only
  // In: an error found before decoding, which keeps the block from the
  // block decoder. Out: why it could not be decoded.
  Status status;
  entropy::DecodedCodeBlockInfo info;  // kBlockDecoding's output
};

// A region decode's coefficients of one subband: those of the code-blocks
// decoded there, in a buffer of its own (coefficients.rect in subband
// coordinates, B-15), so that a small region of a large plane touches
// little memory.
struct RegionBand {
  int plane = 0;       // in DecodeTile::planes
  int resolution = 0;  // r of the plane's decomposition (0: the LL band)
  dwt::Band band = dwt::Band::kLL;
  TilePlane coefficients;
};

// A tile on its way through the decoder's stages.
struct DecodeTile {
  std::vector<TilePlane> planes;
  std::vector<DecodeBlock> blocks;
  // A region decode (DecodeOptions::region): per plane, the samples wanted,
  // on the plane's grid (inside its rect; empty when the plane has none).
  // Then the blocks decode into `bands`, not into the planes (which are
  // left unallocated): their places index `bands` and lie in a band's
  // buffer. They need only cover the coefficients the windows depend on
  // (region_dwt.h: plane_region's band windows); the inverse DWT reads
  // those from `bands` and leaves each plane holding its window alone.
  // Empty: the whole planes, the blocks in their packed layout.
  std::vector<dwt::Rect> windows;
  std::vector<RegionBand> bands;

  // The buffer block `place` lies in.
  const TilePlane& block_plane(const BlockPlace& place) const {
    return windows.empty() ? planes[static_cast<size_t>(place.component)]
                         : bands[static_cast<size_t>(place.component)].coefficients;
  }
  // Names block i in a message of the block decoder (the decoder says which
  // component, resolution, place and codestream byte); may be empty.
  std::function<std::string(size_t)> describe_block;
  // When set, code-blocks are decoded through it (the hybrid decoder,
  // CallResources::block_decoder).
  entropy::BlockDecoder* hybrid_decoder = nullptr;

  // kOutput's: the inverse colour transform on planes 0..2 (G.2 or G.3),
  // and where the samples go: origin_x[c], origin_y[c] are the image's
  // top-left on component c's grid (tile_output.h). Image components whose
  // samples are still empty are allocated, zero-filled.
  bool colour_transform = false;
  Image* image = nullptr;
  std::span<const int64_t> origin_x, origin_y;
  // When set, kOutput writes the samples here as a binary PNM's raster
  // (tile_output.h's write_tile_bytes: image.width() x image.height()
  // pixels, the components interleaved, a byte each) and leaves the image's
  // components without samples: `image` only describes them (fits_bytes).
  uint8_t* raster = nullptr;
  // As EncodeTile's: the device's failure where the tile went to the CPU.
  std::string device_failure;
  // With `raster`: the same raster in device memory (device_raster.h). The
  // device runner then stores the tile's samples there, not in `raster`, and
  // sets raster_on_device; a tile the CPU runner decodes leaves it false and
  // its samples in `raster`, for the caller to copy up.
  uint8_t* device_raster = nullptr;
  bool raster_on_device = false;
};

}  // namespace mallat::codec

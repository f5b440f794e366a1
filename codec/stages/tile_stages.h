// The tile pipeline as stages over a tile's buffers (tile_buffers.h), run by
// one interface so that a device runner can take a contiguous range of
// stages and keep the data on the device between them (docs/ARCHITECTURE.md):
//
//   forward: DC shift + colour transform (G.1, G.2, G.3) -> DWT (Annex F)
//            -> quantisation (Annex E, ROI shift H.1) -> block coding (Annex D)
//   inverse: block decoding (Annex D) -> dequantisation (E.1, H.1)
//            -> inverse DWT (Annex F) -> inverse colour transform, DC shift,
//            clamp and the samples' place in the image (G.1, G.2, G.3)
//
// The encoder runs the forward stages whole and the decoder the inverse
// ones whole; tests run them one at a time. Whatever the range, the
// results are those of running each stage in turn.
#pragma once

#include <memory>
#include <string>

#include "codec/stages/tile_buffers.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "dwt/dwt.h"

namespace mallat::codec {

enum class ForwardStage { kComponentTransform, kDwt, kQuantisation, kBlockCoding };
enum class InverseStage { kBlockDecoding, kDequantisation, kInverseDwt, kOutput };

class TileStages {
 public:
  virtual ~TileStages() = default;
  virtual std::string name() const = 0;

  // Runs stages first..last (first <= last) on `tile`. The planes must be
  // allocated, except for a runner that keeps the tile on a device
  // (keeps_whole), which allocates them where it hands the tile to the
  // CPU; the blocks' outputs (quantisation, coded) are sized here.
  virtual Status forward(ForwardStage first, ForwardStage last, EncodeTile& tile) = 0;

  // Whether this runner takes every forward stage of `tile` at once without
  // the host planes (a device runner, device_tile_stages.h): then the
  // caller runs them in one call (a call per stage would send the tile to
  // the CPU runner) and need not allocate the planes. A tile under HT rate
  // control by estimates (ht_statistics) is taken to quantisation in one
  // call, then its block coding a call a round (tile_encoder.h's
  // code_ht_planes), the indices kept by the runner meanwhile.
  virtual bool keeps_whole(const EncodeTile&) const { return false; }

  // The same for the inverse stages: a device runner that decodes `tile`
  // whole, from the blocks' bytes to the image, in one call of every stage.
  virtual bool keeps_whole(const DecodeTile&) const { return false; }

  // Runs stages first..last on `tile`, the planes allocated. A block that
  // fails to decode stops the tile before the later stages: the error is
  // the first failed block's, in block order, named by describe_block.
  virtual Status inverse(InverseStage first, InverseStage last, DecodeTile& tile) = 0;
};

// The CPU runner: sample loops in bands of rows or per component on `pool`,
// the DWT through `dwt` (whichever backend it is, CUDA included), block
// coding through entropy's coders (block_coder.h) on `pool`. When a range
// holds quantisation and block coding, or block decoding and
// dequantisation, it does both to each block on one thread while the
// block is in cache.
std::unique_ptr<TileStages> make_cpu_tile_stages(ThreadPool& pool, dwt::Backend& dwt);

}  // namespace mallat::codec

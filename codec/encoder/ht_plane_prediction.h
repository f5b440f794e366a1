// HT planes predicted while a streamed encode's strips go by. Under rate
// control by estimates (ht_rate.h) a block's planes are chosen only once
// every block's estimate is in, after the last strip; until then the pool
// has threads to spare beside the line DWT (one thread per component). So
// each block is also coded during the strips, at the planes that a slope
// predicted from the blocks seen so far gives it: the slope on their
// estimated hulls at which their bytes, each resolution's scaled up to all
// of that resolution's samples, meet the target. A block quantised before
// the blocks seen hold enough of the image waits, and is coded a few at a
// time in the strips after. Once the planes are chosen, a block keeps a
// predicted coding only where it is exactly what TileEncoder::
// code_ht_planes would code (the same plane, the same round: with SigProp
// and MagRef or the cleanup alone, from the same indices); the others are
// dropped before any is coded again, so rate control sees the candidates
// it sees without prediction and the file is the same byte for byte.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "codec/api/encode.h"
#include "codec/encoder/ht_rate.h"
#include "codec/encoder/rate_control.h"
#include "codec/encoder/thread_pieces.h"
#include "entropy/ebcot/ebcot.h"

namespace mallat::codec {

// One block's codings at its predicted rounds (HtRounds): coded[0] at
// rounds.refined with SigProp and MagRef, coded[1] at rounds.cleanup_only
// with the cleanup alone; it and their bytes in HtPlanePrediction's pieces.
struct PredictedHtBlock {
  struct Coding {
    const uint8_t* data = nullptr;
    uint32_t bytes = 0;
    int8_t zero_bitplanes = 0;
    int8_t num_passes = 0;  // 0: none (the block has nothing at that plane)
    entropy::CodingPass passes[3];
  };
  HtRounds rounds;
  Coding coded[2];
  // The coding at `plane` with or without the refinement passes (as
  // block_to_encode takes them: none at plane 0), null if none was made.
  Coding* find(int8_t plane, bool refinement);
};

class HtPlanePrediction {
 public:
  struct Setup {
    // The byte target that rate control chooses the planes for (the last
    // layer's), and the image's samples (every component, every tile).
    double target_bytes = 0;
    double image_samples = 0;
    double sure_ratio = 1.3;  // ht_sure_ratio
    // Bytes of predicted blocks' records and codings held at most (about:
    // a block in coding when they pass it is kept).
    uint64_t budget = 0;
    // When positive, the slope every block is predicted with instead
    // (tests: the slope rate control will choose predicts every block).
    double fixed_slope = 0;
  };
  explicit HtPlanePrediction(const Setup& setup);

  // The slope for the next blocks, from those added so far; none while
  // they hold less than a fifth of the image's samples. Between add()s,
  // from one thread.
  std::optional<double> slope() const;
  // A block of `samples` at resolution `resolution` in a tile about to be
  // coded: every block of the tile, before any of them is added.
  void expect(int resolution, int64_t samples);
  // A block's estimated hull points: slope and cumulative bytes.
  struct HullPoint {
    double slope = 0;
    uint32_t bytes = 0;
  };
  // A block of `samples` at `resolution` whose estimated hull has the
  // points `hull` has been seen.
  void add(std::span<const HullPoint> hull, int resolution, int64_t samples);
  double sure_ratio() const { return setup_.sure_ratio; }

  // Whether the codings' bytes held have reached the budget. From any
  // thread.
  bool full() const { return held_.load(std::memory_order_relaxed) >= setup_.budget; }
  // A block's record of its predicted rounds and codings (coded[0] at
  // rounds.refined, coded[1] at rounds.cleanup_only: none where that has no
  // passes), it and their bytes copied into this thread's piece
  // (thread_pieces.h), counted against the budget. From any thread; null
  // where a coding has more passes than an HT block's.
  PredictedHtBlock* keep(HtRounds rounds, std::span<const entropy::EncodedCodeBlock> coded);
  // The coding as TileEncoder::code_ht_planes would have made it.
  static entropy::EncodedCodeBlock coded(const PredictedHtBlock::Coding& c);
  // Frees every coding's bytes, once rate control has taken those it wants.
  void release() { pieces_.clear(); }

  // How the predictions fared: blocks predicted, and those whose codings
  // were all kept and all that was needed; codings made, and kept; codings
  // the chosen planes asked for (of every block).
  struct Counts {
    uint64_t blocks = 0;
    uint64_t right = 0;
    uint64_t codings = 0;
    uint64_t kept = 0;
    uint64_t asked = 0;
  };
  void count(const Counts& c);
  Counts counts() const;

 private:
  // The blocks of one resolution: their samples expected and seen, and
  // their hull points' bytes in bins of nearby slopes (the top bits of the
  // slope's IEEE 754 pattern).
  struct Resolution {
    double expected = 0, seen = 0;
    std::vector<uint64_t> bytes;
  };
  Setup setup_;
  std::vector<Resolution> resolutions_;
  // Every resolution's points: the least and greatest slope in each bin.
  std::vector<double> bin_least_, bin_most_;
  size_t lowest_ = SIZE_MAX, highest_ = 0;
  double expected_samples_ = 0, seen_samples_ = 0;
  std::atomic<uint64_t> held_ = 0;
  ThreadPieces pieces_{size_t{4} << 20};
  std::atomic<uint64_t> blocks_ = 0, right_ = 0, codings_ = 0, kept_ = 0, asked_ = 0;
};

// Whether a streamed encode on a pool of `threads` for an image of
// `components` predicts (EncodeOptions::ht_prediction).
bool ht_prediction_wanted(const EncodeOptions& options, int components, int threads);

// The counts into `report` (when given) and, with MALLAT_TIMELINE, as the
// detail of a span "ht_predicted".
void report_predictions(const HtPlanePrediction::Counts& counts, EncodeReport* report);

}  // namespace mallat::codec

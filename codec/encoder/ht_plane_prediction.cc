#include "codec/encoder/ht_plane_prediction.h"

#include <algorithm>
#include <iterator>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <type_traits>
#include <string>

#include "common/timeline.h"

namespace mallat::codec {
namespace {

// The bins of slopes: four bits of the mantissa (ht_rate.h's slope_bin),
// so a bin spans about 4% of slope.
constexpr int kBinShift = 48;
constexpr size_t kBins = size_t{1} << (63 - kBinShift);

// Below this share of the image's samples the blocks seen say too little
// of the slope: the blocks wait, to be coded in the strips after.
constexpr double kFirstShare = 0.2;

}  // namespace

PredictedHtBlock::Coding* PredictedHtBlock::find(int8_t plane, bool refinement) {
  if (plane < 0) return nullptr;
  if (rounds.refined == plane && refinement == (plane > 0)) return &coded[0];
  if (rounds.cleanup_only == plane && !refinement) return &coded[1];
  return nullptr;
}

PredictedHtBlock* HtPlanePrediction::keep(HtRounds rounds, std::span<const entropy::EncodedCodeBlock> coded) {
  static_assert(std::is_trivially_destructible_v<PredictedHtBlock>, "freed with the pieces, never destroyed");
  size_t data = 0;
  for (const entropy::EncodedCodeBlock& c : coded) {
    if (c.passes.size() > std::size(PredictedHtBlock::Coding{}.passes) ||
        c.num_passes != static_cast<int>(c.passes.size()))
      return nullptr;
    data += c.data.size();
  }
  // The record, then its codings' bytes, in one piece of this thread's.
  constexpr size_t kAlign = alignof(PredictedHtBlock);
  ThreadPieces::Piece& piece = pieces_.room(kAlign - 1 + sizeof(PredictedHtBlock) + data);
  const size_t skip = (kAlign - reinterpret_cast<uintptr_t>(piece.at) % kAlign) % kAlign;
  auto* block = new (piece.at + skip) PredictedHtBlock();
  uint8_t* at = piece.at + skip + sizeof(PredictedHtBlock);
  block->rounds = rounds;
  for (size_t r = 0; r < coded.size() && r < std::size(block->coded); ++r) {
    PredictedHtBlock::Coding& out = block->coded[r];
    out.data = at;
    out.bytes = static_cast<uint32_t>(coded[r].data.size());
    out.zero_bitplanes = static_cast<int8_t>(coded[r].zero_bitplanes);
    out.num_passes = static_cast<int8_t>(coded[r].num_passes);
    std::copy(coded[r].passes.begin(), coded[r].passes.end(), out.passes);
    at = std::copy(coded[r].data.begin(), coded[r].data.end(), at);
  }
  const size_t used = static_cast<size_t>(at - piece.at);
  piece.at += used;
  piece.left -= used;
  held_.fetch_add(used, std::memory_order_relaxed);
  return block;
}

entropy::EncodedCodeBlock HtPlanePrediction::coded(const PredictedHtBlock::Coding& c) {
  entropy::EncodedCodeBlock out;
  out.data.assign(c.data, c.data + c.bytes);
  out.zero_bitplanes = c.zero_bitplanes;
  out.num_passes = c.num_passes;
  out.passes.assign(c.passes, c.passes + c.num_passes);
  return out;
}

HtPlanePrediction::HtPlanePrediction(const Setup& setup)
    : setup_(setup),
      bin_least_(kBins, std::numeric_limits<double>::max()),
      bin_most_(kBins, std::numeric_limits<double>::lowest()) {}

void HtPlanePrediction::expect(int resolution, int64_t samples) {
  if (static_cast<size_t>(resolution) >= resolutions_.size()) resolutions_.resize(static_cast<size_t>(resolution) + 1);
  resolutions_[static_cast<size_t>(resolution)].expected += static_cast<double>(samples);
  expected_samples_ += static_cast<double>(samples);
}

std::optional<double> HtPlanePrediction::slope() const {
  if (setup_.fixed_slope > 0) return setup_.fixed_slope;
  if (setup_.image_samples <= 0 || seen_samples_ < kFirstShare * setup_.image_samples || lowest_ > highest_)
    return std::nullopt;
  // Each resolution's bytes scaled to all its samples: the line DWT gives
  // a coarser resolution's rows later, and its blocks cost more bytes per
  // sample. A resolution not seen yet is taken as the coarsest one seen,
  // its bytes per sample doubled for each level it is coarser (about what
  // a photograph's take at one slope).
  std::vector<double> scale(resolutions_.size(), 0.0);
  size_t coarsest = resolutions_.size();
  for (size_t r = 0; r < resolutions_.size(); ++r) {
    if (resolutions_[r].seen > 0) {
      scale[r] = resolutions_[r].expected / resolutions_[r].seen;
      coarsest = std::min(coarsest, r);
    }
  }
  if (coarsest == resolutions_.size()) return std::nullopt;
  for (size_t r = 0; r < resolutions_.size(); ++r) {
    if (resolutions_[r].seen > 0) continue;
    scale[coarsest] += resolutions_[r].expected / resolutions_[coarsest].seen *
                       std::ldexp(1.0, static_cast<int>(coarsest) - static_cast<int>(r));
  }
  // The walk of ht_rate.h's estimated_slope over the bins, steepest first,
  // within the tiles' share of the target; in the bin it ends in, the slope
  // where it would end were the bin's bytes spread evenly over its slopes.
  const double target = setup_.target_bytes * expected_samples_ / setup_.image_samples;
  double bytes = 0;
  double slope = std::numeric_limits<double>::max();
  for (size_t bin = highest_ + 1; bin-- > lowest_;) {
    if (bin_most_[bin] < bin_least_[bin]) continue;  // no point in it
    double in_bin = 0;
    for (size_t r = 0; r < resolutions_.size(); ++r)
      if (scale[r] > 0) in_bin += static_cast<double>(resolutions_[r].bytes[bin]) * scale[r];
    if (in_bin == 0) continue;
    if (bytes + in_bin <= target) {
      bytes += in_bin;
      slope = bin_least_[bin];
      continue;
    }
    const double f = (target - bytes) / in_bin;
    const double least = bin_least_[bin], most = bin_most_[bin];
    return least > 0 ? most * std::pow(least / most, f) : most;
  }
  return slope;
}

void HtPlanePrediction::add(std::span<const HullPoint> hull, int resolution, int64_t samples) {
  if (static_cast<size_t>(resolution) >= resolutions_.size()) resolutions_.resize(static_cast<size_t>(resolution) + 1);
  Resolution& res = resolutions_[static_cast<size_t>(resolution)];
  if (res.bytes.empty()) res.bytes.assign(kBins, 0);
  res.seen += static_cast<double>(samples);
  seen_samples_ += static_cast<double>(samples);
  for (size_t k = 0; k < hull.size(); ++k) {
    const size_t bin = slope_bin(hull[k].slope, kBinShift);
    bin_least_[bin] = std::min(bin_least_[bin], hull[k].slope);
    bin_most_[bin] = std::max(bin_most_[bin], hull[k].slope);
    res.bytes[bin] += hull[k].bytes - (k > 0 ? hull[k - 1].bytes : 0u);
    lowest_ = std::min(lowest_, bin);
    highest_ = std::max(highest_, bin);
  }
}

void HtPlanePrediction::count(const Counts& c) {
  blocks_.fetch_add(c.blocks, std::memory_order_relaxed);
  right_.fetch_add(c.right, std::memory_order_relaxed);
  codings_.fetch_add(c.codings, std::memory_order_relaxed);
  kept_.fetch_add(c.kept, std::memory_order_relaxed);
  asked_.fetch_add(c.asked, std::memory_order_relaxed);
}

HtPlanePrediction::Counts HtPlanePrediction::counts() const {
  return {blocks_.load(), right_.load(), codings_.load(), kept_.load(), asked_.load()};
}

bool ht_prediction_wanted(const EncodeOptions& options, int components, int threads) {
  using Mode = EncodeOptions::HtPrediction;
  if (options.ht_prediction != Mode::kAuto) return options.ht_prediction == Mode::kOn;
  if (const char* env = std::getenv("MALLAT_HT_PREDICT"); env && (*env == '0' || *env == '1')) return *env == '1';
  // The strips keep a thread per component in the DWT and one reading;
  // with few more, the codings that the choice drops would cost time.
  return threads > components + 2;
}

void report_predictions(const HtPlanePrediction::Counts& counts, EncodeReport* report) {
  if (report) {
    report->ht_predicted_blocks = counts.blocks;
    report->ht_predicted_right = counts.right;
  }
  if (!timeline::enabled()) return;
  const timeline::Clock::time_point now = timeline::Clock::now();
  timeline::record("ht_predicted", now, now, timeline::current_tag(),
                   "blocks=" + std::to_string(counts.blocks) + " right=" + std::to_string(counts.right) +
                       " codings=" + std::to_string(counts.codings) + " kept=" + std::to_string(counts.kept) +
                       " asked=" + std::to_string(counts.asked));
}

}  // namespace mallat::codec

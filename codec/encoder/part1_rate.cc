#include "codec/encoder/part1_rate.h"

#include <limits>
#include <vector>

#include "codec/encoder/ht_rate.h"
#include "codec/encoder/pass_limits.h"
#include "codec/encoder/rate_targets.h"
#include "common/timeline.h"
#include "entropy/ebcot/schedule.h"

namespace mallat::codec {

bool part1_rate_by_estimates(const EncodeOptions& o) {
  const bool size_target = o.rate_kind == EncodeOptions::RateKind::kRatio ||
                           o.rate_kind == EncodeOptions::RateKind::kBitsPerPixel ||
                           (o.rate_kind == EncodeOptions::RateKind::kNone && o.max_file_bytes > 0);
  return !o.style.ht && o.part1_pass_limits && size_target && o.max_component_bytes == 0 && o.step_search <= 1;
}

bool part1_limits_pay(double target_bytes, const Image& image) {
  return target_bytes <= kPart1EstimatedMostShare * raw_bytes(image);
}

bool part1_limits_wanted(const EncodeOptions& options, const Image& image, std::span<const LayerTarget> targets,
                         bool device) {
  return !device && part1_rate_by_estimates(options) &&
         sample_count(image) <= static_cast<double>(kPart1EstimatedMostSamples) && !targets.empty() &&
         targets.back().kind == LayerTarget::Kind::kBytes && part1_limits_pay(targets.back().value, image);
}

int part1_pass_limit(int planes, int plane) {
  const int all = entropy::limited_passes(planes, 0);
  if (planes <= 0) return 0;
  const int to_plane = plane >= 0 && plane < planes ? 1 + 3 * (planes - 1 - plane) : 0;
  const int limit = to_plane + kPassLimitMargin;
  return limit >= all ? 0 : limit;
}

Status code_limited_part1(std::span<const std::unique_ptr<TileEncoder>> tiles, const LayerTarget& target,
                          double initial_distortion, ThreadPool& pool) {
  const BlockEstimates all = block_estimates(tiles);
  const std::vector<const entropy::HtPlaneEstimate*>& estimates = all.estimates;
  std::vector<HtPlanePair> chosen;
  {
    const timeline::Span span("part1_choose");  // with MALLAT_TIMELINE
    // Only each block's plane is wanted, never a neighbour.
    chosen = choose_ht_planes(estimates, all.weights, target, initial_distortion,
                              std::numeric_limits<double>::infinity(), &pool);
  }
  size_t first = 0;
  for (const auto& tile : tiles) {
    const size_t n = tile->blocks().size();
    std::vector<int> limits(n);
    for (size_t slot = 0; slot < n; ++slot)
      limits[slot] = part1_pass_limit(estimates[first + slot]->planes, chosen[first + slot].plane);
    MALLAT_RETURN_IF_ERROR(tile->code_limited(limits));
    first += n;
  }
  return Status::Ok();
}

Result<size_t> code_unproved_part1(std::span<const std::unique_ptr<TileEncoder>> tiles,
                                   std::span<const CodeBlockHull> hulls, std::span<const int> chosen,
                                   bool every_cut) {
  const double slope = steepest_left_out(hulls, chosen);
  // The block's error with nothing sent bounds what every pass removes;
  // its sums (the quantiser's, the estimate's) are rounded otherwise than
  // the passes', hence the margin.
  constexpr double kBoundMargin = 1 + 1e-6;
  size_t coded = 0;
  for (const auto& tile : tiles) {
    const std::vector<CodedBlock>& blocks = tile->blocks();
    std::vector<int> limits(blocks.size(), -1);
    bool any = false;
    for (size_t slot = 0; slot < blocks.size(); ++slot) {
      const CodedBlock& b = blocks[slot];
      if (!b.coded.cut) continue;
      if (!every_cut && cut_keeps_choice(b.coded.passes, b.coded.exact_passes, b.weight, b.initial_distortion * kBoundMargin,
                           slope))
        continue;
      limits[slot] = 0;
      any = true;
      ++coded;
    }
    if (any) MALLAT_RETURN_IF_ERROR(tile->code_limited(limits));
  }
  return coded;
}

}  // namespace mallat::codec

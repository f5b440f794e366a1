#include "codec/encoder/ht_rate.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>

#include "common/timeline.h"

namespace mallat::codec {

bool ht_rate_by_estimates(const EncodeOptions& o) {
  const bool target = o.rate_kind != EncodeOptions::RateKind::kNone || o.max_file_bytes > 0;
  // The default codes every plane under a step search for a size target:
  // that mode is for the last fraction of a dB, and takes N encodes' time
  // anyway.
  const bool every_plane =
      o.ht_rate == EncodeOptions::HtRate::kEveryPlane ||
      (o.ht_rate == EncodeOptions::HtRate::kAuto && o.step_search > 1 && o.rate_kind != EncodeOptions::RateKind::kPsnr);
  return o.style.ht && target && o.max_component_bytes == 0 && !every_plane;
}

namespace {

// A block's estimated cleanup points from its top plane down, as passes for
// convex_hull: pass k is the cleanup at plane top - k. In the calling
// thread's list, kept from one block to the next.
// Each estimated byte count is taken `byte_scale` times.
std::span<const entropy::CodingPass> estimated_passes(const entropy::HtPlaneEstimate& e, double byte_scale) {
  thread_local std::vector<entropy::CodingPass> passes;
  passes.clear();
  uint32_t bytes = 0;
  double before = 0;
  for (int p = e.planes - 1; p >= 0; --p) {
    bytes = std::max(bytes + 1, static_cast<uint32_t>(std::lround(e.bytes[p] * byte_scale)));
    const double decrease = e.decrease(p);
    passes.push_back({bytes, true, std::max(0.0, decrease - before)});
    before = std::max(before, decrease);
  }
  return passes;
}

// On the irreversible path, a block whose estimated hull slopes on both
// sides of its chosen plane lie further than this factor from the global
// slope is coded at that plane alone. The reversible path's integers at
// low planes fit the byte model less closely: there every block gets its
// neighbour where that is coarser.
constexpr double kSureRatio = 1.3;

struct EstimatedPoint {
  double slope;
  uint32_t block;
  uint32_t index;
};

bool before(const EstimatedPoint& x, const EstimatedPoint& y) {
  if (x.slope != y.slope) return x.slope > y.slope;
  return x.block != y.block ? x.block < y.block : x.index < y.index;
}

// The hulls' points that `take` accepts (by slope), in slope order.
template <class Take>
std::vector<EstimatedPoint> sorted_points(std::span<const CodeBlockHull> hulls, Take take) {
  std::vector<EstimatedPoint> points;
  for (size_t b = 0; b < hulls.size(); ++b)
    for (size_t k = 0; k < hulls[b].slope.size(); ++k)
      if (take(hulls[b].slope[k]))
        points.push_back({hulls[b].slope[k], static_cast<uint32_t>(b), static_cast<uint32_t>(k)});
  std::sort(points.begin(), points.end(), before);
  return points;
}

// Runs fn(first, last) over [0, n) in up to `per_thread` pieces for each
// of the pool's threads, each of 512 blocks at least.
void in_pieces(ThreadPool* pool, size_t n, size_t per_thread, const std::function<void(size_t, size_t)>& fn) {
  const size_t pieces = pool ? std::min<size_t>(n / 512, static_cast<size_t>(pool->size()) * per_thread) : 1;
  if (pieces <= 1) {
    fn(0, n);
    return;
  }
  pool->parallel_for(static_cast<int64_t>(pieces), [&](int64_t p) {
    fn(n * static_cast<size_t>(p) / pieces, n * static_cast<size_t>(p + 1) / pieces);
  });
}

// The walk of the points in slope order from `from` on (bytes and
// distortion so far given): the last slope within the target, `slope` if
// none is.
double walk_points(std::span<const EstimatedPoint> points, std::span<const CodeBlockHull> hulls,
                   const LayerTarget& target, double bytes, double distortion, double slope) {
  for (const EstimatedPoint& pt : points) {
    const CodeBlockHull& h = hulls[pt.block];
    const double more = h.bytes[pt.index] - (pt.index > 0 ? h.bytes[pt.index - 1] : 0.0);
    const double less = h.gain[pt.index] - (pt.index > 0 ? h.gain[pt.index - 1] : 0.0);
    if (target.kind == LayerTarget::Kind::kBytes && bytes + more > target.value) break;
    if (target.kind == LayerTarget::Kind::kDistortion && distortion <= target.value) break;
    bytes += more;
    distortion -= less;
    slope = pt.slope;
  }
  return slope;
}

// A slope's bin: the top bits of its IEEE 754 pattern, which order
// positive doubles as their values do (0 and anything not positive in the
// lowest bin).
constexpr int kSlopeBinShift = 50;
constexpr size_t kSlopeBins = size_t{1} << (63 - kSlopeBinShift);

size_t slope_bin(double slope) {
  if (!(slope > 0)) return 0;
  uint64_t bits;
  std::memcpy(&bits, &slope, sizeof bits);
  return static_cast<size_t>(bits >> kSlopeBinShift);
}

// One block's planes for the global `slope`, from its estimated hull (the
// block's top plane `planes` - 1).
HtPlanePair plane_pair(const CodeBlockHull& h, int planes, double slope, double sure_ratio) {
  HtPlanePair chosen;
  if (h.slope.empty() || h.slope[0] < slope / 2) return chosen;
  const int top = planes - 1;
  // The hull points the slope takes are a prefix; the last one's plane.
  size_t k = 0;
  while (k + 1 < h.slope.size() && h.slope[k + 1] >= slope) ++k;
  if (h.slope[k] < slope) {
    // Near the slope but not taken: its first point alone.
    chosen.plane = static_cast<int8_t>(top - (h.passes[0] - 1));
    return chosen;
  }
  const int plane = top - (h.passes[k] - 1);
  chosen.plane = static_cast<int8_t>(plane);
  // The neighbour on the side whose slope lies nearer the global one
  // (by ratio): where the estimate is more likely to be on the wrong side.
  // On the finer side the plane's own SigProp and MagRef (for the plane
  // below it) give the points toward it, and the finer cleanup seldom
  // lies on the block's hull above them: that side gets no cleanup.
  const bool has_finer = plane > 0;
  const bool has_coarser = plane < top;
  const double above = h.slope[k];
  const double below = k + 1 < h.slope.size() ? h.slope[k + 1] : 0.0;
  const double to_coarser = above / slope;
  const double to_finer = below > 0 ? slope / below : std::numeric_limits<double>::infinity();
  // Both boundaries far from the slope: the estimate's errors (a few per
  // cent of bytes) would not move the block's plane, and its refinement
  // passes would lie below the slope too: its cleanup alone. Plane 0 has
  // no refinement passes below it: without plane 1 coded with them, the
  // block would have one point.
  if (std::min(to_coarser, to_finer) > sure_ratio && plane > 0) {
    chosen.refinement = false;
    return chosen;
  }
  const bool coarser = !has_finer || (has_coarser && to_coarser < to_finer);
  if (coarser && has_coarser) chosen.neighbour = static_cast<int8_t>(plane + 1);
  return chosen;
}

}  // namespace

double estimated_slope_by_sorting(std::span<const CodeBlockHull> hulls, const LayerTarget& target,
                                  double initial_distortion) {
  const std::vector<EstimatedPoint> points = sorted_points(hulls, [](double) { return true; });
  return walk_points(points, hulls, target, 0, initial_distortion, std::numeric_limits<double>::max());
}

double estimated_slope(std::span<const CodeBlockHull> hulls, const LayerTarget& target, double initial_distortion,
                       ThreadPool* pool) {
  // The distortion walk sums non-integer gains, whose rounding depends on
  // their order: it takes every point in order.
  if (target.kind != LayerTarget::Kind::kBytes) return estimated_slope_by_sorting(hulls, target, initial_distortion);
  // Bytes are whole numbers, summed exactly in any order: each bin's bytes
  // (and smallest slope) per piece of blocks, at once.
  struct Bins {
    std::vector<uint64_t> bytes = std::vector<uint64_t>(kSlopeBins);
    std::vector<double> least = std::vector<double>(kSlopeBins, std::numeric_limits<double>::max());
  };
  std::mutex pieces_mutex;
  std::vector<Bins> filled;
  in_pieces(pool, hulls.size(), 1, [&](size_t first, size_t last) {
    Bins bins;
    for (size_t b = first; b < last; ++b) {
      const CodeBlockHull& h = hulls[b];
      for (size_t k = 0; k < h.slope.size(); ++k) {
        const size_t bin = slope_bin(h.slope[k]);
        bins.bytes[bin] += h.bytes[k] - (k > 0 ? h.bytes[k - 1] : 0u);
        bins.least[bin] = std::min(bins.least[bin], h.slope[k]);
      }
    }
    const std::lock_guard<std::mutex> lock(pieces_mutex);
    filled.push_back(std::move(bins));
  });
  // Whole bins from the steepest down while they fit; the one that does
  // not is walked point by point, in the order the sort gives.
  double bytes = 0;
  double slope = std::numeric_limits<double>::max();
  for (size_t bin = kSlopeBins; bin-- > 0;) {
    uint64_t in_bin = 0;
    double least = std::numeric_limits<double>::max();
    for (const Bins& bins : filled) {
      in_bin += bins.bytes[bin];
      least = std::min(least, bins.least[bin]);
    }
    if (in_bin == 0) continue;
    if (bytes + static_cast<double>(in_bin) <= target.value) {
      bytes += static_cast<double>(in_bin);
      slope = least;
      continue;
    }
    const std::vector<EstimatedPoint> points =
        sorted_points(hulls, [bin](double slope) { return slope_bin(slope) == bin; });
    return walk_points(points, hulls, target, bytes, initial_distortion, slope);
  }
  return slope;
}

namespace {

// Each block's estimated hull, on `pool`.
std::vector<CodeBlockHull> estimated_hulls(std::span<const entropy::HtPlaneEstimate* const> estimates,
                                           std::span<const double> weights, ThreadPool* pool, double byte_scale) {
  std::vector<CodeBlockHull> hulls(estimates.size());
  in_pieces(pool, estimates.size(), 4, [&](size_t first, size_t last) {
    for (size_t b = first; b < last; ++b)
      hulls[b] = convex_hull(estimated_passes(*estimates[b], byte_scale), weights[b]);
  });
  return hulls;
}

}  // namespace

double estimated_distortion_left(std::span<const entropy::HtPlaneEstimate* const> estimates,
                                 std::span<const double> weights, const LayerTarget& target,
                                 double initial_distortion, ThreadPool* pool) {
  std::vector<CodeBlockHull> hulls = estimated_hulls(estimates, weights, pool, 1.0);
  const double slope = estimated_slope(hulls, target, initial_distortion, pool);
  // The hull points the slope takes are a prefix; the gains cumulative.
  std::vector<double> decrease(hulls.size(), 0.0);
  in_pieces(pool, hulls.size(), 4, [&](size_t first, size_t last) {
    for (size_t b = first; b < last; ++b) {
      const CodeBlockHull& h = hulls[b];
      for (size_t k = 0; k < h.slope.size() && h.slope[k] >= slope; ++k) decrease[b] = h.gain[k];
    }
  });
  release_hulls(hulls, pool);
  double left = initial_distortion;
  for (const double d : decrease) left -= d;
  return left;
}

std::vector<HtPlanePair> choose_ht_planes(std::span<const entropy::HtPlaneEstimate* const> estimates,
                                          std::span<const double> weights, const LayerTarget& target,
                                          double initial_distortion, double sure_ratio, ThreadPool* pool,
                                          double byte_scale) {
  std::vector<CodeBlockHull> hulls = estimated_hulls(estimates, weights, pool, byte_scale);
  const double slope = estimated_slope(hulls, target, initial_distortion, pool);
  std::vector<HtPlanePair> chosen(estimates.size());
  in_pieces(pool, estimates.size(), 4, [&](size_t first, size_t last) {
    for (size_t b = first; b < last; ++b) chosen[b] = plane_pair(hulls[b], estimates[b]->planes, slope, sure_ratio);
  });
  release_hulls(hulls, pool);
  return chosen;
}

namespace {

// Whether a block already has a candidate coded at `plane`.
bool has_candidate(const CodedBlock& block, int plane) {
  return block.ht && std::find(block.ht->planes.begin(), block.ht->planes.end(), plane) != block.ht->planes.end();
}

// Codes each block's pair (over all tiles in order): the pair's coarser
// plane with SigProp and MagRef, which fill the gap between the two
// cleanups; the finer one's cleanup alone. With `only_new`, a plane the
// block has a candidate at already is not coded again.
Status code_pairs(std::span<const std::unique_ptr<TileEncoder>> tiles, std::span<const HtPlanePair> chosen,
                  bool only_new) {
  size_t first = 0;
  for (const auto& tile : tiles) {
    const std::vector<CodedBlock>& blocks = tile->blocks();
    const size_t n = blocks.size();
    std::vector<int8_t> coarser(n), finer(n);
    bool any_coarser = false, any_finer = false;
    for (size_t slot = 0; slot < n; ++slot) {
      const HtPlanePair& c = chosen[first + slot];
      coarser[slot] = c.refinement ? std::max(c.plane, c.neighbour) : int8_t{-1};
      finer[slot] = !c.refinement ? c.plane : c.neighbour >= 0 ? std::min(c.plane, c.neighbour) : int8_t{-1};
      if (only_new) {
        if (coarser[slot] >= 0 && has_candidate(blocks[slot], coarser[slot])) coarser[slot] = -1;
        if (finer[slot] >= 0 && has_candidate(blocks[slot], finer[slot])) finer[slot] = -1;
      }
      any_coarser = any_coarser || coarser[slot] >= 0;
      any_finer = any_finer || finer[slot] >= 0;
    }
    if (!only_new || any_coarser || any_finer)
      MALLAT_RETURN_IF_ERROR(tile->code_ht_planes(coarser, any_finer ? std::span<const int8_t>(finer)
                                                                     : std::span<const int8_t>()));
    first += n;
  }
  return Status::Ok();
}

// The bytes the blocks' chosen cleanups were coded in over the bytes
// estimated for them (each rounded as the hulls take it): whole numbers,
// summed exactly in any order.
double coded_over_estimated(std::span<const std::unique_ptr<TileEncoder>> tiles,
                            std::span<const entropy::HtPlaneEstimate* const> estimates,
                            std::span<const HtPlanePair> chosen) {
  uint64_t coded = 0, estimated = 0;
  size_t first = 0;
  for (const auto& tile : tiles) {
    const std::vector<CodedBlock>& blocks = tile->blocks();
    for (size_t slot = 0; slot < blocks.size(); ++slot) {
      const int plane = chosen[first + slot].plane;
      const CodedBlock::HtTruncation* ht = blocks[slot].ht.get();
      if (plane < 0 || !ht) continue;
      for (size_t c = 0; c < ht->planes.size(); ++c) {
        // The candidate's first pass is its cleanup (15444-15 Annex B).
        if (ht->planes[c] != plane || ht->candidates[c].passes.empty()) continue;
        coded += ht->candidates[c].passes[0].cumulative_length;
        estimated += static_cast<uint64_t>(std::lround(estimates[first + slot]->bytes[plane]));
        break;
      }
    }
    first += blocks.size();
  }
  return estimated > 0 ? static_cast<double>(coded) / static_cast<double>(estimated) : 1.0;
}

// Where the chosen cleanups came out more than this much larger than
// estimated, the planes are chosen again on estimates scaled by the
// measured ratio, and the planes that brings are coded too. The byte model,
// fitted on photographs, undercounts an image whose significant quads are
// sparse (a smooth one coded at fine planes: about 11 bits a significant
// quad and 0.45 an insignificant one in MEL and VLC symbols, against 6.5
// and 0.05 among photographs' denser significance), by 5 to 20%; the
// cleanups chosen then overshoot a size target, and PCRD must drop blocks
// coded at one plane alone, whole. Photographs land within 2%, where a
// block's pair and refinement passes give PCRD room enough.
constexpr double kUnderestimated = 1.02;

}  // namespace

BlockEstimates block_estimates(std::span<const std::unique_ptr<TileEncoder>> tiles) {
  static const entropy::HtPlaneEstimate kNone{};
  BlockEstimates out;
  for (const auto& tile : tiles) {
    const std::span<const entropy::HtPlaneEstimate> e = tile->ht_estimates();
    const std::vector<CodedBlock>& blocks = tile->blocks();
    for (size_t slot = 0; slot < blocks.size(); ++slot) {
      // A tile coded at every plane (a device runner kept it whole) has no
      // estimates: nothing more to code there.
      out.estimates.push_back(slot < e.size() ? &e[slot] : &kNone);
      out.weights.push_back(blocks[slot].weight);
    }
  }
  return out;
}

Status code_chosen_ht_planes(std::span<const std::unique_ptr<TileEncoder>> tiles, const LayerTarget& target,
                             double initial_distortion, ThreadPool& pool) {
  const BlockEstimates all = block_estimates(tiles);
  const std::vector<const entropy::HtPlaneEstimate*>& estimates = all.estimates;
  const std::vector<double>& weights = all.weights;
  const bool reversible = !tiles.empty() && tiles[0]->main_header().cod.component.reversible;
  const double sure_ratio = reversible ? std::numeric_limits<double>::infinity() : kSureRatio;
  std::optional<timeline::Span> choosing(std::in_place, "ht_choose");  // with MALLAT_TIMELINE
  const std::vector<HtPlanePair> chosen =
      choose_ht_planes(estimates, weights, target, initial_distortion, sure_ratio, &pool);
  choosing.reset();
  MALLAT_RETURN_IF_ERROR(code_pairs(tiles, chosen, false));
  if (target.kind != LayerTarget::Kind::kBytes) return Status::Ok();
  const double ratio = coded_over_estimated(tiles, estimates, chosen);
  if (ratio <= kUnderestimated) return Status::Ok();
  const std::vector<HtPlanePair> again =
      choose_ht_planes(estimates, weights, target, initial_distortion, sure_ratio, &pool, ratio);
  return code_pairs(tiles, again, true);
}

Result<size_t> code_further_ht_planes(std::span<const std::unique_ptr<TileEncoder>> tiles,
                                      std::span<const int> chosen) {
  size_t first = 0, coded = 0;
  for (const auto& tile : tiles) {
    const std::vector<CodedBlock>& blocks = tile->blocks();
    std::vector<int8_t> planes(blocks.size(), -1);
    bool any = false;
    for (size_t slot = 0; slot < blocks.size(); ++slot) {
      const CodedBlock::HtTruncation* ht = blocks[slot].ht.get();
      const int point = chosen[first + slot];
      if (!ht || ht->planes.empty() || point == 0) continue;
      const int finest = *std::min_element(ht->planes.begin(), ht->planes.end());
      const HtChoice& c = ht->points[static_cast<size_t>(point) - 1];
      const auto candidate = static_cast<size_t>(c.candidate);
      if (finest == 0 || ht->planes[candidate] != finest || c.passes != ht->candidates[candidate].num_passes) continue;
      planes[slot] = static_cast<int8_t>(finest - 1);
      any = true;
      ++coded;
    }
    if (any) MALLAT_RETURN_IF_ERROR(tile->code_ht_planes(planes));
    first += blocks.size();
  }
  return coded;
}

}  // namespace mallat::codec

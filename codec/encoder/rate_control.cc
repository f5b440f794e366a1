#include "codec/encoder/rate_control.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <utility>

#include "codec/encoder/prefix_search.h"
#include "common/sort_on_pool.h"
#include "common/thread_pool.h"
#include "common/timeline.h"

namespace mallat::codec {

CodeBlockHull convex_hull(std::span<const entropy::CodingPass> passes, double weight) {
  // Stack of hull points, the origin (no pass) first: the calling thread's,
  // kept from one block to the next (a hull is listed for every block).
  thread_local std::vector<int> n;
  thread_local std::vector<double> r, g;
  n.assign(1, 0);
  r.assign(1, 0.0);
  g.assign(1, 0.0);
  double gain = 0;
  for (size_t p = 0; p < passes.size(); ++p) {
    gain += passes[p].distortion_decrease * weight;
    const double bytes = passes[p].cumulative_length;
    if (gain <= g.back()) continue;   // more bytes (or as many) for nothing
    // Pop points that the new one dominates (no more bytes) or that lie on
    // or below the chord from the point before them to the new one.
    while (n.size() > 1) {
      const size_t t = n.size() - 1;
      if (bytes <= r[t]) {
        n.pop_back(), r.pop_back(), g.pop_back();
        continue;
      }
      const double to_top = (g[t] - g[t - 1]) / (r[t] - r[t - 1]);
      const double to_new = (gain - g[t - 1]) / (bytes - r[t - 1]);
      if (to_new < to_top) break;
      n.pop_back(), r.pop_back(), g.pop_back();
    }
    n.push_back(static_cast<int>(p) + 1);
    r.push_back(bytes);
    g.push_back(gain);
  }
  CodeBlockHull h;
  h.passes.reserve(n.size() - 1);
  h.bytes.reserve(n.size() - 1);
  h.gain.reserve(n.size() - 1);
  h.slope.reserve(n.size() - 1);
  for (size_t k = 1; k < n.size(); ++k) {
    h.passes.push_back(n[k]);
    h.bytes.push_back(static_cast<uint32_t>(r[k]));
    h.gain.push_back(g[k]);
    const double dr = r[k] - r[k - 1];
    // A first point of zero bytes is free: it comes before anything else.
    h.slope.push_back(dr > 0 ? (g[k] - g[k - 1]) / dr : std::numeric_limits<double>::max());
  }
  return h;
}

void release_hulls(std::vector<CodeBlockHull>& hulls, ThreadPool* pool) {
  constexpr int64_t kHullsAtOnce = 4096;
  if (pool && static_cast<int64_t>(hulls.size()) > kHullsAtOnce)
    pool->parallel_for_in_pieces(static_cast<int64_t>(hulls.size()), kHullsAtOnce, [&](int64_t b) { hulls[b] = {}; });
  std::vector<CodeBlockHull>().swap(hulls);
}

namespace {

// Every hull point of every block, best slope first; ties in block order so
// the choice never depends on anything but the data.
struct HullPoint {
  double slope;
  uint32_t block;
  uint32_t index;
};

// (A strict total order: no two points are equivalent, so the order on a
// pool is the one-thread sort's.)
std::vector<HullPoint> sorted_points(std::span<const CodeBlockHull> hulls, ThreadPool* pool) {
  size_t count = 0;
  for (const CodeBlockHull& h : hulls) count += h.slope.size();
  std::vector<HullPoint> points;
  points.reserve(count);
  for (size_t b = 0; b < hulls.size(); ++b)
    for (size_t k = 0; k < hulls[b].slope.size(); ++k)
      points.push_back({hulls[b].slope[k], static_cast<uint32_t>(b), static_cast<uint32_t>(k)});
  sort_on_pool(
      points,
      [](const HullPoint& a, const HullPoint& b) {
        if (a.slope != b.slope) return a.slope > b.slope;
        if (a.block != b.block) return a.block < b.block;
        return a.index < b.index;
      },
      pool);
  return points;
}

// Passes per block when the first `count` points are taken. Within a block
// the slopes strictly decrease, so its taken points are a prefix of its hull.
std::vector<int> passes_for(std::span<const CodeBlockHull> hulls, std::span<const HullPoint> points,
                            size_t count) {
  std::vector<int> passes(hulls.size(), 0);
  for (size_t i = 0; i < count; ++i) {
    const HullPoint& p = points[i];
    passes[p.block] = std::max(passes[p.block], hulls[p.block].passes[p.index]);
  }
  return passes;
}

// passes_for by block on a pool: where each hull point lies in the sorted
// list, so that block b's points among the first `count` are those of its
// hull whose place is below count (a prefix, its places increasing).
class PointPlaces {
 public:
  PointPlaces(std::span<const CodeBlockHull> hulls, std::span<const HullPoint> points, ThreadPool& pool)
      : hulls_(hulls), first_(hulls.size() + 1, 0), place_(points.size()), pool_(pool) {
    for (size_t b = 0; b < hulls.size(); ++b) first_[b + 1] = first_[b] + hulls[b].slope.size();
    in_pieces(points.size(), [&](size_t i) {
      place_[first_[points[i].block] + points[i].index] = static_cast<uint32_t>(i);
    });
  }

  std::vector<int> passes_for(size_t count) const {
    std::vector<int> passes(hulls_.size(), 0);
    in_pieces(hulls_.size(), [&](size_t b) {
      const auto begin = place_.begin() + static_cast<std::ptrdiff_t>(first_[b]);
      const auto end = place_.begin() + static_cast<std::ptrdiff_t>(first_[b + 1]);
      const auto taken = static_cast<size_t>(std::lower_bound(begin, end, count) - begin);
      if (taken > 0) passes[b] = hulls_[b].passes[taken - 1];
    });
    return passes;
  }

 private:
  void in_pieces(size_t n, const std::function<void(size_t)>& fn) const {
    constexpr int64_t kAtOnce = 8192;
    pool_.parallel_for_in_pieces(static_cast<int64_t>(n), kAtOnce, [&](int64_t i) { fn(static_cast<size_t>(i)); });
  }

  std::span<const CodeBlockHull> hulls_;
  std::vector<size_t> first_;    // block b's points are place_[first_[b], first_[b + 1])
  std::vector<uint32_t> place_;  // by block, then hull index: the place in the sorted list
  ThreadPool& pool_;
};

// body[k]: the code-blocks' bytes when the first k points are taken, each
// block at least at its floor (the previous layer's passes, a hull point of
// it), for k = 0..points.size().
std::vector<double> prefix_body_bytes(std::span<const CodeBlockHull> hulls, std::span<const HullPoint> points,
                                      const std::vector<int>& floor_passes) {
  std::vector<double> now(hulls.size(), 0.0);
  double total = 0;
  for (size_t b = 0; b < hulls.size(); ++b) {
    const CodeBlockHull& h = hulls[b];
    const auto at = std::lower_bound(h.passes.begin(), h.passes.end(), floor_passes[b]);
    if (floor_passes[b] > 0 && at != h.passes.end()) now[b] = h.bytes[static_cast<size_t>(at - h.passes.begin())];
    total += now[b];
  }
  std::vector<double> body(points.size() + 1);
  body[0] = total;
  for (size_t i = 0; i < points.size(); ++i) {
    const CodeBlockHull& h = hulls[points[i].block];
    const size_t k = points[i].index;
    if (h.passes[k] > floor_passes[points[i].block]) {
      total += h.bytes[k] - now[points[i].block];
      now[points[i].block] = h.bytes[k];
    }
    body[i + 1] = total;
  }
  return body;
}

// After the longest prefix that fits, the bytes left may still hold later
// points of other blocks (the next point in slope order was too big, smaller
// ones after it are not): take them greedily in slope order, each block's
// points in hull order, keeping a byte of slack per point for the header
// bits it adds; then keep the most of them (in that order) whose real file
// size fits.
// Blocks of capped components go no further than `limit`.
template <class Fits>
Result<std::vector<int>> fill(std::span<const CodeBlockHull> hulls, std::span<const HullPoint> points,
                              size_t from, std::vector<int> passes, double budget,
                              const std::vector<int>& limit, const Fits& fits) {
  if (!(budget > 0) || !std::isfinite(budget)) return passes;
  std::vector<char> blocked(hulls.size(), 0);
  std::vector<const HullPoint*> extra;
  for (size_t i = from; i < points.size() && budget >= 2; ++i) {
    const HullPoint& p = points[i];
    if (blocked[p.block]) continue;
    const CodeBlockHull& h = hulls[p.block];
    if (h.passes[p.index] <= passes[p.block]) continue;   // held already
    if (h.passes[p.index] > limit[p.block]) {
      blocked[p.block] = 1;
      continue;
    }
    const double bytes = h.bytes[p.index] - (p.index > 0 ? h.bytes[p.index - 1] : 0.0) + 1.0;
    if (bytes > budget) {
      blocked[p.block] = 1;
      continue;
    }
    budget -= bytes;
    extra.push_back(&p);
  }
  // The most additions (in the order taken) whose file fits.
  auto with = [&](size_t keep) {
    std::vector<int> trial = passes;
    for (size_t i = 0; i < keep; ++i) trial[extra[i]->block] = hulls[extra[i]->block].passes[extra[i]->index];
    return trial;
  };
  size_t lo = 0, hi = extra.size() + 1;   // lo fits, hi does not
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    MALLAT_ASSIGN_OR_RETURN(const bool fit, fits(with(mid)));
    (fit ? lo : hi) = mid;
  }
  if (lo > 0) return with(lo);
  return passes;
}

}  // namespace

Result<LayerPasses> allocate_layers(std::span<const CodeBlockHull> hulls,
                                    std::span<const LayerTarget> targets,
                                    double initial_distortion, const SizeOfLayers& size_of) {
  auto bytes_of = [&](const LayerPasses& layers) -> Result<LayerBytes> {
    MALLAT_ASSIGN_OR_RETURN(const uint64_t file, size_of(layers));
    return LayerBytes{file, {}};
  };
  return allocate_layers(hulls, targets, initial_distortion, bytes_of, ComponentCaps{});
}

Result<LayerPasses> allocate_layers(std::span<const CodeBlockHull> hulls,
                                    std::span<const LayerTarget> targets, double initial_distortion,
                                    const BytesOfLayers& bytes_of, const ComponentCaps& caps, ThreadPool* pool) {
  const bool capped = !caps.max_bytes.empty();
  if (capped && caps.block_component.size() != hulls.size())
    return invalid_argument("component caps: one component per code-block is needed");
  std::optional<timeline::Span> sorting(std::in_place, "pcrd_sort");  // with MALLAT_TIMELINE
  const std::vector<HullPoint> points = sorted_points(hulls, pool);
  // With a pool, each block's taken points found by block (the plain walk
  // over the points, passes_for, its reference).
  std::optional<PointPlaces> places;
  if (pool && pool->size() > 1) places.emplace(hulls, points, *pool);
  // Distortion removed by the first k points, for every k (distortion
  // targets only).
  const bool distortion = std::any_of(targets.begin(), targets.end(), [](const LayerTarget& t) {
    return t.kind == LayerTarget::Kind::kDistortion;
  });
  std::vector<double> removed(distortion ? points.size() + 1 : 0, 0.0);
  for (size_t i = 0; distortion && i < points.size(); ++i) {
    const CodeBlockHull& h = hulls[points[i].block];
    const size_t k = points[i].index;
    removed[i + 1] = removed[i] + h.gain[k] - (k > 0 ? h.gain[k - 1] : 0.0);
  }
  sorting.reset();
  LayerPasses layers;
  size_t taken = 0;          // prefix of `points` in the layers so far
  std::vector<int> floor_passes(hulls.size(), 0);   // what the previous layer holds
  // Passes a block of a component that reached its cap may not pass.
  std::vector<int> limit(hulls.size(), std::numeric_limits<int>::max());
  auto with_floor = [&](size_t k) {
    std::vector<int> passes = places ? places->passes_for(k) : passes_for(hulls, points, k);
    for (size_t b = 0; b < passes.size(); ++b) passes[b] = std::max(std::min(passes[b], limit[b]), floor_passes[b]);
    return passes;
  };
  // The layers so far and one more, sized; the last few answers kept
  // while the layers so far stay (a search sizes its answer, and the fill
  // after it asks again).
  std::vector<std::pair<std::vector<int>, LayerBytes>> recent;
  auto bytes_with = [&](std::vector<int> passes) -> Result<LayerBytes> {
    for (const auto& [known, bytes] : recent)
      if (known == passes) return bytes;
    layers.push_back(std::move(passes));
    Result<LayerBytes> bytes = bytes_of(layers);
    if (bytes.ok()) {
      if (recent.size() == 4) recent.erase(recent.begin());
      recent.emplace_back(layers.back(), *bytes);
    }
    layers.pop_back();
    return bytes;
  };
  auto over_cap = [&](const LayerBytes& b, size_t c) {
    return caps.max_bytes[c] > 0 && c < b.component.size() && static_cast<double>(b.component[c]) > caps.max_bytes[c];
  };
  for (const LayerTarget& given : targets) {
    recent.clear();  // sized with the layers before this one
    LayerTarget target = given;
    if (capped && target.kind == LayerTarget::Kind::kEverything)
      target = {LayerTarget::Kind::kBytes, std::numeric_limits<double>::infinity()};
    if (capped && target.kind == LayerTarget::Kind::kDistortion)
      return invalid_argument("distortion targets (-q) cannot be combined with byte caps per component");
    auto fits = [&](const std::vector<int>& passes) -> Result<bool> {
      MALLAT_ASSIGN_OR_RETURN(const LayerBytes b, bytes_with(passes));
      if (static_cast<double>(b.file) > target.value) return false;
      for (size_t c = 0; c < caps.max_bytes.size(); ++c)
        if (over_cap(b, c)) return false;
      return true;
    };
    std::vector<int> chosen;
    switch (target.kind) {
      case LayerTarget::Kind::kEverything:
        taken = points.size();
        chosen = with_floor(taken);
        break;
      case LayerTarget::Kind::kDistortion: {
        // The fewest points whose remaining distortion is within the target.
        size_t count = points.size();
        for (size_t k = taken; k <= points.size(); ++k) {
          if (initial_distortion - removed[k] <= target.value) {
            count = k;
            break;
          }
        }
        taken = std::max(taken, count);
        chosen = with_floor(taken);
        break;
      }
      case LayerTarget::Kind::kBytes: {
        // The longest prefix of points whose file fits (the size grows with
        // the points taken: each adds body bytes, header bits grow with them).
        // Where a component's cap stops the prefix before the file's target
        // does, that component keeps what it has and the search goes on
        // without it (once per component at most).
        size_t lo = taken, hi = points.size();
        for (size_t round = 0; round <= caps.max_bytes.size(); ++round) {
          MALLAT_ASSIGN_OR_RETURN(const LayerBytes all, bytes_with(with_floor(hi)));
          bool all_fit = static_cast<double>(all.file) <= target.value;
          for (size_t c = 0; c < caps.max_bytes.size(); ++c) all_fit = all_fit && !over_cap(all, c);
          if (all_fit) {
            lo = hi;
            break;
          }
          if (!capped) {
            // Without caps the file's size alone decides: few sizings
            // (prefix_search.h).
            std::optional<timeline::Span> summing(std::in_place, "pcrd_prefix");  // with MALLAT_TIMELINE
            const std::vector<double> body = prefix_body_bytes(hulls, points, floor_passes);
            summing.reset();
            MALLAT_ASSIGN_OR_RETURN(
                lo, longest_fitting_prefix(lo, hi, all.file, body, target.value, [&](size_t k) -> Result<uint64_t> {
                  MALLAT_ASSIGN_OR_RETURN(const LayerBytes b, bytes_with(with_floor(k)));
                  return b.file;
                }));
            break;
          }
          while (hi - lo > 1) {
            const size_t mid = lo + (hi - lo) / 2;
            MALLAT_ASSIGN_OR_RETURN(const bool fit, fits(with_floor(mid)));
            (fit ? lo : hi) = mid;
          }
          if (!capped) break;
          MALLAT_ASSIGN_OR_RETURN(const LayerBytes next, bytes_with(with_floor(hi)));
          if (static_cast<double>(next.file) > target.value) break;   // the file's target binds
          const std::vector<int> at = with_floor(lo);
          bool froze = false;
          for (size_t b = 0; b < hulls.size(); ++b) {
            if (over_cap(next, static_cast<size_t>(caps.block_component[b]))) {
              limit[b] = at[b];
              froze = true;
            }
          }
          if (!froze) break;
          hi = points.size();
        }
        taken = lo;
        chosen = with_floor(lo);
        // Each fill leaves bytes its slack did not need: fill again while
        // that adds anything (a few rounds at most).
        for (int round = 0; round < 4; ++round) {
          MALLAT_ASSIGN_OR_RETURN(const LayerBytes now, bytes_with(chosen));
          std::vector<int> before = chosen;
          MALLAT_ASSIGN_OR_RETURN(chosen, fill(hulls, points, taken, std::move(chosen),
                                               target.value - static_cast<double>(now.file), limit, fits));
          if (chosen == before) break;
        }
        break;
      }
    }
    floor_passes = chosen;
    layers.push_back(std::move(chosen));
  }
  return layers;
}

}  // namespace mallat::codec

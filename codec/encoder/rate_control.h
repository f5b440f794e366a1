// Post-compression rate-distortion optimisation (PCRD-opt, the rate
// allocation of J.14 / Taubman's EBCOT): each code-block may be truncated
// after any coding pass; the allocator keeps, per block, the truncation
// points on the convex hull of its (bytes, distortion decrease) curve, and
// for each quality layer picks one global slope threshold lambda: every
// block contributes the passes whose hull slope is at least lambda. The
// layer's target is a file size (found by search over the sorted slopes, with
// the real packet and header bytes counted by a callback) or a distortion.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "common/status.h"
#include "codec/tier2/packet_writer.h"  // LayerPasses
#include "entropy/ebcot/ebcot.h"

namespace mallat {
class ThreadPool;
}  // namespace mallat

namespace mallat::codec {

// The truncation points of one code-block on its convex hull: taking hull
// point k means sending passes[k] passes, bytes[k] bytes, and removing
// gain[k] of distortion (image units). Slopes gain/bytes strictly decrease.
struct CodeBlockHull {
  std::vector<int> passes;
  std::vector<uint32_t> bytes;
  std::vector<double> gain;
  std::vector<double> slope;   // (gain[k] - gain[k-1]) / (bytes[k] - bytes[k-1])
};

// The hull of a block whose pass p removes passes[p].distortion_decrease *
// weight of distortion (weight: Delta_b^2 x the subband's synthesis energy x
// the component's colour-transform weight).
CodeBlockHull convex_hull(std::span<const entropy::CodingPass> passes, double weight);

// Empties `hulls`, their memory freed on `pool`'s threads in pieces (null:
// on this one): a list of one hull per block holds millions of small
// vectors.
void release_hulls(std::vector<CodeBlockHull>& hulls, ThreadPool* pool);

// What one layer must reach.
struct LayerTarget {
  enum class Kind {
    kBytes,       // the file, up to and including this layer, at most `value` bytes
    kDistortion,  // the estimated distortion (image units, summed) at most `value`
    kEverything,  // every pass (lossless, or the last layer of full quality)
  };
  Kind kind = Kind::kEverything;
  double value = 0;
};

// Bytes of the file when it holds layers 0..layers.size()-1 as given.
using SizeOfLayers = std::function<Result<uint64_t>(const LayerPasses& layers)>;

// Bytes of the file, and of each component's part of it (empty when no
// component is capped), when it holds layers 0..layers.size()-1 as given.
struct LayerBytes {
  uint64_t file = 0;
  std::vector<uint64_t> component;
};
using BytesOfLayers = std::function<Result<LayerBytes>(const LayerPasses& layers)>;

// Byte caps per component over the whole file (digital cinema's limit per
// colour component): each hull's component, and each component's cap
// (0: none). A capped component stops where its next pass would pass the
// cap while the others go on: its own slope threshold, higher than theirs.
struct ComponentCaps {
  std::vector<int> block_component;
  std::vector<double> max_bytes;
};

// Picks each layer's passes. `initial_distortion` is the distortion with no
// pass sent (for kDistortion targets). Layers are filled in order, each
// holding at least what the previous one holds; a target that cannot be met
// (smaller than the previous layer, or than the headers alone) gives the
// layer no new passes.
Result<LayerPasses> allocate_layers(std::span<const CodeBlockHull> hulls,
                                    std::span<const LayerTarget> targets,
                                    double initial_distortion, const SizeOfLayers& size_of);

// The same with component caps, which hold in every layer: a kEverything
// layer becomes every pass the caps allow; kDistortion layers cannot be
// combined with caps (an error). The hull points are sorted on `pool`
// (when given), to the same order.
Result<LayerPasses> allocate_layers(std::span<const CodeBlockHull> hulls,
                                    std::span<const LayerTarget> targets, double initial_distortion,
                                    const BytesOfLayers& bytes_of, const ComponentCaps& caps,
                                    ThreadPool* pool = nullptr);

}  // namespace mallat::codec

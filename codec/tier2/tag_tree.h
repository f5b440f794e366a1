// B.10.2: tag trees. A tag tree codes a two-dimensional array of
// non-negative integers (the leaves) through a quad-tree of minima: each node
// holds the minimum of its up-to-four children, and the root the minimum of
// all. Coding a leaf "up to a threshold t" says whether the leaf's value is
// below t and, if it is, the value; the state (what each node is already
// known to be at least) persists between calls, so that a leaf coded again
// with a higher threshold (a later layer) costs only the new information.
#pragma once

#include <cstdint>
#include <vector>

#include "codec/tier2/bit_io.h"
#include "common/inline_vector.h"
#include "common/status.h"

namespace mallat::codec {

class TagTree {
 public:
  // An empty tree (no leaves).
  TagTree() = default;
  // width x height leaves (either may be 0). Refuses more than max_leaves.
  static Result<TagTree> create(int width, int height, int64_t max_leaves = int64_t{1} << 24);

  int width() const { return width_; }
  int height() const { return height_; }

  // Back to the initial state: all values unknown (kUnknown, which an
  // encoder codes as "never below any threshold"), nothing coded.
  void reset();

  // Encoder: set leaf (x, y) to value (>= 0; kUnknown for "never"). Set the
  // leaves before the first encode after a reset; the minima of the inner
  // nodes are computed on that first encode.
  void set_value(int x, int y, int value);

  // Encoder (B.10.2): write the bits that tell a decoder whether leaf
  // (x, y) < threshold, and its value if it is.
  void encode(PacketBitWriter& out, int x, int y, int threshold);

  // Decoder: read those bits. Returns true when the leaf's value is known to
  // be below threshold (then value(x, y) is it). Bit-reader overruns are
  // the caller's to check.
  bool decode(PacketBitReader& in, int x, int y, int threshold);

  // Decoder: the decoded value of a leaf (kUnknown while not yet known to be
  // below any threshold tried). Encoder: the value set.
  int value(int x, int y) const { return nodes_[leaf_index(x, y)].value; }

  static constexpr int kUnknown = INT32_MAX;

 private:
  struct Node {
    int value = kUnknown;  // encoder: the minimum; decoder: the value once known
    int low = 0;           // the value is known to be >= low
    bool known = false;    // encoder: the decoder has been told the value
    int parent = -1;
  };
  int leaf_index(int x, int y) const { return y * width_ + x; }
  // The node of level l (0: the leaves) above leaf (x, y): each level halves
  // the one below, rounding up.
  int node_at(int l, int x, int y) const { return level_start_[l] + (y >> l) * level_width_[l] + (x >> l); }
  void update_minima();

  int width_ = 0, height_ = 0;
  std::vector<Node> nodes_;   // level 0 (the leaves) first, the root last
  // Each level's first node in nodes_ and its width; in place up to 8
  // levels (128 x 128 leaves), a precinct's trees being many and small.
  InlineVector<int, 8> level_start_, level_width_;
  int leaves_ = 0;
  bool minima_stale_ = false;
  int highest_threshold_ = 0;  // encoder: the highest threshold coded to since the reset
};

}  // namespace mallat::codec

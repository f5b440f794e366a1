#include "codec/tier2/tag_tree.h"

#include <algorithm>
#include <string>

namespace mallat::codec {

Result<TagTree> TagTree::create(int width, int height, int64_t max_leaves) {
  if (width < 0 || height < 0) {
    return invalid_argument("tag tree: negative size " + std::to_string(width) + "x" +
                            std::to_string(height));
  }
  if (int64_t{width} * height > max_leaves) {
    return resource_limit("tag tree: " + std::to_string(width) + "x" + std::to_string(height) +
                          " leaves exceed the limit of " + std::to_string(max_leaves));
  }
  TagTree t;
  t.width_ = width;
  t.height_ = height;
  if (width == 0 || height == 0) return t;
  // Levels: w x h, ceil(w/2) x ceil(h/2), ..., 1 x 1; each level's first
  // node and width, then the nodes, each pointing at its parent.
  size_t total = 0;
  for (int w = width, h = height;; w = (w + 1) / 2, h = (h + 1) / 2) {
    t.level_start_.push_back(static_cast<int>(total));
    t.level_width_.push_back(w);
    total += static_cast<size_t>(w) * static_cast<size_t>(h);
    if (w == 1 && h == 1) break;
  }
  t.nodes_.resize(total);
  for (size_t l = 0; l + 1 < t.level_start_.size(); ++l) {
    const int lw = t.level_width_[l];
    const int lh = (t.level_start_[l + 1] - t.level_start_[l]) / lw;
    const auto start = static_cast<size_t>(t.level_start_[l]);
    const auto next = static_cast<size_t>(t.level_start_[l + 1]);
    const int pw = t.level_width_[l + 1];
    for (int y = 0; y < lh; ++y) {
      for (int x = 0; x < lw; ++x) {
        t.nodes_[start + static_cast<size_t>(y) * lw + x].parent =
            static_cast<int>(next + static_cast<size_t>(y / 2) * pw + x / 2);
      }
    }
  }
  t.leaves_ = width * height;
  return t;
}

void TagTree::reset() {
  for (Node& n : nodes_) {
    n.value = kUnknown;
    n.low = 0;
    n.known = false;
  }
  minima_stale_ = false;
  highest_threshold_ = 0;
}

void TagTree::set_value(int x, int y, int value) {
  nodes_[leaf_index(x, y)].value = value;
  minima_stale_ = true;
}

// Children precede their parent in nodes_, so one pass in order suffices.
void TagTree::update_minima() {
  for (size_t i = static_cast<size_t>(leaves_); i < nodes_.size(); ++i) nodes_[i].value = kUnknown;
  for (const Node& n : nodes_) {
    if (n.parent >= 0) nodes_[n.parent].value = std::min(nodes_[n.parent].value, n.value);
  }
  minima_stale_ = false;
}

void TagTree::encode(PacketBitWriter& out, int x, int y, int threshold) {
  if (minima_stale_) update_minima();
  // B.10.2: a node is done for this threshold once the decoder knows its
  // value, or, with no earlier threshold above this one, once its low has
  // reached the threshold. The ancestors of a done node are done, and the
  // walk from the root through done nodes writes nothing and changes
  // nothing (each leaves `low` at its own low), so the walk starts below
  // the deepest done node on the leaf's path: mostly its parent, when a
  // sibling was coded before.
  const int levels = static_cast<int>(level_start_.size());
  const bool rising = threshold >= highest_threshold_;
  highest_threshold_ = std::max(highest_threshold_, threshold);
  int start = levels - 1, low = 0;
  for (int l = 0; l < levels; ++l) {
    const Node& node = nodes_[node_at(l, x, y)];
    if (node.known || (rising && node.low >= threshold)) {
      start = l - 1;
      low = node.low;
      break;
    }
  }
  for (int l = start; l >= 0; --l) {  // root first
    Node& node = nodes_[node_at(l, x, y)];
    if (low > node.low) {
      node.low = low;
    } else {
      low = node.low;
    }
    while (low < threshold) {
      if (low >= node.value) {
        if (!node.known) {
          out.put_bit(1);
          node.known = true;
        }
        break;
      }
      out.put_bit(0);
      ++low;
    }
    node.low = low;
  }
}

bool TagTree::decode(PacketBitReader& in, int x, int y, int threshold) {
  // B.10.2: a node's bits are read only once its parent's value is known,
  // so the ancestors of a node whose value is known are known too, and the
  // walk from the root through them reads nothing and changes nothing (each
  // leaves `low` at its value, which its low already is). The walk starts
  // below the deepest such node on the leaf's path: mostly its parent, when
  // a sibling was read before.
  const int levels = static_cast<int>(level_start_.size());
  int start = levels - 1, low = 0;
  for (int l = 0; l < levels; ++l) {
    const Node& node = nodes_[node_at(l, x, y)];
    if (node.value != kUnknown) {
      start = l - 1;
      low = node.value;
      break;
    }
  }
  for (int l = start; l >= 0; --l) {  // root first
    Node& node = nodes_[node_at(l, x, y)];
    if (low > node.low) {
      node.low = low;
    } else {
      low = node.low;
    }
    while (low < threshold && low < node.value) {
      if (in.get_bit()) {
        node.value = low;
      } else {
        ++low;
      }
      if (in.overrun()) return false;
    }
    node.low = low;
  }
  return nodes_[leaf_index(x, y)].value < threshold;
}

}  // namespace mallat::codec

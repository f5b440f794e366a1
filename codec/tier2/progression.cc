#include "codec/tier2/progression.h"

#include <algorithm>
#include <array>
#include <string>

namespace mallat::codec {
namespace {

// Where each (component, resolution) starts in the sent-packet bitmap.
struct PacketIndex {
  std::vector<std::vector<int64_t>> offset;  // [c][r], in precincts
  int64_t precincts = 0;
  int layers = 0;

  explicit PacketIndex(const TileLayout& layout, int layers_) : layers(layers_) {
    offset.resize(layout.components.size());
    for (size_t c = 0; c < layout.components.size(); ++c) {
      for (const Resolution& res : layout.components[c].resolutions) {
        offset[c].push_back(precincts);
        precincts += res.precinct_count();
      }
    }
  }
  size_t operator()(const PacketId& id) const {
    return static_cast<size_t>(
        (offset[static_cast<size_t>(id.component)][static_cast<size_t>(id.resolution)] +
         id.precinct) * layers + id.layer);
  }
};

struct Volume {
  int layer_end, r0, r1, c0, c1;
  ProgressionOrder order;
};

class Emitter {
 public:
  Emitter(const TileLayout& layout, const PacketIndex& index, std::vector<PacketId>& out)
      : layout_(layout), index_(index), sent_(static_cast<size_t>(index.precincts * index.layers)),
        out_(out) {}

  void emit(const PacketId& id) {
    const size_t k = index_(id);
    if (sent_[k]) return;
    sent_[k] = true;
    out_.push_back(id);
  }

  // Number of precincts of (c, r), 0 when the component lacks r.
  int precincts(int c, int r) const {
    const TileComponent& tc = layout_.components[static_cast<size_t>(c)];
    if (r > tc.levels) return 0;
    return tc.resolutions[static_cast<size_t>(r)].precinct_count();
  }

  void run(const Volume& v) {
    switch (v.order) {
      case ProgressionOrder::kLRCP:  // B.12.1.1
        for (int l = 0; l < v.layer_end; ++l)
          for (int r = v.r0; r < v.r1; ++r)
            for (int c = v.c0; c < v.c1; ++c)
              for (int p = 0; p < precincts(c, r); ++p) emit({l, r, c, p});
        break;
      case ProgressionOrder::kRLCP:  // B.12.1.2
        for (int r = v.r0; r < v.r1; ++r)
          for (int l = 0; l < v.layer_end; ++l)
            for (int c = v.c0; c < v.c1; ++c)
              for (int p = 0; p < precincts(c, r); ++p) emit({l, r, c, p});
        break;
      default:
        run_position_driven(v);
        break;
    }
  }

 private:
  // B.12.1.3-B.12.1.5: the standard walks the reference grid (y, then x) and
  // at each point emits the precinct of each (c, r) whose boundary lies
  // there. Each precinct is met exactly once, at precinct_position(), so the
  // walk is a sort of the precincts by their positions, with the loops
  // outside and inside the position loops as the other keys.
  void run_position_driven(const Volume& v) {
    struct Entry {
      std::array<int64_t, 4> key;
      int r, c, p;
    };
    std::vector<Entry> entries;
    for (int c = v.c0; c < v.c1; ++c) {
      for (int r = v.r0; r < v.r1; ++r) {
        for (int p = 0; p < precincts(c, r); ++p) {
          const GridPoint g = precinct_position(layout_, c, r, p);
          std::array<int64_t, 4> key{};
          switch (v.order) {
            case ProgressionOrder::kRPCL: key = {r, g.y, g.x, c}; break;
            case ProgressionOrder::kPCRL: key = {g.y, g.x, c, r}; break;
            default: key = {c, g.y, g.x, r}; break;  // kCPRL
          }
          entries.push_back({key, r, c, p});
        }
      }
    }
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.key < b.key; });
    for (const Entry& e : entries) {
      for (int l = 0; l < v.layer_end; ++l) emit({l, e.r, e.c, e.p});
    }
  }

  const TileLayout& layout_;
  const PacketIndex& index_;
  std::vector<bool> sent_;
  std::vector<PacketId>& out_;
};

}  // namespace

GridPoint precinct_position(const TileLayout& layout, int c, int r, int p) {
  const TileComponent& tc = layout.components[static_cast<size_t>(c)];
  const Resolution& res = tc.resolutions[static_cast<size_t>(r)];
  const int64_t gx = dwt::floor_div_pow2(res.rect.x0, res.ppx) + p % res.precincts_wide;
  const int64_t gy = dwt::floor_div_pow2(res.rect.y0, res.ppy) + p / res.precincts_wide;
  const int n = tc.levels - r;
  return GridPoint{std::max(layout.rect.x0, (gx * tc.dx) << (res.ppx + n)),
                   std::max(layout.rect.y0, (gy * tc.dy) << (res.ppy + n))};
}

Result<std::vector<PacketId>> packet_order(const TileLayout& layout, int layers,
                                           ProgressionOrder order,
                                           std::span<const ProgressionChange> changes,
                                           const ProgressionOptions& options) {
  if (layers < 1 || layers > 65535) {
    return invalid_argument("progression: " + std::to_string(layers) + " layers");
  }
  const PacketIndex index(layout, layers);
  if (index.precincts > options.max_packets / layers) {
    return resource_limit("tile " + std::to_string(layout.index) + ": " +
                          std::to_string(index.precincts) + " precincts x " +
                          std::to_string(layers) + " layers exceed the limit of " +
                          std::to_string(options.max_packets) + " packets");
  }
  const int ncomp = static_cast<int>(layout.components.size());
  const int nres = layout.max_resolutions();
  std::vector<Volume> volumes;
  for (const ProgressionChange& ch : changes) {
    if (ch.resolution_start < 0 || ch.component_start < 0 || ch.layer_end < 0) {
      return invalid_argument("progression change with a negative bound");
    }
    volumes.push_back(Volume{std::min(ch.layer_end, layers), ch.resolution_start,
                             std::min(ch.resolution_end, nres), ch.component_start,
                             std::min(ch.component_end, ncomp), ch.order});
  }
  const Volume whole{layers, 0, nres, 0, ncomp, order};
  if (volumes.empty() || options.complete_with_default_order) volumes.push_back(whole);

  std::vector<PacketId> out;
  out.reserve(static_cast<size_t>(index.precincts * layers));
  Emitter emitter(layout, index, out);
  for (const Volume& v : volumes) emitter.run(v);
  return out;
}

}  // namespace mallat::codec

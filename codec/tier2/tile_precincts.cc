#include "codec/tier2/tile_precincts.h"

#include "common/thread_pool.h"

namespace mallat::codec {

Result<TilePrecincts> TilePrecincts::create(const TileLayout& layout, std::span<const ComponentCoding> coding,
                                            ThreadPool* pool) {
  TilePrecincts t;
  const auto& comps = layout.components;
  if (coding.size() < comps.size()) return invalid_argument("a code-block style is needed for every component");
  t.precinct_base_.resize(comps.size());
  // Each list at its size at once: a tile may have many thousands of
  // code-blocks, and a list grown by doubling touches its memory twice.
  size_t precincts = 0, blocks = 0;
  for (const TileComponent& tc : comps)
    for (const Resolution& res : tc.resolutions)
      for (const Precinct& p : res.precincts) {
        ++precincts;
        for (const PrecinctBand& b : p.bands) blocks += b.blocks.size();
      }
  t.precincts_.resize(precincts);
  t.places_.reserve(blocks);
  std::vector<CodeBlockPlace> named(precincts);  // each precinct's component, resolution and index
  size_t base = 0;
  for (size_t c = 0; c < comps.size(); ++c) {
    t.styles_.push_back(coding[c].style);
    for (size_t r = 0; r < comps[c].resolutions.size(); ++r) {
      const Resolution& res = comps[c].resolutions[r];
      t.precinct_base_[c].push_back(base);
      for (size_t p = 0; p < res.precincts.size(); ++p) {
        const size_t i = base + p;
        t.precincts_[i].first_slot = t.places_.size();
        named[i] = {static_cast<int>(c), static_cast<int>(r), static_cast<int>(p), 0, 0};
        for (size_t b = 0; b < res.precincts[p].bands.size(); ++b) {
          const size_t n = res.precincts[p].bands[b].blocks.size();
          for (size_t k = 0; k < n; ++k) {
            t.places_.push_back({static_cast<int>(c), static_cast<int>(r), static_cast<int>(p),
                                 static_cast<int>(b), static_cast<int>(k)});
          }
        }
      }
      base += res.precincts.size();
    }
  }
  // Each precinct's coder (its tag trees and block states: most of what
  // this makes), on the pool where given; the first error in precinct
  // order either way.
  auto make_coder = [&](int64_t i) -> Status {
    const CodeBlockPlace& at = named[static_cast<size_t>(i)];
    const Precinct& precinct = comps[at.component].resolutions[at.resolution].precincts[at.precinct];
    MALLAT_ASSIGN_OR_RETURN(t.precincts_[static_cast<size_t>(i)].coder,
                            PrecinctPacketCoder::create(code_block_grids(precinct), coding[at.component].style));
    return Status::Ok();
  };
  if (pool && pool->size() > 1) {
    MALLAT_RETURN_IF_ERROR(pool->parallel_for_status(static_cast<int64_t>(precincts), make_coder));
  } else {
    for (size_t i = 0; i < precincts; ++i) MALLAT_RETURN_IF_ERROR(make_coder(static_cast<int64_t>(i)));
  }
  return t;
}

void TilePrecincts::reset() {
  for (PrecinctState& p : precincts_) p.coder.reset();
}

TilePrecincts TilePrecincts::copy_of(const TilePrecincts& other, ThreadPool* pool) {
  if (pool == nullptr || pool->size() <= 1) return other;
  TilePrecincts t;
  t.precinct_base_ = other.precinct_base_;
  t.styles_ = other.styles_;
  t.precincts_.resize(other.precincts_.size());
  // Item 0 the slots' places, then one precinct each.
  pool->parallel_for(static_cast<int64_t>(other.precincts_.size()) + 1, [&](int64_t i) {
    if (i == 0) {
      t.places_ = other.places_;
    } else {
      t.precincts_[static_cast<size_t>(i) - 1] = other.precincts_[static_cast<size_t>(i) - 1];
    }
  });
  return t;
}

const PrecinctBand& precinct_band_at(const TileLayout& layout, const CodeBlockPlace& place) {
  return layout.components[place.component].resolutions[place.resolution].precincts[place.precinct].bands[place.band];
}

const CodeBlock& code_block_at(const TileLayout& layout, const CodeBlockPlace& place) {
  return precinct_band_at(layout, place).blocks[place.index];
}

}  // namespace mallat::codec

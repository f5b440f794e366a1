// One tile's code-blocks and the packet-header state of its precincts: the
// one layout that the encoder's packet writer and the decoder's packet
// reader share (packet_writer.h, packet_reader.h).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "codec/codestream/params.h"
#include "codec/tier2/packet_header.h"
#include "codec/tier2/tile_geometry.h"
#include "common/status.h"

namespace mallat {
class ThreadPool;
}  // namespace mallat

namespace mallat::codec {

// Where a code-block sits in its tile (B.6, B.7): the precinct is its raster
// index in Resolution::precincts, the band its index in Precinct::bands
// (packet order, B.10) and `index` its raster index within that band.
struct CodeBlockPlace {
  int component = 0, resolution = 0, precinct = 0, band = 0, index = 0;
};

// The code-blocks of a tile are numbered (their slot) in the order packets
// name them (B.10): by component, resolution and precinct, then by subband in
// Precinct::bands order and in raster order within each subband. So the
// code-blocks of precinct (c, r, p) are the slots first_slot(c, r, p) onwards,
// as many as coder(c, r, p).code_blocks(), in the order of its packet headers.
class TilePrecincts {
 public:
  // coding: per component (COD, or the component's COC); its code-block
  // style says where codeword segments end (B.10.7). `pool`, where given,
  // makes the precincts' coders at once (the same coders).
  static Result<TilePrecincts> create(const TileLayout& layout, std::span<const ComponentCoding> coding,
                                      ThreadPool* pool = nullptr);
  // A copy of `other`, its precincts' coders (tag trees, block states)
  // copied on `pool` at once (null: the plain copy, on this thread).
  static TilePrecincts copy_of(const TilePrecincts& other, ThreadPool* pool);

  // Every precinct's coder back to its state before the first packet (as
  // create made it); the slots stay where they are.
  void reset();

  size_t code_blocks() const { return places_.size(); }
  // The precincts, numbered 0.. by component, resolution and precinct.
  size_t precincts() const { return precincts_.size(); }
  size_t precinct_index(int c, int r, int p) const { return at(c, r, p); }
  const CodeBlockPlace& place(size_t slot) const { return places_[slot]; }
  size_t first_slot(int c, int r, int p) const { return precincts_[at(c, r, p)].first_slot; }
  PrecinctPacketCoder& coder(int c, int r, int p) { return precincts_[at(c, r, p)].coder; }
  const PrecinctPacketCoder& coder(int c, int r, int p) const { return precincts_[at(c, r, p)].coder; }
  CodeBlockStyle style(int c) const { return styles_[static_cast<size_t>(c)]; }

 private:
  struct PrecinctState {
    size_t first_slot = 0;
    PrecinctPacketCoder coder;
  };
  size_t at(int c, int r, int p) const {
    return precinct_base_[static_cast<size_t>(c)][static_cast<size_t>(r)] + static_cast<size_t>(p);
  }

  std::vector<std::vector<size_t>> precinct_base_;  // [c][r]: index of precinct 0 in precincts_
  std::vector<PrecinctState> precincts_;
  std::vector<CodeBlockPlace> places_;
  std::vector<CodeBlockStyle> styles_;
};

// The subband part and the code-block that a place names in `layout`.
const PrecinctBand& precinct_band_at(const TileLayout& layout, const CodeBlockPlace& place);
const CodeBlock& code_block_at(const TileLayout& layout, const CodeBlockPlace& place);

}  // namespace mallat::codec

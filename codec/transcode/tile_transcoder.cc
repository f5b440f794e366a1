#include "codec/transcode/tile_transcoder.h"

#include <algorithm>
#include <memory>

#include "codec/codestream/effective_params.h"
#include "codec/stages/block_coding.h"
#include "codec/tier2/tile_geometry.h"
#include "codec/tier2/tile_packets.h"
#include "entropy/block_coder.h"
#include "quant/step_size.h"

namespace mallat::codec {

CodeBlockStyle transcoded_style(CodeBlockStyle source, BlockCoder target) {
  if (target == BlockCoder::kPart1) {
    source.ht = false;
    source.ht_mixed = false;
    return source;
  }
  CodeBlockStyle ht;
  ht.ht = true;
  ht.vertical_causal = source.vertical_causal;
  return ht;
}

namespace {

// Where a block's passes end, in terms both coders share. Annex D and
// 15444-15 B.3 both count a block's passes from its first cleanup pass, at
// plane Mb - 1 - P (P its zero bit-planes, B.10.5): pass k is a cleanup
// pass when k % 3 == 0, significance propagation (SigProp) when 1,
// magnitude refinement (MagRef) when 2, and lies on plane
// Mb - 1 - P - floor((k + 2) / 3) (HT counts its placeholder passes alike).
// So the last of n passes is pass 3P + n - 1 of a block with no zero
// planes: a position that does not depend on the P a coder chose.
int end_position(int zero_bitplanes, int passes) { return 3 * zero_bitplanes + passes - 1; }
int position_plane(int num_bitplanes, int position) { return num_bitplanes - 1 - (position + 2) / 3; }
bool ends_in_cleanup(int position) { return position % 3 == 0; }

// One code-block with passes: what its packets gave and what it decoded to.
struct Block {
  size_t slot = 0;
  entropy::BlockToDecode coded;
  std::vector<int32_t> samples;
  int64_t width = 0, height = 0;
  // Per layer: the position (end_position) of its passes so far; -1 before
  // the layer that first includes it.
  std::vector<int> positions;
  PlaneView<int32_t> view() { return {samples.data(), width, height, width}; }
};

class TileTranscoder {
 public:
  TileTranscoder(const Codestream& cs, const Tile& tile, BlockCoder target, ThreadPool& pool)
      : cs_(cs), tile_(tile), target_(target), pool_(pool) {}

  Result<TranscodedTile> run(std::span<const uint8_t> stream, bool packed_headers,
                             std::vector<std::string>& warnings) {
    MALLAT_ASSIGN_OR_RETURN(params_, tile_coding_parameters(cs_.main, &tile_.overrides, tile_.index));
    MALLAT_ASSIGN_OR_RETURN(layout_, build_tile_layout(cs_.main.siz, tile_.index, params_.components));
    std::vector<std::string> read;
    MALLAT_RETURN_IF_ERROR(read_tile_packets(
        cs_.main, tile_, stream, params_, layout_, params_.style.layers,
        [](size_t n, size_t pos) {
          return "packet " + std::to_string(n) + " at byte " + std::to_string(pos) + " of the tile's packet data";
        },
        packets_, read));
    for (const std::string& w : read) warnings.push_back("tile " + std::to_string(tile_.index) + ": " + w);
    MALLAT_RETURN_IF_ERROR(gather_blocks());
    MALLAT_RETURN_IF_ERROR(decode_blocks());
    MALLAT_RETURN_IF_ERROR(encode_blocks());
    return write(packed_headers);
  }

 private:
  std::string describe(size_t slot) const {
    const CodeBlockPlace& at = packets_.precincts.place(slot);
    const CodeBlock& cb = code_block_at(layout_, at);
    return "tile " + std::to_string(tile_.index) + " component " + std::to_string(at.component) + " resolution " +
           std::to_string(at.resolution) + " code-block at (" + std::to_string(cb.rect.x0) + "," +
           std::to_string(cb.rect.y0) + ")";
  }

  // The blocks with passes, with their Mb, orientation and source style,
  // as the decoder describes them (tile_decoder.cc decode_one).
  Status gather_blocks() {
    const int layers = params_.style.layers;
    for (size_t slot = 0; slot < packets_.segments.size(); ++slot) {
      const CodeBlockSegments& s = packets_.segments[slot];
      if (s.passes == 0) continue;
      const CodeBlockPlace& at = packets_.precincts.place(slot);
      const TileComponent& tc = layout_.components[at.component];
      const PrecinctBand& pb = precinct_band_at(layout_, at);
      const Quantization& q = params_.quantization[at.component];
      auto step = q.subband_step(tc.levels, quant::subband_step_index(at.resolution, static_cast<int>(pb.band)));
      if (!step.ok()) return step.status().with_context(describe(slot));
      // E-2, and H.1: a region of interest adds its shift to the bit-planes.
      const int mb = quant::magnitude_bitplanes(q.guard_bits, step->exponent) + params_.roi_shift[at.component];
      if (mb < 1 || mb > entropy::kMaxBitPlanes) {
        return unsupported(describe(slot) + ": its subband needs " + std::to_string(mb) + " bit-planes; 1.." +
                           std::to_string(entropy::kMaxBitPlanes) + " are supported");
      }
      Block b;
      b.slot = slot;
      b.coded.pieces = s.pieces;
      b.coded.segment_lengths = s.segment_lengths;
      b.coded.num_passes = s.passes;
      b.coded.zero_bitplanes = s.zero_bitplanes;
      b.coded.num_bitplanes = mb;
      b.coded.orientation = static_cast<entropy::BandOrientation>(pb.band);
      // 15444-15 B.3: Tier-2 found which coder the block needs.
      b.coded.style = params_.components[at.component].style;
      b.coded.style.ht = s.ht;
      b.coded.style.ht_mixed = false;
      const CodeBlock& cb = pb.blocks[at.index];
      b.width = cb.rect.width();
      b.height = cb.rect.height();
      b.samples.assign(static_cast<size_t>(b.width * b.height), 0);
      // A cleanup pass at plane 0 is as far as any block goes; passes a
      // source claims beyond it carry nothing.
      const int last = 3 * (mb - 1);
      for (int l = 0; l < layers; ++l) {
        const size_t i = static_cast<size_t>(l);
        const int passes = i < s.passes_by_layer.size() ? s.passes_by_layer[i] : s.passes;
        b.positions.push_back(passes > 0 ? std::min(end_position(s.zero_bitplanes, passes), last) : -1);
      }
      blocks_.push_back(std::move(b));
    }
    return Status::Ok();
  }

  Status decode_blocks() {
    std::vector<entropy::BlockToDecode> batch;
    std::vector<entropy::DecodedBlock> out;
    for (Block& b : blocks_) {
      batch.push_back(b.coded);
      out.push_back({b.view(), {}, Status::Ok()});
    }
    MALLAT_RETURN_IF_ERROR(decode_by_coder(batch, out, pool_));
    for (size_t i = 0; i < out.size(); ++i) {
      if (!out[i].status.ok()) return out[i].status.with_context(describe(blocks_[i].slot));
    }
    return Status::Ok();
  }

  // The indices coded again. HT: one HT set, its cleanup pass at the plane
  // where the source's passes end. A source that ended inside a plane
  // (after SigProp or MagRef of plane p) has no HT cleanup there: the
  // cleanup goes at p + 1 and SigProp (and MagRef, when the source had it)
  // of p follow, coding the partial values as they are; Part 1 from HT ends
  // at the same pass of plane p. Both coders' SigProp visit the
  // insignificant neighbours of significant samples, so the same samples
  // get their bit of plane p; where the scans differ a sample's bit of
  // plane p would be lost or sent as 0, moving its reconstruction point
  // (E.1.1.2). On the HT conformance streams every such block decoded the
  // same both ways (tests/codec/transcode_test.cc). Only lossy streams end
  // inside a plane: a lossless one ends with the cleanup pass of plane 0.
  Status encode_blocks() {
    std::vector<entropy::BlockToEncode> batch;
    for (Block& b : blocks_) {
      const CodeBlockPlace& at = packets_.precincts.place(b.slot);
      entropy::BlockToEncode e;
      e.coefficients = b.view();
      e.orientation = b.coded.orientation;
      e.num_bitplanes = b.coded.num_bitplanes;
      e.style = transcoded_style(params_.components[at.component].style, target_);
      const int end = b.positions.back();
      if (target_ == BlockCoder::kHt) {
        const int plane = position_plane(e.num_bitplanes, end);
        e.ht_cleanup_plane = ends_in_cleanup(end) ? plane : plane + 1;
        e.ht_refinement = !ends_in_cleanup(end);
      }
      if (!ends_in_cleanup(end) && entropy::block_coder_kind(b.coded.style) != entropy::block_coder_kind(e.style)) {
        ++mid_plane_;
      }
      batch.push_back(e);
    }
    coded_.assign(batch.size(), {});
    if (batch.empty()) return Status::Ok();
    MALLAT_ASSIGN_OR_RETURN(const std::unique_ptr<entropy::BlockEncoder> coder,
                            entropy::make_block_encoder(batch[0].style));
    return coder->encode(batch, coded_, pool_);
  }

  // Per layer, per slot, the target's passes: Part 1 keeps each layer's end
  // (the passes that reach the same position); an HT block's passes, one HT
  // set, all go in the layer that first included the source block.
  LayerPasses layer_passes() const {
    const size_t layers = static_cast<size_t>(params_.style.layers);
    LayerPasses rows(layers, std::vector<int>(packets_.segments.size(), 0));
    for (size_t i = 0; i < blocks_.size(); ++i) {
      const Block& b = blocks_[i];
      const entropy::EncodedCodeBlock& e = coded_[i];
      for (size_t l = 0; l < layers; ++l) {
        const int position = b.positions[l];
        if (position < 0 || e.num_passes == 0) continue;
        int passes = e.num_passes;
        if (target_ == BlockCoder::kPart1) {
          passes = std::clamp(position - 3 * e.zero_bitplanes + 1, 0, e.num_passes);
        } else if (b.positions.back() % 3 == 1 && e.num_passes == 3) {
          // The source ended after SigProp: so does the HT set, whose
          // SigProp alone is a valid cut of its refinement segment
          // (15444-15 B.3, entropy/ht/code_block.h).
          passes = 2;
        }
        rows[l][b.slot] = passes;
      }
    }
    return rows;
  }

  Result<TranscodedTile> write(bool packed_headers) {
    std::vector<ComponentCoding> coding = params_.components;
    for (ComponentCoding& cc : coding) cc.style = transcoded_style(cc.style, target_);
    MALLAT_ASSIGN_OR_RETURN(TilePrecincts precincts, TilePrecincts::create(layout_, coding));
    std::vector<int> index(packets_.segments.size(), -1);
    for (size_t i = 0; i < blocks_.size(); ++i) index[blocks_[i].slot] = static_cast<int>(i);
    const LayerPasses layers = layer_passes();
    const entropy::EncodedCodeBlock none;
    TilePacketsToWrite what;
    what.sequence = packets_.sequence;
    what.layers = &layers;
    what.block = [&](size_t slot) -> Result<const entropy::EncodedCodeBlock*> {
      return index[slot] < 0 ? &none : &coded_[static_cast<size_t>(index[slot])];
    };
    what.sop = params_.style.sop;
    what.eph = params_.style.eph;
    TranscodedTile out;
    MALLAT_RETURN_IF_ERROR(
        write_packets(precincts, what, {packed_headers, &out.data, &out.headers, &out.packets}).status());
    out.code_blocks = static_cast<int64_t>(blocks_.size());
    out.mid_plane_code_blocks = mid_plane_;
    return out;
  }

  const Codestream& cs_;
  const Tile& tile_;
  BlockCoder target_;
  ThreadPool& pool_;
  TileCodingParameters params_;
  TileLayout layout_;
  TilePackets packets_;
  std::vector<Block> blocks_;
  std::vector<entropy::EncodedCodeBlock> coded_;  // per block of blocks_
  int64_t mid_plane_ = 0;
};

}  // namespace

Result<TranscodedTile> transcode_tile(const Codestream& cs, const Tile& tile, std::span<const uint8_t> stream,
                                      BlockCoder target, bool packed_headers, ThreadPool& pool,
                                      std::vector<std::string>& warnings) {
  TileTranscoder transcoder(cs, tile, target, pool);
  return transcoder.run(stream, packed_headers, warnings);
}

}  // namespace mallat::codec

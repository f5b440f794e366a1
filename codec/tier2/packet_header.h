// B.10: packet headers. A packet carries, for one layer of one precinct, the
// new coding passes of each of the precinct's code-blocks; its header says
// which code-blocks are included (B.10.4), their zero bit-planes on first
// inclusion (B.10.5), how many passes each adds (B.10.6, Table B.4) and the
// byte lengths of their codeword segments (B.10.7). The state that makes
// headers of later layers cheaper (tag trees, Lblock, inclusion) lives in a
// PrecinctPacketCoder, one per precinct, used by encoder and decoder alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "codec/tier2/bit_io.h"
#include "codec/codestream/params.h"
#include "codec/tier2/tag_tree.h"
#include "common/status.h"

namespace mallat::codec {

// B.10.6: at most this many passes in one packet (Table B.4's largest codeword).
inline constexpr int kMaxPassesPerPacket = 164;
// Sanity bounds a decoder applies to what a header may claim.
inline constexpr int kMaxPassesPerCodeBlock = 3 * 128;
inline constexpr int kMaxZeroBitplanes = 127;

// B.10.7.2 / D.4.1: whether coding pass `pass` (0 = the first cleanup pass)
// ends a codeword segment under the code-block style. TERMALL: every pass.
// BYPASS: the first ten passes form one segment, then each bit-plane's
// significance + refinement passes (raw) and its cleanup pass (MQ) are one
// segment each. Otherwise only the code-block's last pass ends one.
//
// HT code-blocks (15444-15 B.3, style.ht): passes go in HT sets of a
// cleanup pass, then SigProp and MagRef. The cleanup pass is a segment of its
// own, SigProp and MagRef share the next. `ht_first_cleanup` is the index of
// the block's first cleanup pass: the placeholder passes before it (multiples
// of 3, carrying no bytes) belong to its segment.
bool pass_ends_codeword_segment(CodeBlockStyle style, int pass, int ht_first_cleanup = 0);

// The new passes of one packet split where codeword segments end: the
// number of passes in each piece, whose byte lengths the header signals
// one by one (B.10.7.2). passes_before: passes of the code-block in earlier
// packets. Empty when new_passes == 0.
std::vector<int> codeword_segment_pieces(CodeBlockStyle style, int passes_before, int new_passes,
                                         int ht_first_cleanup = 0);
// The same pieces given to `piece(passes)` in order, no list made; a piece
// for which it returns false ends the walk (false then).
template <typename Piece>
bool for_each_codeword_segment_piece(CodeBlockStyle style, int passes_before, int new_passes, int ht_first_cleanup,
                                     Piece&& piece) {
  const int end = passes_before + new_passes;
  int count = 0;
  for (int p = passes_before; p < end; ++p) {
    ++count;
    if (p + 1 < end && !pass_ends_codeword_segment(style, p, ht_first_cleanup)) continue;
    if (!piece(count)) return false;
    count = 0;
  }
  return true;
}

// The code-blocks of one subband inside a precinct (B.7), in raster order.
struct CodeBlockGrid {
  int width = 0, height = 0;
};

// One code-block's part of one packet.
struct CodeBlockContribution {
  int new_passes = 0;              // 0: not included in this packet
  std::vector<uint32_t> lengths;   // bytes of each piece of codeword_segment_pieces(), in order
  // Decoder output: set when this packet includes the code-block for the first time.
  bool first_inclusion = false;
  int zero_bitplanes = 0;          // B.10.5, valid when first_inclusion
  // Decoder output: the first piece continues the code-block's last codeword
  // segment of earlier packets (B.10.7.2: a segment may span packets).
  bool continues_segment = false;
  // Decoder output: the code-block is an HT block (always under an HT style,
  // told block by block under HTMIXED, 15444-15 B.3).
  bool ht = false;

  uint64_t body_bytes() const;
  // Back to a block not included, its lengths' memory kept.
  void clear();
};

class PrecinctPacketCoder {
 public:
  PrecinctPacketCoder() = default;
  // bands: the code-block grids of the precinct's subbands in packet order
  // (LL at resolution 0; HL, LH, HH above). Refuses more than max_code_blocks.
  static Result<PrecinctPacketCoder> create(std::span<const CodeBlockGrid> bands,
                                            CodeBlockStyle style,
                                            int64_t max_code_blocks = int64_t{1} << 20);

  // Code-blocks over all bands, in packet order (band by band, raster order within).
  int code_blocks() const { return static_cast<int>(blocks_.size()); }
  // Back to the state before the first packet (also clears encoder values).
  void reset();

  // Encoder, before the first packet (so the rate allocation of all layers
  // must be known): the layer in which code-block `index`
  // is first included (a value >= the number of layers, or TagTree::kUnknown:
  // never) and its number of missing most significant bit-planes.
  Status set_code_block(int index, int first_layer, int zero_bitplanes);

  // Encoder: append the header of the packet of `layer` (layers in
  // increasing order, each once) to out, ending byte-aligned (B.10.1), then
  // EPH when eph. blocks: one per code-block in packet order. The packet body
  // is the blocks' pieces in the same order.
  Status encode_header(int layer, std::span<const CodeBlockContribution> blocks, bool eph,
                       std::vector<uint8_t>& out);

  // The header coded in pieces (several threads at once): the subbands'
  // parts of one packet's header, each after the first bit (B.10.3: "not
  // empty", the caller's), are what encode_header writes for the subbands'
  // blocks, band by band; each band's tag trees and blocks are its own
  // (B.10.2), so that different bands may be coded on different threads.
  // `blocks`: band `band`'s contributions (code-blocks
  // band_first_block(band) onwards); `w` an unstuffed writer, whose pieces
  // the header's writer joins (PacketBitWriter::put_unstuffed). A packet
  // that no block of the precinct contributes to (`empty`) has no band
  // parts: its blocks are checked, nothing is written.
  int bands() const { return static_cast<int>(bands_.size()); }
  int band_first_block(int band) const;
  Status encode_band(int layer, int band, std::span<const CodeBlockContribution> blocks, bool empty,
                     PacketBitWriter& w);

  // Decoder: read the header of the packet of `layer` from the start of
  // header (the tile-part data, or a PPM/PPT packed-header stream), and an
  // EPH after it when present. Fills blocks (resized to code_blocks()) and
  // returns the bytes consumed. Never reads past header.
  Result<size_t> decode_header(int layer, std::span<const uint8_t> header,
                               std::vector<CodeBlockContribution>& blocks);

  // Per code-block state, for the decoder pipeline.
  int passes_so_far(int index) const { return blocks_[static_cast<size_t>(index)].passes; }
  bool included(int index) const { return blocks_[static_cast<size_t>(index)].included; }

 private:
  struct BlockState {
    int band = 0, x = 0, y = 0;   // tag tree leaf
    bool included = false;
    int lblock = 3;               // B.10.7.1: initial Lblock
    int passes = 0;
    int first_layer = TagTree::kUnknown;   // encoder
    int zero_bitplanes = 0;
    // 15444-15 B.3: whether the block is HT, and the index of its first HT
    // cleanup pass; -1 while only placeholder passes have come (decoder).
    bool ht = false;
    int ht_first_cleanup = -1;
  };
  // Encoder: whether block `index` may contribute `c` to the packet of
  // `layer`, then its part of the header (B.10.4 to B.10.7).
  Status check_contribution(int layer, int index, const CodeBlockContribution& c) const;
  void encode_block(int layer, int index, const CodeBlockContribution& c, PacketBitWriter& w);
  // Both for blocks first.. (as many as `blocks`): each checked, then,
  // unless the packet is empty, each coded (encode_header, encode_band).
  Status encode_blocks(int layer, int first, std::span<const CodeBlockContribution> blocks, bool empty,
                       PacketBitWriter& w);
  // The lengths of the block's first contribution while its first HT
  // cleanup pass is not yet known (15444-15 B.3): placeholder passes, the
  // cleanup and what follows, or under HTMIXED a Part-1 block's segment.
  Status read_ht_first_lengths(PacketBitReader& r, BlockState& s, CodeBlockContribution& c, int layer, int idx);
  // The style whose segment rules the block follows: the component's, with
  // HT as the block is (HTMIXED decided).
  CodeBlockStyle block_style(const BlockState& s) const;
  std::vector<CodeBlockGrid> bands_;
  std::vector<TagTree> inclusion_;     // B.10.4, per band
  std::vector<TagTree> zero_planes_;   // B.10.5, per band
  std::vector<BlockState> blocks_;
  CodeBlockStyle style_;
  bool values_set_ = false;
};

// A.8.1: SOP marker segment (0xFF91, Lsop = 4, Nsop) before a packet; Nsop
// numbers the packets of a tile from 0, modulo 65536.
void write_sop(uint16_t packet_index, std::vector<uint8_t>& out);
inline constexpr size_t kSopBytes = 6;
// The bytes of an SOP marker segment at the start of data (6), or 0 when
// there is none. A malformed one (Lsop != 4, truncated) is an error.
Result<size_t> skip_sop(std::span<const uint8_t> data);
// A.8.2: EPH marker (0xFF92) after a packet header.
inline constexpr uint8_t kEphSecondByte = 0x92;
inline constexpr uint8_t kSopSecondByte = 0x91;

}  // namespace mallat::codec

#include "codec/tier2/packet_header.h"

#include <algorithm>
#include <bit>
#include <string>

namespace mallat::codec {
namespace {

// floor(log2(v)) for v >= 1.
int floor_log2(uint32_t v) { return 31 - std::countl_zero(v); }

// Number of bits needed to write v (0 for 0).
int bit_length(uint32_t v) { return 32 - std::countl_zero(v); }

// B.10.6, Table B.4: the codeword for the number of new coding passes.
void put_pass_count(PacketBitWriter& out, int n) {
  if (n == 1) {
    out.put_bit(0);
  } else if (n == 2) {
    out.put_bits(0b10, 2);
  } else if (n <= 5) {
    out.put_bits(0b11, 2);
    out.put_bits(static_cast<uint32_t>(n - 3), 2);
  } else if (n <= 36) {
    out.put_bits(0b1111, 4);
    out.put_bits(static_cast<uint32_t>(n - 6), 5);
  } else {
    out.put_bits(0b1'1111'1111, 9);
    out.put_bits(static_cast<uint32_t>(n - 37), 7);
  }
}

int get_pass_count(PacketBitReader& in) {
  if (!in.get_bit()) return 1;
  if (!in.get_bit()) return 2;
  uint32_t c = in.get_bits(2);
  if (c != 3) return 3 + static_cast<int>(c);
  c = in.get_bits(5);
  if (c != 31) return 6 + static_cast<int>(c);
  return 37 + static_cast<int>(in.get_bits(7));
}

std::string where(int layer, int block) {
  return "packet header (layer " + std::to_string(layer) + ", code-block " +
         std::to_string(block) + ")";
}

}  // namespace

bool pass_ends_codeword_segment(CodeBlockStyle style, int pass, int ht_first_cleanup) {
  if (style.ht) {
    // 15444-15 B.3: placeholders join the first cleanup's segment; after it
    // each cleanup (offset 0 mod 3) and each MagRef (2 mod 3) ends one.
    if (pass < ht_first_cleanup) return false;
    return (pass - ht_first_cleanup) % 3 != 1;
  }
  if (style.termall) return true;
  if (style.bypass) return pass >= 9 && (pass - 9) % 3 != 1;
  return false;
}

std::vector<int> codeword_segment_pieces(CodeBlockStyle style, int passes_before, int new_passes,
                                         int ht_first_cleanup) {
  std::vector<int> pieces;
  for_each_codeword_segment_piece(style, passes_before, new_passes, ht_first_cleanup, [&](int passes) {
    pieces.push_back(passes);
    return true;
  });
  return pieces;
}

void CodeBlockContribution::clear() {
  std::vector<uint32_t> kept = std::move(lengths);
  kept.clear();
  *this = CodeBlockContribution{};
  lengths = std::move(kept);
}

uint64_t CodeBlockContribution::body_bytes() const {
  uint64_t s = 0;
  for (uint32_t l : lengths) s += l;
  return s;
}

Result<PrecinctPacketCoder> PrecinctPacketCoder::create(std::span<const CodeBlockGrid> bands,
                                                        CodeBlockStyle style,
                                                        int64_t max_code_blocks) {
  int64_t total = 0;
  for (const CodeBlockGrid& g : bands) {
    if (g.width < 0 || g.height < 0) return invalid_argument("precinct: negative code-block grid");
    total += int64_t{g.width} * g.height;
    if (total > max_code_blocks) {
      return resource_limit("precinct: more than " + std::to_string(max_code_blocks) +
                            " code-blocks");
    }
  }
  PrecinctPacketCoder c;
  c.style_ = style;
  c.bands_.assign(bands.begin(), bands.end());
  c.blocks_.reserve(static_cast<size_t>(total));
  c.inclusion_.reserve(bands.size());
  c.zero_planes_.reserve(bands.size());
  for (size_t b = 0; b < bands.size(); ++b) {
    MALLAT_ASSIGN_OR_RETURN(TagTree inc, TagTree::create(bands[b].width, bands[b].height));
    MALLAT_ASSIGN_OR_RETURN(TagTree zbp, TagTree::create(bands[b].width, bands[b].height));
    c.inclusion_.push_back(std::move(inc));
    c.zero_planes_.push_back(std::move(zbp));
    for (int y = 0; y < bands[b].height; ++y) {
      for (int x = 0; x < bands[b].width; ++x) {
        BlockState s;
        s.band = static_cast<int>(b);
        s.x = x;
        s.y = y;
        s.ht = style.ht;
        c.blocks_.push_back(s);
      }
    }
  }
  return c;
}

void PrecinctPacketCoder::reset() {
  for (TagTree& t : inclusion_) t.reset();
  for (TagTree& t : zero_planes_) t.reset();
  for (BlockState& s : blocks_) {
    s = BlockState{s.band, s.x, s.y};
    s.ht = style_.ht;
  }
}

Status PrecinctPacketCoder::set_code_block(int index, int first_layer, int zero_bitplanes) {
  if (index < 0 || index >= code_blocks()) {
    return invalid_argument("precinct: code-block index " + std::to_string(index) + " out of range");
  }
  if (first_layer < 0 || zero_bitplanes < 0) {
    return invalid_argument("precinct: negative first layer or zero bit-planes");
  }
  BlockState& s = blocks_[static_cast<size_t>(index)];
  s.first_layer = first_layer;
  s.zero_bitplanes = zero_bitplanes;
  inclusion_[static_cast<size_t>(s.band)].set_value(s.x, s.y, first_layer);
  zero_planes_[static_cast<size_t>(s.band)].set_value(s.x, s.y, zero_bitplanes);
  return Status::Ok();
}

// Inlined into encode_blocks' loops (a call a block otherwise).
[[gnu::always_inline]] inline Status PrecinctPacketCoder::check_contribution(int layer, int index,
                                                                            const CodeBlockContribution& c) const {
  const BlockState& s = blocks_[static_cast<size_t>(index)];
  if (c.new_passes < 0 || c.new_passes > kMaxPassesPerPacket) {
    return invalid_argument(where(layer, index) + ": " + std::to_string(c.new_passes) + " passes");
  }
  if (c.new_passes == 0) {
    if (!s.included && s.first_layer <= layer) {
      return invalid_argument(where(layer, index) + ": first inclusion layer " + std::to_string(s.first_layer) +
                              " but no passes");
    }
    return Status::Ok();
  }
  if (!s.included && s.first_layer != layer) {
    return invalid_argument(where(layer, index) + ": included but its first inclusion layer is " +
                            std::to_string(s.first_layer));
  }
  size_t pieces = 0;
  for_each_codeword_segment_piece(style_, s.passes, c.new_passes, 0, [&](int) {
    ++pieces;
    return true;
  });
  if (c.lengths.size() != pieces) {
    return invalid_argument(where(layer, index) + ": " + std::to_string(c.lengths.size()) + " lengths for " +
                            std::to_string(pieces) + " codeword segments");
  }
  return Status::Ok();
}

[[gnu::always_inline]] inline void PrecinctPacketCoder::encode_block(int layer, int index,
                                                                    const CodeBlockContribution& c,
                                                                    PacketBitWriter& w) {
  BlockState& s = blocks_[static_cast<size_t>(index)];
  TagTree& inc = inclusion_[static_cast<size_t>(s.band)];
  // B.10.4: code-block inclusion.
  if (!s.included) {
    inc.encode(w, s.x, s.y, layer + 1);
  } else {
    w.put_bit(c.new_passes > 0 ? 1 : 0);
  }
  if (c.new_passes == 0) return;
  // B.10.5: zero bit-planes, on first inclusion: the whole value.
  if (!s.included) {
    zero_planes_[static_cast<size_t>(s.band)].encode(w, s.x, s.y, s.zero_bitplanes + 1);
    s.included = true;
  }
  // B.10.6: number of coding passes.
  put_pass_count(w, c.new_passes);
  // B.10.7: Lblock increment (comma code), then one length per piece.
  // The pieces walked twice (no list made): c.lengths holds one per
  // piece, checked before.
  int increment = 0;
  size_t k = 0;
  for_each_codeword_segment_piece(style_, s.passes, c.new_passes, 0, [&](int piece) {
    const int have = s.lblock + floor_log2(static_cast<uint32_t>(piece));
    increment = std::max(increment, bit_length(c.lengths[k++]) - have);
    return true;
  });
  for (int b = 0; b < increment; ++b) w.put_bit(1);
  w.put_bit(0);
  s.lblock += increment;
  k = 0;
  for_each_codeword_segment_piece(style_, s.passes, c.new_passes, 0, [&](int piece) {
    w.put_bits(c.lengths[k++], s.lblock + floor_log2(static_cast<uint32_t>(piece)));
    return true;
  });
  s.passes += c.new_passes;
}

Status PrecinctPacketCoder::encode_blocks(int layer, int first, std::span<const CodeBlockContribution> blocks,
                                          bool empty, PacketBitWriter& w) {
  // 15444-15 B.3: an HTMIXED writer would have to mark its HT blocks
  // through their first length; this one writes one kind per component.
  if (style_.ht_mixed) return unsupported("packet header: writing HTMIXED code-blocks");
  // Check everything before writing a bit.
  for (size_t i = 0; i < blocks.size(); ++i)
    MALLAT_RETURN_IF_ERROR(check_contribution(layer, first + static_cast<int>(i), blocks[i]));
  if (empty) return Status::Ok();
  for (size_t i = 0; i < blocks.size(); ++i) encode_block(layer, first + static_cast<int>(i), blocks[i], w);
  return Status::Ok();
}

Status PrecinctPacketCoder::encode_header(int layer, std::span<const CodeBlockContribution> blocks,
                                          bool eph, std::vector<uint8_t>& out) {
  if (blocks.size() != blocks_.size()) {
    return invalid_argument("packet header: " + std::to_string(blocks.size()) +
                            " contributions for " + std::to_string(blocks_.size()) + " code-blocks");
  }
  const bool any = std::any_of(blocks.begin(), blocks.end(), [](const auto& c) { return c.new_passes != 0; });
  PacketBitWriter w(out);
  w.put_bit(any ? 1 : 0);  // B.10.3: zero-length packet (a bit that no error leaves in out)
  MALLAT_RETURN_IF_ERROR(encode_blocks(layer, 0, blocks, !any, w));
  w.flush();
  if (eph) {
    out.push_back(0xFF);
    out.push_back(kEphSecondByte);
  }
  return Status::Ok();
}

int PrecinctPacketCoder::band_first_block(int band) const {
  int first = 0;
  for (int b = 0; b < band; ++b) first += bands_[static_cast<size_t>(b)].width * bands_[static_cast<size_t>(b)].height;
  return first;
}

Status PrecinctPacketCoder::encode_band(int layer, int band, std::span<const CodeBlockContribution> blocks,
                                        bool empty, PacketBitWriter& w) {
  const auto& grid = bands_[static_cast<size_t>(band)];
  if (blocks.size() != static_cast<size_t>(grid.width) * static_cast<size_t>(grid.height)) {
    return invalid_argument("packet header: " + std::to_string(blocks.size()) + " contributions for a subband of " +
                            std::to_string(grid.width * grid.height) + " code-blocks");
  }
  return encode_blocks(layer, band_first_block(band), blocks, empty, w);
}

Result<size_t> PrecinctPacketCoder::decode_header(int layer, std::span<const uint8_t> header,
                                                  std::vector<CodeBlockContribution>& blocks) {
  // Each block's length list keeps its memory from the last packet read
  // into `blocks`: a precinct may have thousands of code-blocks.
  blocks.resize(blocks_.size());
  for (CodeBlockContribution& c : blocks) c.clear();
  PacketBitReader r(header);
  const bool any = r.get_bit() != 0;
  if (any) {
    for (size_t i = 0; i < blocks_.size(); ++i) {
      CodeBlockContribution& c = blocks[i];
      BlockState& s = blocks_[i];
      const int idx = static_cast<int>(i);
      bool now = false;
      if (!s.included) {
        now = inclusion_[static_cast<size_t>(s.band)].decode(r, s.x, s.y, layer + 1);
      } else {
        now = r.get_bit() != 0;
      }
      if (r.overrun()) return corrupt_data(where(layer, idx) + ": truncated at inclusion");
      if (!now) continue;
      if (!s.included) {
        TagTree& zbp = zero_planes_[static_cast<size_t>(s.band)];
        // B.10.5: the whole value, read as one decode up to the largest
        // threshold allowed. A tag tree reads a node's bits only once its
        // parent is known (B.10.2), so these are the bits that raising the
        // threshold one at a time would read, in the same order.
        if (!zbp.decode(r, s.x, s.y, kMaxZeroBitplanes + 1)) {
          if (r.overrun()) return corrupt_data(where(layer, idx) + ": truncated at zero bit-planes");
          return corrupt_data(where(layer, idx) + ": more than " + std::to_string(kMaxZeroBitplanes) +
                              " zero bit-planes");
        }
        s.included = true;
        s.zero_bitplanes = zbp.value(s.x, s.y);
        c.first_inclusion = true;
        c.zero_bitplanes = s.zero_bitplanes;
      }
      c.new_passes = get_pass_count(r);
      if (r.overrun()) return corrupt_data(where(layer, idx) + ": truncated at pass count");
      if (s.passes + c.new_passes > kMaxPassesPerCodeBlock) {
        return corrupt_data(where(layer, idx) + ": more than " +
                            std::to_string(kMaxPassesPerCodeBlock) + " coding passes");
      }
      while (r.get_bit()) {
        if (r.overrun()) return corrupt_data(where(layer, idx) + ": truncated at Lblock");
        if (++s.lblock > 32) return corrupt_data(where(layer, idx) + ": Lblock beyond 32");
      }
      c.ht = s.ht;
      if (s.ht && s.ht_first_cleanup < 0) {
        MALLAT_RETURN_IF_ERROR(read_ht_first_lengths(r, s, c, layer, idx));
        c.ht = s.ht;
      } else {
        const CodeBlockStyle style = block_style(s);
        c.continues_segment = s.passes > 0 && !pass_ends_codeword_segment(style, s.passes - 1, s.ht_first_cleanup);
        // B.10.7.1: a length for each piece of codeword_segment_pieces, each
        // read as the walk of the new passes ends it (no list made a block).
        c.lengths.clear();
        int too_long = 0;
        for_each_codeword_segment_piece(style, s.passes, c.new_passes, s.ht_first_cleanup, [&](int passes) {
          const int bits = s.lblock + floor_log2(static_cast<uint32_t>(passes));
          if (bits > 32) {
            too_long = bits;
            return false;
          }
          c.lengths.push_back(r.get_bits(bits));
          return true;
        });
        if (too_long > 0) {
          return corrupt_data(where(layer, idx) + ": segment length of " + std::to_string(too_long) + " bits");
        }
      }
      if (r.overrun()) return corrupt_data(where(layer, idx) + ": truncated at segment lengths");
      s.passes += c.new_passes;
    }
  }
  r.align();
  if (r.overrun()) return corrupt_data(where(layer, -1) + ": truncated");
  size_t pos = r.position();
  if (pos + 1 < header.size() && header[pos] == 0xFF && header[pos + 1] == kEphSecondByte) {
    pos += 2;  // A.8.2: EPH
  }
  return pos;
}

CodeBlockStyle PrecinctPacketCoder::block_style(const BlockState& s) const {
  CodeBlockStyle style = style_;
  style.ht = s.ht;
  style.ht_mixed = false;
  return style;
}

Status PrecinctPacketCoder::read_ht_first_lengths(PacketBitReader& r, BlockState& s, CodeBlockContribution& c,
                                                  int layer, int idx) {
  const int n = c.new_passes, before = s.passes;
  const int last = before + n - 1;
  const int cleanup = last - last % 3;  // the last of the new passes that can be a cleanup pass
  c.continues_segment = before > 0;     // placeholders of earlier packets
  // Until the first HT cleanup pass, the length is signalled as for one
  // segment of all the new passes (B.10.7.2), so that placeholder passes
  // (length 0) and, under HTMIXED, a Part-1 block's first segment read alike.
  auto read_length = [&](int passes_in_segment, uint32_t high, int have_bits) -> Result<uint32_t> {
    const int bits = s.lblock + floor_log2(static_cast<uint32_t>(passes_in_segment));
    if (bits > 32) return corrupt_data(where(layer, idx) + ": segment length of " + std::to_string(bits) + " bits");
    const int more = bits - have_bits;
    // In 64 bits: a 32-bit length read whole (have_bits 0) shifts by 32.
    return more > 0 ? static_cast<uint32_t>((uint64_t{high} << more) | r.get_bits(more)) : high;
  };
  auto as_part1 = [&](uint32_t length) -> Status {
    // HTMIXED: a Part-1 code-block, whose first segment here is all n
    // passes; its later packets follow Part 1's rules.
    if (!style_.ht_mixed) {
      return corrupt_data(where(layer, idx) + ": " + std::to_string(length) +
                          " bytes for HT placeholder passes (15444-15 B.3)");
    }
    if (style_.termall || style_.bypass) {
      return unsupported(where(layer, idx) + ": a Part-1 code-block with TERMALL or BYPASS under HTMIXED");
    }
    s.ht = false;
    c.lengths.assign(1, length);
    return Status::Ok();
  };
  if (cleanup < before) {
    MALLAT_ASSIGN_OR_RETURN(uint32_t length, read_length(n, 0, 0));
    if (length != 0) return as_part1(length);
    c.lengths.assign(1, 0);
    return Status::Ok();
  }
  const int to_cleanup = cleanup - before + 1;
  const int bits = s.lblock + floor_log2(static_cast<uint32_t>(to_cleanup));
  MALLAT_ASSIGN_OR_RETURN(uint32_t length, read_length(to_cleanup, 0, 0));
  if (length == 0) {
    // Placeholder passes only: the rest of an n-pass length must be 0 too.
    MALLAT_ASSIGN_OR_RETURN(uint32_t whole, read_length(n, 0, bits));
    if (whole != 0) return as_part1(whole);
    c.lengths.assign(1, 0);
    return Status::Ok();
  }
  // Under HTMIXED an HT block's first cleanup length has its top bit clear
  // with Lblock above 3 (the encoder raised Lblock to say so); otherwise
  // the length is a Part-1 block's (15444-15 B.3).
  if (style_.ht_mixed && !(s.lblock > 3 && length > 1 && (length >> (bits - 1)) == 0)) {
    MALLAT_ASSIGN_OR_RETURN(uint32_t whole, read_length(n, length, bits));
    return as_part1(whole);
  }
  s.ht_first_cleanup = cleanup;
  c.lengths.assign(1, length);
  Status status;
  for_each_codeword_segment_piece(style_, cleanup + 1, last - cleanup, cleanup, [&](int piece) {
    Result<uint32_t> l = read_length(piece, 0, 0);
    if (!l.ok()) {
      status = l.status();
      return false;
    }
    c.lengths.push_back(*l);
    return true;
  });
  return status;
}

void write_sop(uint16_t packet_index, std::vector<uint8_t>& out) {
  const uint8_t sop[kSopBytes] = {0xFF, kSopSecondByte, 0x00, 0x04, static_cast<uint8_t>(packet_index >> 8),
                          static_cast<uint8_t>(packet_index & 0xFF)};
  out.insert(out.end(), sop, sop + kSopBytes);
}

Result<size_t> skip_sop(std::span<const uint8_t> data) {
  if (data.size() < 2 || data[0] != 0xFF || data[1] != kSopSecondByte) return size_t{0};
  if (data.size() < 6) return corrupt_data("SOP marker segment truncated");
  if (data[2] != 0 || data[3] != 4) {
    return corrupt_data("SOP marker segment with Lsop " + std::to_string(data[2] << 8 | data[3]));
  }
  return size_t{6};
}

}  // namespace mallat::codec

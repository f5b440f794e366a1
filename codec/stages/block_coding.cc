#include "codec/stages/block_coding.h"

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codec/stages/quantisation.h"

namespace mallat::codec {
namespace {

// The encoder codes a tile in one batch, so its blocks must all ask for one
// coder.
template <typename Coder, typename Block, typename StyleOf, typename Make>
Result<std::unique_ptr<Coder>> coder_for(std::span<const Block> blocks, StyleOf style_of, Make make) {
  const entropy::CodeBlockStyle first = blocks.empty() ? entropy::CodeBlockStyle{} : style_of(blocks[0]);
  for (const Block& b : blocks) {
    if (entropy::block_coder_kind(style_of(b)) == entropy::block_coder_kind(first)) continue;
    MALLAT_RETURN_IF_ERROR(make(style_of(b)).status());
    return unsupported("code-blocks of one tile that need different block coders");
  }
  return make(first);
}

// Block i of `tile` to code with its cleanup at `plane` (block_coded_at),
// its samples where they lie in the tile's planes.
std::optional<entropy::BlockToEncode> block_at_plane(const EncodeTile& tile, size_t i, int plane, bool refinement) {
  const EncodeBlock& b = tile.blocks[i];
  if (!block_coded_at(b, plane)) return std::nullopt;
  return block_to_encode(tile, i, b.place.in(tile.planes[b.place.component].ints()), plane, refinement);
}

}  // namespace

bool block_coded_at(const EncodeBlock& block, int plane) {
  return plane >= 0 && (plane == 0 || plane < block.num_bitplanes);
}

entropy::BlockToEncode block_to_encode(const EncodeTile& tile, size_t i, PlaneView<const int32_t> samples, int plane,
                                       bool refinement) {
  const EncodeBlock& b = tile.blocks[i];
  entropy::BlockToEncode e{samples, b.orientation, b.num_bitplanes, b.style, b.fraction_bits};
  e.ht_cleanup_plane = plane;
  e.ht_refinement = refinement && plane > 0;
  e.ht_lowering_share = tile.ht_lowering_share;
  e.distortions = tile.distortions;
  return e;
}

Status decode_by_coder(std::span<const entropy::BlockToDecode> batch, std::span<entropy::DecodedBlock> out,
                       ThreadPool& pool, const entropy::BatchWork& work, entropy::BlockDecoder* hybrid) {
  using entropy::BlockCoderKind;
  auto kind_of = [&](size_t k) { return entropy::block_coder_kind(batch[k].style); };
  bool one_kind = true;
  for (size_t k = 1; k < batch.size(); ++k) one_kind = one_kind && kind_of(k) == kind_of(0);
  if (one_kind) {
    const entropy::CodeBlockStyle style = batch.empty() ? entropy::CodeBlockStyle{} : batch[0].style;
    if (hybrid != nullptr) return hybrid->decode(batch, out, pool, work);
    MALLAT_ASSIGN_OR_RETURN(const std::unique_ptr<entropy::BlockDecoder> coder, entropy::make_block_decoder(style));
    return coder->decode(batch, out, pool, work);
  }
  bool first = true;
  for (BlockCoderKind kind : {BlockCoderKind::kEbcot, BlockCoderKind::kHt}) {
    std::vector<size_t> group;
    for (size_t k = 0; k < batch.size(); ++k) {
      if (kind_of(k) == kind) group.push_back(k);
    }
    if (group.empty()) continue;
    std::vector<entropy::BlockToDecode> sub(group.size());
    std::vector<entropy::DecodedBlock> sub_out(group.size());
    for (size_t j = 0; j < group.size(); ++j) {
      sub[j] = batch[group[j]];
      sub_out[j] = out[group[j]];
    }
    MALLAT_ASSIGN_OR_RETURN(const std::unique_ptr<entropy::BlockDecoder> own,
                            entropy::make_block_decoder(sub[0].style));
    entropy::BlockDecoder* const coder = hybrid != nullptr ? hybrid : own.get();
    entropy::BatchWork w;
    if (first) {
      w.items = work.items;
      w.item = work.item;
    }
    if (work.each) {
      w.each = [&](size_t j) {
        out[group[j]] = sub_out[j];
        work.each(group[j]);
      };
    }
    MALLAT_RETURN_IF_ERROR(coder->decode(sub, sub_out, pool, w));
    for (size_t j = 0; j < group.size(); ++j) out[group[j]] = sub_out[j];
    first = false;
  }
  return Status::Ok();
}

Status encode_blocks(EncodeTile& tile, ThreadPool& pool, bool quantise, const entropy::BatchWork& beside) {
  const size_t n = tile.blocks.size();
  tile.coded.assign(n, {});
  if (quantise) tile.quantisation.assign(n, {});
  MALLAT_ASSIGN_OR_RETURN(
      const std::unique_ptr<entropy::BlockEncoder> coder,
      coder_for<entropy::BlockEncoder>(std::span<const EncodeBlock>(tile.blocks),
                                       [](const EncodeBlock& b) { return b.style; }, entropy::make_block_encoder));
  // A share of its own is the CPU coder's alone (a device job has no field
  // for it).
  entropy::BlockEncoder* const use =
      tile.hybrid_coder != nullptr && tile.ht_lowering_share < 0 ? tile.hybrid_coder : coder.get();
  // HT blocks coded again at a plane p (rate control, tile_encoder.h): a
  // block of Mb <= p has nothing there and stays out of the batch, as does
  // one whose own plane (ht_block_planes) is negative.
  if (!tile.pass_limits.empty() && tile.pass_limits.size() != n)
    return internal_error("block coding: " + std::to_string(tile.pass_limits.size()) + " pass limits for " +
                          std::to_string(n) + " code-blocks");
  std::vector<entropy::BlockToEncode> batch;
  std::vector<size_t> index;
  batch.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const int plane = tile.ht_block_planes.empty() ? tile.ht_cleanup_plane : tile.ht_block_planes[i];
    std::optional<entropy::BlockToEncode> b;
    if (tile.pass_limits.empty()) {
      b = block_at_plane(tile, i, plane, tile.ht_refinement);
    } else if (tile.pass_limits[i] >= 0) {
      b = block_at_plane(tile, i, 0, false);
      b->pass_limit = tile.pass_limits[i];
    }
    if (!b) {
      tile.coded[i].zero_bitplanes = tile.blocks[i].num_bitplanes;
      continue;
    }
    batch.push_back(*b);
    index.push_back(i);
  }
  entropy::BatchWork work;
  work.items = beside.items;
  work.item = beside.item;
  if (quantise || beside.each) {
    work.each = [&](size_t k) {
      if (beside.each) beside.each(index[k]);
      if (quantise) tile.quantisation[index[k]] = quantise_block(tile, index[k]);
    };
  }
  if (batch.size() == n) return use->encode(batch, tile.coded, pool, work);
  std::vector<entropy::EncodedCodeBlock> coded(batch.size());
  MALLAT_RETURN_IF_ERROR(use->encode(batch, coded, pool, work));
  for (size_t k = 0; k < index.size(); ++k) tile.coded[index[k]] = std::move(coded[k]);
  return Status::Ok();
}

Status encode_block_rounds(EncodeTile& tile, std::span<const std::vector<int8_t>> rounds, ThreadPool& pool,
                           const BlockRounds& work) {
  const size_t n = tile.blocks.size();
  // Through a device coder: one batch per round, as encode_blocks codes it.
  if (tile.hybrid_coder != nullptr) {
    std::vector<uint8_t> begun(n, 0);
    entropy::BatchWork first;
    first.each = [&](size_t i) {
      if (begun[i] != 0) return;
      begun[i] = 1;
      work.before(i);
    };
    for (size_t r = 0; r < rounds.size(); ++r) {
      tile.ht_block_planes = rounds[r];
      tile.ht_refinement = r == 0;
      MALLAT_RETURN_IF_ERROR(encode_blocks(tile, pool, false, first));
      // In pieces: one block's `after` is small beside the pool's hand-over.
      constexpr int64_t kBlocksAtOnce = 256;
      pool.parallel_for_in_pieces(static_cast<int64_t>(n), kBlocksAtOnce, [&](int64_t i) {
        work.after(static_cast<size_t>(i), r, tile.coded[static_cast<size_t>(i)]);
      });
    }
    return Status::Ok();
  }
  for (const EncodeBlock& b : tile.blocks) {
    if (entropy::block_coder_kind(b.style) != entropy::BlockCoderKind::kHt)
      return unsupported("code-blocks coded again at chosen planes that are not HT code-blocks");
  }
  // On the CPU a block's rounds follow one another on one thread, its
  // samples in that core's cache, and the pool is not drained between
  // rounds.
  return pool.parallel_for_status(static_cast<int64_t>(n), [&](int64_t k) {
    const auto i = static_cast<size_t>(k);
    bool begun = false;
    for (size_t r = 0; r < rounds.size(); ++r) {
      entropy::EncodedCodeBlock coded;
      const std::optional<entropy::BlockToEncode> b = block_at_plane(tile, i, rounds[r][i], r == 0);
      if (b) {
        if (!begun) work.before(i);
        begun = true;
        MALLAT_ASSIGN_OR_RETURN(coded, entropy::encode_block_here(*b));
      } else {
        coded.zero_bitplanes = tile.blocks[i].num_bitplanes;
      }
      work.after(i, r, coded);
    }
    return Status::Ok();
  });
}

Status decode_blocks(DecodeTile& tile, ThreadPool& pool, bool dequantise, const entropy::BatchWork& beside) {
  // The planes are not zero-filled: each block writes all its samples
  // (zeros where it has no passes), and when the blocks tile a plane, as
  // Annex B's partition does, they write every sample. A plane they do not
  // cover keeps zeros where none lies (int32 0 and float 0 are the same
  // bytes). A region decode's blocks go to its band buffers, which hold
  // those blocks alone (tile_buffers.h).
  if (tile.windows.empty()) {
    std::vector<int64_t> covered(tile.planes.size(), 0);
    for (const DecodeBlock& b : tile.blocks) {
      if (b.place.inside(tile.planes[b.place.component]))
        covered[b.place.component] += b.place.width * b.place.height;
    }
    for (size_t c = 0; c < tile.planes.size(); ++c) {
      TilePlane& plane = tile.planes[c];
      if (covered[c] != static_cast<int64_t>(plane.count())) std::fill_n(plane.ints().data, plane.count(), 0);
    }
  }
  // The batch: blocks with passes and no error yet. Blocks without passes
  // are zero-filled beside it.
  std::vector<size_t> batched, zero;
  std::vector<entropy::BlockToDecode> batch;
  std::vector<entropy::DecodedBlock> out;
  for (size_t i = 0; i < tile.blocks.size(); ++i) {
    DecodeBlock& b = tile.blocks[i];
    if (!b.status.ok()) continue;
    if (b.coded.num_passes == 0) {
      if (b.place.inside(tile.block_plane(b.place))) zero.push_back(i);
      continue;
    }
    batched.push_back(i);
    batch.push_back(b.coded);
    out.push_back({b.place.in(tile.block_plane(b.place).ints()), {}, Status::Ok()});
  }
  const int64_t own = beside.item ? beside.items : 0;
  entropy::BatchWork work;
  work.items = own + static_cast<int64_t>(zero.size());
  work.item = [&](int64_t i) {
    if (i < own) {
      beside.item(i);
      return;
    }
    const DecodeBlock& b = tile.blocks[zero[i - own]];
    const PlaneView<int32_t> samples = b.place.in(tile.block_plane(b.place).ints());
    for (int64_t y = 0; y < samples.height; ++y) std::fill_n(samples.row(y), samples.width, 0);
  };
  if (dequantise) {
    work.each = [&](size_t k) {
      tile.blocks[batched[k]].info = out[k].info;
      dequantise_block(tile, batched[k]);
    };
  }
  MALLAT_RETURN_IF_ERROR(decode_by_coder(batch, out, pool, work, tile.hybrid_decoder));
  for (size_t k = 0; k < batched.size(); ++k) {
    DecodeBlock& b = tile.blocks[batched[k]];
    b.info = out[k].info;
    b.status = out[k].status;
  }
  // The first failure in block order: an error found before decoding as it
  // is, a block decoder's with the block named.
  size_t k = 0;
  for (size_t i = 0; i < tile.blocks.size(); ++i) {
    const bool decoded = k < batched.size() && batched[k] == i;
    if (decoded) ++k;
    const Status& s = tile.blocks[i].status;
    if (s.ok()) continue;
    return decoded && tile.describe_block ? s.with_context(tile.describe_block(i)) : s;
  }
  return Status::Ok();
}

}  // namespace mallat::codec

#include "entropy/cpu_block_coder.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace mallat::entropy::detail {
namespace {

class CpuBlockEncoder final : public BlockEncoder {
 public:
  CpuBlockEncoder(std::string name, EncodeOneBlock encode) : name_(std::move(name)), encode_(encode) {}
  std::string name() const override { return name_; }

  Status encode(std::span<const BlockToEncode> blocks, std::span<EncodedCodeBlock> out, ThreadPool& pool,
                const BatchWork& work) override {
    if (out.size() != blocks.size()) return invalid_argument("block encoder: one output per block");
    const int64_t items = work.item ? work.items : 0;
    // The beside items never fail, so the lowest failed item is the first
    // failed block.
    return pool.parallel_for_status(items + static_cast<int64_t>(blocks.size()), [&](int64_t i) {
      if (i < items) {
        work.item(i);
        return Status::Ok();
      }
      const auto k = static_cast<size_t>(i - items);
      if (work.each) work.each(k);
      auto coded = encode_(blocks[k]);
      if (!coded.ok()) return coded.status();
      out[k] = std::move(coded).value();
      return Status::Ok();
    });
  }

 private:
  std::string name_;
  EncodeOneBlock encode_;
};

// The next block's compressed bytes towards the cache while this one
// decodes: a thread takes the blocks mostly in order, and a block's coder
// starts at both ends of its data (the HT cleanup's MagSgn from the front,
// its MEL and VLC from the back), each a miss to memory otherwise. A hint
// only: up to kPrefetchBytes from the front of each piece and its last line.
void prefetch_pieces(const BlockToDecode& b) {
  constexpr size_t kPrefetchBytes = 4096, kLine = 64;
  for (std::span<const uint8_t> piece : b.pieces) {
    if (piece.empty()) continue;
    const size_t front = std::min(piece.size(), kPrefetchBytes);
    for (size_t i = 0; i < front; i += kLine) __builtin_prefetch(piece.data() + i);
    __builtin_prefetch(piece.data() + piece.size() - 1);
  }
}

class CpuBlockDecoder final : public BlockDecoder {
 public:
  CpuBlockDecoder(std::string name, DecodeOneBlock decode) : name_(std::move(name)), decode_(decode) {}
  std::string name() const override { return name_; }

  Status decode(std::span<const BlockToDecode> blocks, std::span<DecodedBlock> out, ThreadPool& pool,
                const BatchWork& work) override {
    if (out.size() != blocks.size()) return invalid_argument("block decoder: one output per block");
    for_blocks_and_items(pool, blocks.size(), work, [&](size_t k) {
      if (k + 1 < blocks.size()) prefetch_pieces(blocks[k + 1]);
      DecodedBlock& o = out[k];
      auto info = decode_(joined_input(blocks[k]), o.samples);
      if (!info.ok()) {
        o.status = info.status();
        return;
      }
      o.info = *info;
      o.status = Status::Ok();
      if (work.each) work.each(k);
    });
    return Status::Ok();
  }

 private:
  std::string name_;
  DecodeOneBlock decode_;
};

}  // namespace

CodeBlockToDecode joined_input(const BlockToDecode& b) {
  CodeBlockToDecode in;
  thread_local std::vector<uint8_t> joined;
  if (b.pieces.size() == 1) {
    in.data = b.pieces[0];
  } else {
    joined.clear();
    for (std::span<const uint8_t> piece : b.pieces) joined.insert(joined.end(), piece.begin(), piece.end());
    in.data = joined;
  }
  in.segment_lengths = b.segment_lengths;
  in.num_passes = b.num_passes;
  in.zero_bitplanes = b.zero_bitplanes;
  in.num_bitplanes = b.num_bitplanes;
  in.orientation = b.orientation;
  in.style = b.style;
  return in;
}

void for_blocks_and_items(ThreadPool& pool, size_t blocks, const BatchWork& work,
                          const std::function<void(size_t)>& block) {
  const int64_t items = work.item ? work.items : 0;
  pool.parallel_for(items + static_cast<int64_t>(blocks), [&](int64_t i) {
    if (i < items) {
      work.item(i);
      return;
    }
    block(static_cast<size_t>(i - items));
  });
}

EncodeOneBlock one_block_encoder(BlockCoderKind coder) {
  return coder == BlockCoderKind::kHt ? encode_ht_block : encode_ebcot_block;
}
DecodeOneBlock one_block_decoder(BlockCoderKind coder) {
  return coder == BlockCoderKind::kHt ? decode_ht_block : decode_ebcot_block;
}

void decode_one_block(DecodeOneBlock decode, const BlockToDecode& b, DecodedBlock& out) {
  Result<DecodedCodeBlockInfo> info = decode(joined_input(b), out.samples);
  out.status = info.status();
  if (info.ok()) out.info = *info;
}

std::unique_ptr<BlockEncoder> make_cpu_block_encoder(std::string name, EncodeOneBlock encode) {
  return std::make_unique<CpuBlockEncoder>(std::move(name), encode);
}
std::unique_ptr<BlockDecoder> make_cpu_block_decoder(std::string name, DecodeOneBlock decode) {
  return std::make_unique<CpuBlockDecoder>(std::move(name), decode);
}

}  // namespace mallat::entropy::detail

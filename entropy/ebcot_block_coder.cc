// The Part 1 block coder (Annex D) behind the BlockEncoder / BlockDecoder
// interface: encode_code_block and decode_code_block, one code-block per
// item of the thread pool, with the caller's per-block work on the same
// thread right before (encoding) or after (decoding), while the block's
// samples are in cache.
#include <utility>
#include <vector>

#include "entropy/block_coder.h"

namespace mallat::entropy {
namespace {

class EbcotBlockEncoder final : public BlockEncoder {
 public:
  std::string name() const override { return "ebcot"; }

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
      const BlockToEncode& b = blocks[k];
      auto coded = encode_code_block(b.coefficients, b.orientation, b.num_bitplanes, b.style, b.fraction_bits);
      if (!coded.ok()) return coded.status();
      out[k] = std::move(coded).value();
      return Status::Ok();
    });
  }
};

class EbcotBlockDecoder final : public BlockDecoder {
 public:
  std::string name() const override { return "ebcot"; }

  Status decode(std::span<const BlockToDecode> blocks, std::span<DecodedBlock> out, ThreadPool& pool,
                const BatchWork& work) override {
    if (out.size() != blocks.size()) return invalid_argument("block decoder: one output per block");
    const int64_t items = work.item ? work.items : 0;
    pool.parallel_for(items + static_cast<int64_t>(blocks.size()), [&](int64_t i) {
      if (i < items) {
        work.item(i);
        return;
      }
      const auto k = static_cast<size_t>(i - items);
      DecodedBlock& o = out[k];
      auto info = decode_code_block(input(blocks[k]), o.samples);
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
  // decode_code_block takes the bytes in one piece: a block that several
  // packets contributed to is joined in a buffer of the thread's own.
  static CodeBlockToDecode input(const BlockToDecode& b) {
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
};

}  // namespace

std::unique_ptr<BlockEncoder> make_ebcot_block_encoder() { return std::make_unique<EbcotBlockEncoder>(); }
std::unique_ptr<BlockDecoder> make_ebcot_block_decoder() { return std::make_unique<EbcotBlockDecoder>(); }

}  // namespace mallat::entropy

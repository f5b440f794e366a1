// The CPU block coders' common frame (entropy/ebcot/block_coder.cc,
// entropy/ht/block_coder.cc): a batch spread over the thread pool one code-block per
// item, the caller's per-block work on the same thread right before
// (encoding) or after (decoding) it, while the block's samples are in
// cache, and the beside items first. Internal.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "entropy/block_coder.h"

namespace mallat::entropy::detail {

// Codes one block; only impossible parameters fail.
using EncodeOneBlock = Result<EncodedCodeBlock> (*)(const BlockToEncode& block);
// Decodes one block whose codeword pieces are joined in `in.data`.
using DecodeOneBlock = Result<DecodedCodeBlockInfo> (*)(const CodeBlockToDecode& in, PlaneView<int32_t> out);

// The coders take the bytes in one piece: `b` as they take it, the pieces
// of a block that several packets contributed to joined in a buffer of the
// thread's own (valid until its next call on the thread).
CodeBlockToDecode joined_input(const BlockToDecode& b);

// Runs `work`'s beside items, then block(k) for every k < blocks, as one
// parallel_for on `pool` (the device coder gathers its blocks this way).
void for_blocks_and_items(ThreadPool& pool, size_t blocks, const BatchWork& work,
                          const std::function<void(size_t)>& block);

// Each coder's one block (entropy/ebcot/block_coder.cc, entropy/ht/block_coder.cc),
// and the one block of `coder`: what its CPU coder runs per item, for the
// hybrid coders' CPU side.
Result<EncodedCodeBlock> encode_ebcot_block(const BlockToEncode& block);
Result<DecodedCodeBlockInfo> decode_ebcot_block(const CodeBlockToDecode& in, PlaneView<int32_t> out);
Result<EncodedCodeBlock> encode_ht_block(const BlockToEncode& block);
Result<DecodedCodeBlockInfo> decode_ht_block(const CodeBlockToDecode& in, PlaneView<int32_t> out);
EncodeOneBlock one_block_encoder(BlockCoderKind coder);
DecodeOneBlock one_block_decoder(BlockCoderKind coder);

// `decode` on `b` (its pieces joined) into `out`: samples, info and status,
// as the CPU decoder leaves them.
void decode_one_block(DecodeOneBlock decode, const BlockToDecode& b, DecodedBlock& out);

std::unique_ptr<BlockEncoder> make_cpu_block_encoder(std::string name, EncodeOneBlock encode);
std::unique_ptr<BlockDecoder> make_cpu_block_decoder(std::string name, DecodeOneBlock decode);

}  // namespace mallat::entropy::detail

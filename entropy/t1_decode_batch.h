// The host side of a Tier-1 decoding batch for a device, in plain C++ so
// that CI tests it without a GPU (tests/entropy/hybrid_block_decoder_test.cc):
// where each code-block's codeword bytes, segment lengths and samples go in
// the batch's three buffers (T1DecodeJob, read by entropy/cuda/
// entropy/cuda/ebcot/decode_kernel.cuh), and how a block the device decoded becomes the
// DecodedBlock that decode_code_block would give.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"
#include "entropy/block_coder.h"
#include "entropy/t1_device_job.h"
#include "entropy/ebcot/shared_decoder.h"

namespace mallat::entropy {

// A batch's jobs and the bytes, segment lengths and samples they need.
struct T1DecodeBatchLayout {
  BlockCoderKind coder = BlockCoderKind::kEbcot;
  std::vector<T1DecodeJob> jobs;
  size_t bytes = 0;
  size_t segments = 0;
  size_t samples = 0;
};

// Jobs for `blocks` (all of one coder, EBCOT or HT) decoding into `out`'s
// sizes, packed one after another in block order. An error for a block of
// another coder than the first's or a batch past the jobs' 32-bit offsets.
Result<T1DecodeBatchLayout> lay_out_t1_decode_batch(std::span<const BlockToDecode> blocks,
                                                    std::span<const DecodedBlock> out);

// Copies block `k`'s pieces (joined) and segment lengths to its job's
// places in `bytes` and `segments`.
void gather_t1_decode_block(const BlockToDecode& block, const T1DecodeJob& job, uint8_t* bytes,
                            uint32_t* segments);

// Block `block` as the device left it: `result` and the job's samples
// (width x height from `samples`) into `out` (its samples, info and status).
// A block the device rejected is decoded again by its coder's CPU decoder,
// whose error (what and why) it then carries.
void finish_device_decoded_block(const BlockToDecode& block, const SharedT1DecodeResult& result,
                                 const int32_t* samples, DecodedBlock& out);

// The block's coder's CPU decoder on `block` into `out`, its pieces joined
// (cpu_block_coder.cc); for the CPU side of a hybrid batch.
void decode_block_on_cpu(const BlockToDecode& block, DecodedBlock& out);

}  // namespace mallat::entropy

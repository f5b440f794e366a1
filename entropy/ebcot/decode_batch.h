// The host side of a Tier-1 decoding batch for a device, in plain C++ so
// that CI tests it without a GPU (tests/entropy/hybrid_block_decoder_test.cc):
// where each code-block's codeword bytes, segment lengths and samples go in
// the batch's three buffers (EbcotDecodeJob, read by entropy/cuda/
// entropy/cuda/ebcot/decode_kernel.cuh), and how a block the device decoded becomes the
// DecodedBlock that decode_code_block would give.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"
#include "entropy/block_coder.h"
#include "entropy/ebcot/device_job.h"
#include "entropy/ebcot/shared_decoder.h"

namespace mallat::entropy {

// A batch's jobs and the bytes, segment lengths and samples they need.
struct EbcotDecodeBatchLayout {
  std::vector<EbcotDecodeJob> jobs;
  size_t bytes = 0;
  size_t segments = 0;
  size_t samples = 0;
};

// Jobs for `blocks` (all Part 1) decoding into `out`'s sizes, packed one
// after another in block order. An error for an HT block or a batch past
// the jobs' 32-bit offsets.
Result<EbcotDecodeBatchLayout> lay_out_ebcot_decode_batch(std::span<const BlockToDecode> blocks,
                                                    std::span<const DecodedBlock> out);

// Copies block `k`'s pieces (joined) and segment lengths to its job's
// places in `bytes` and `segments`.
void gather_ebcot_decode_block(const BlockToDecode& block, const EbcotDecodeJob& job, uint8_t* bytes,
                            uint32_t* segments);

// Block `block` as the device left it: `result` and the job's samples
// (width x height from `samples`) into `out` (its samples, info and status).
// A block the device rejected is decoded again by decode_code_block, whose
// error (what and why) it then carries.
void finish_device_decoded_block(const BlockToDecode& block, const SharedT1DecodeResult& result,
                                 const int32_t* samples, DecodedBlock& out);

// decode_code_block on `block` into `out`, its pieces joined (the CPU coder's
// way, cpu_block_coder.cc); for the CPU side of a hybrid batch.
void decode_block_on_cpu(const BlockToDecode& block, DecodedBlock& out);

}  // namespace mallat::entropy

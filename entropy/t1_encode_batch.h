// The host side of a Tier-1 batch for a device coder, in plain C++ so that
// CI tests it without a GPU (tests/entropy/t1_device_batch_test.cc): where
// each code-block's coefficients go in the one upload buffer and what its
// job says (T1DeviceJob, read by the kernel of entropy/cuda/), how large each
// block's output slot is, and how a slot the device filled becomes the
// EncodedCodeBlock that encode_code_block would give.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"
#include "entropy/block_coder.h"
#include "entropy/t1_device_job.h"
#include "entropy/ebcot/shared_encoder.h"

namespace mallat::entropy {

// A batch's jobs, the coefficients they need in all and the bytes of each
// output slot; all its blocks are of one coder.
struct T1DeviceBatchLayout {
  BlockCoderKind coder = BlockCoderKind::kEbcot;
  std::vector<T1DeviceJob> jobs;
  size_t coefficients = 0;
  uint32_t slot_capacity = 0;
};

// The output slot a block of `samples` samples and `planes` coded
// bit-planes gets: the bits of its magnitudes and signs, plus room for each
// pass's termination and the slot's two spare bytes. The MQ coder rarely writes
// more than the raw bits; a block that does overflows its slot and is coded
// again on the CPU (finish_device_block), so the bound only has to be good,
// not certain.
uint32_t ebcot_slot_capacity(size_t samples, int planes);

// Jobs for `blocks` (all of one coder, EBCOT or HT), packed one after another
// in block order. A block the device cannot take (shape outside A.6.1, Mb + F
// above 31, another coder than the first block's, HT settings the CPU coder
// refuses) is an error naming it.
Result<T1DeviceBatchLayout> lay_out_t1_batch(std::span<const BlockToEncode> blocks);

// Copies block `k`'s coefficients to its job's place in `buffer` (which has
// layout.coefficients values), row after row without stride.
void gather_t1_block(const BlockToEncode& block, const T1DeviceJob& job, int32_t* buffer);

// A device's output for one block as encode_code_block returns it: its
// result, its kMaxCodingPasses pass slots and its byte slot of
// `slot_capacity` bytes (the bytes from slot + 1, entropy/ebcot/shared_encoder.h); a
// failed block is an error saying what the device said.
Result<EncodedCodeBlock> encoded_from_slot(const SharedT1Result& result, const CodingPass* passes,
                                           const uint8_t* slot, uint32_t slot_capacity);

// Block `block` as the device left it (encoded_from_slot): its result, its kMaxCodingPasses pass
// slots and its byte slot of `slot_capacity` bytes (the bytes from slot + 1,
// entropy/ebcot/shared_encoder.h). A slot too small for the block is coded again by
// encode_code_block, which gives the same bytes; any other failure is an
// error naming what the device said.
Result<EncodedCodeBlock> finish_device_block(const BlockToEncode& block, const SharedT1Result& result,
                                             const CodingPass* passes, const uint8_t* slot,
                                             uint32_t slot_capacity);

// Where a packed batch's blocks lie (packed_bytes, packed_passes of
// entropy/ebcot/shared_encoder.h, in job order): block i's bytes from byte_offset[i]
// and its passes from pass_offset[i]; each offset array has one more entry,
// the totals.
struct T1PackedLayout {
  std::vector<uint64_t> byte_offset, pass_offset;
};
void lay_out_t1_packed(std::span<const SharedT1Result> results, T1PackedLayout& layout);

// finish_device_block for a packed batch: a coded block's packed_bytes at
// `bytes` and packed_passes at `passes`.
Result<EncodedCodeBlock> finish_packed_device_block(const BlockToEncode& block, const SharedT1Result& result,
                                                    const CodingPass* passes, const uint8_t* bytes);

}  // namespace mallat::entropy

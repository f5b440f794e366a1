#include "entropy/ebcot/encode_batch.h"

#include <algorithm>
#include <string>

#include "entropy/device_coders.h"

namespace mallat::entropy {

uint32_t ebcot_slot_capacity(size_t samples, int planes) {
  // A magnitude bit per sample and plane and a sign bit per sample; per
  // pass 8 bytes for a termination (D.4: TERMALL ends every pass, the lazy
  // passes' raw segments each end on a byte, the MQ flush writes up to 5);
  // and 16 for the slot's spare bytes.
  const size_t p = static_cast<size_t>(std::max(planes, 0));
  const size_t bits = samples * (p + 1);
  return static_cast<uint32_t>((bits + 7) / 8 + 8 * 3 * p + 16);
}

Result<EbcotDeviceBatchLayout> lay_out_ebcot_batch(std::span<const BlockToEncode> blocks) {
  EbcotDeviceBatchLayout layout;
  layout.jobs.resize(blocks.size());
  size_t largest = 0;
  for (size_t k = 0; k < blocks.size(); ++k) {
    const BlockToEncode& b = blocks[k];
    const int64_t w = b.coefficients.width, h = b.coefficients.height;
    // EBCOT's jobs: another coder's blocks are its own device coder's
    // (entropy/device_coders.h).
    if (const BlockCoderKind coder = block_coder_kind(b.style); coder != BlockCoderKind::kEbcot) {
      return invalid_argument("code-block " + std::to_string(k) + " of an EBCOT device batch is " +
                              block_coder_name(coder));
    }
    if (w < 1 || h < 1 || w > kMaxCodeBlockSide || h > kMaxCodeBlockSide || w * h > kMaxCodeBlockSamples) {
      return invalid_argument("code-block " + std::to_string(k) + " of a Tier-1 device batch: " + std::to_string(w) +
                              "x" + std::to_string(h) + " is outside A.6.1 (sides 1..1024, at most 4096 samples)");
    }
    if (b.num_bitplanes < 0 || b.fraction_bits < 0 || b.num_bitplanes + b.fraction_bits > kMaxBitPlanes) {
      return invalid_argument("code-block " + std::to_string(k) + " of a Tier-1 device batch: Mb " +
                              std::to_string(b.num_bitplanes) + " with " + std::to_string(b.fraction_bits) +
                              " fraction bits (at most 31 together)");
    }
    EbcotDeviceJob& job = layout.jobs[k];
    job.coefficient_offset = layout.coefficients;
    job.width = static_cast<uint16_t>(w);
    job.height = static_cast<uint16_t>(h);
    job.orientation = static_cast<uint8_t>(b.orientation);
    job.num_bitplanes = static_cast<uint8_t>(b.num_bitplanes);
    job.style = b.style.to_byte();
    job.fraction_bits = static_cast<uint8_t>(b.fraction_bits);
    layout.coefficients += static_cast<size_t>(w * h);
    largest = std::max<size_t>(largest, ebcot_slot_capacity(static_cast<size_t>(w * h), b.num_bitplanes));
  }
  layout.slot_capacity = static_cast<uint32_t>(std::max<size_t>(largest, 64));
  return layout;
}

void gather_ebcot_block(const BlockToEncode& block, const EbcotDeviceJob& job, int32_t* buffer) {
  int32_t* out = buffer + job.coefficient_offset;
  const PlaneView<const int32_t>& in = block.coefficients;
  for (int64_t y = 0; y < in.height; ++y) {
    const int32_t* row = in.row(y);
    std::copy(row, row + in.width, out + y * in.width);
  }
}

namespace {

// A coded block's `result.length` bytes at `bytes` and its passes as an
// EncodedCodeBlock (the caller checked the result).
EncodedCodeBlock coded_block(const SharedT1Result& result, const CodingPass* passes, const uint8_t* bytes) {
  EncodedCodeBlock e;
  e.data.assign(bytes, bytes + result.length);
  e.zero_bitplanes = result.zero_bitplanes;
  e.num_passes = result.num_passes;
  e.passes.assign(passes, passes + result.num_passes);
  return e;
}

// A block whose bytes overflowed its slot, coded again on the CPU (the
// same bytes the device would have given).
Result<EncodedCodeBlock> code_again(const BlockToEncode& block) {
  return encode_code_block(block.coefficients, block.orientation, block.num_bitplanes, block.style,
                           block.fraction_bits);
}

}  // namespace

Result<EncodedCodeBlock> encoded_from_slot(const SharedT1Result& result, const CodingPass* passes,
                                           const uint8_t* slot, uint32_t slot_capacity) {
  if (result.status != SharedT1Status::kOk) {
    return invalid_argument(std::string("Tier-1 on the device: ") + shared_t1_status_text(result.status) + " (slot of " +
                            std::to_string(slot_capacity) + " bytes)");
  }
  if (result.length + 2 > slot_capacity || result.num_passes < 0 || result.num_passes > kMaxCodingPasses) {
    return invalid_argument("Tier-1 on the device: a result of " + std::to_string(result.length) + " bytes and " +
                            std::to_string(result.num_passes) + " passes does not fit its slot of " +
                            std::to_string(slot_capacity) + " bytes");
  }
  return coded_block(result, passes, slot + 1);
}

Result<EncodedCodeBlock> finish_device_block(const BlockToEncode& block, const SharedT1Result& result,
                                             const CodingPass* passes, const uint8_t* slot,
                                             uint32_t slot_capacity) {
  if (result.status == SharedT1Status::kOutputOverflow) return code_again(block);
  return encoded_from_slot(result, passes, slot, slot_capacity);
}

void lay_out_ebcot_packed(std::span<const SharedT1Result> results, EbcotPackedLayout& layout) {
  layout.byte_offset.resize(results.size() + 1);
  layout.pass_offset.resize(results.size() + 1);
  uint64_t bytes = 0, passes = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    layout.byte_offset[i] = bytes;
    layout.pass_offset[i] = passes;
    bytes += packed_bytes(results[i]);
    passes += packed_passes(results[i]);
  }
  layout.byte_offset.back() = bytes;
  layout.pass_offset.back() = passes;
}

Result<EncodedCodeBlock> finish_packed_device_block(const BlockToEncode& block, const SharedT1Result& result,
                                                    const CodingPass* passes, const uint8_t* bytes) {
  if (result.status == SharedT1Status::kOutputOverflow) return code_again(block);
  if (result.status != SharedT1Status::kOk) {
    return invalid_argument(std::string("Tier-1 on the device: ") + shared_t1_status_text(result.status));
  }
  if (result.num_passes < 0 || result.num_passes > kMaxCodingPasses) {
    return invalid_argument("Tier-1 on the device: a result of " + std::to_string(result.num_passes) + " passes");
  }
  // A coded block's packed_bytes and packed_passes are its length and passes.
  return coded_block(result, passes, bytes);
}

}  // namespace mallat::entropy

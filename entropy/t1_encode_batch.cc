#include "entropy/t1_encode_batch.h"

#include <algorithm>
#include <string>

#include "entropy/cpu_block_coder.h"
#include "entropy/device_coders.h"
#include "entropy/ht/shared_code_block.h"

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

Result<T1DeviceBatchLayout> lay_out_t1_batch(std::span<const BlockToEncode> blocks) {
  T1DeviceBatchLayout layout;
  layout.jobs.resize(blocks.size());
  if (!blocks.empty()) layout.coder = block_coder_kind(blocks[0].style);
  size_t largest = 0;
  for (size_t k = 0; k < blocks.size(); ++k) {
    const BlockToEncode& b = blocks[k];
    const int64_t w = b.coefficients.width, h = b.coefficients.height;
    if (const BlockCoderKind coder = block_coder_kind(b.style); coder != layout.coder) {
      return invalid_argument("code-block " + std::to_string(k) + " of an " + block_coder_name(layout.coder) +
                              " device batch is " + block_coder_name(coder));
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
    const bool ht = layout.coder == BlockCoderKind::kHt;
    if (ht && b.ht_lowering_share >= 0) {
      return invalid_argument("code-block " + std::to_string(k) +
                              " of an HT device batch asks for its own lowering share (the CPU coder's alone)");
    }
    if (ht && (b.ht_cleanup_plane < 0 || (b.num_bitplanes > 0 && b.ht_cleanup_plane >= b.num_bitplanes) ||
               (b.ht_refinement && b.ht_cleanup_plane == 0))) {
      return invalid_argument("code-block " + std::to_string(k) + " of an HT device batch: cleanup plane " +
                              std::to_string(b.ht_cleanup_plane) + (b.ht_refinement ? " with refinement" : "") +
                              " for Mb = " + std::to_string(b.num_bitplanes));
    }
    if (b.pass_limit < 0 || (ht && b.pass_limit != 0)) {
      return invalid_argument("code-block " + std::to_string(k) + " of a Tier-1 device batch: pass limit " +
                              std::to_string(b.pass_limit) + " (Part 1 blocks only, 0 for none)");
    }
    T1DeviceJob& job = layout.jobs[k];
    job.coefficient_offset = layout.coefficients;
    job.width = static_cast<uint16_t>(w);
    job.height = static_cast<uint16_t>(h);
    job.orientation = static_cast<uint8_t>(b.orientation);
    job.num_bitplanes = static_cast<uint8_t>(b.num_bitplanes);
    job.style = b.style.to_byte();
    job.fraction_bits = static_cast<uint8_t>(b.fraction_bits);
    // (A limit at or past every pass a block can have is none.)
    job.pass_limit = static_cast<uint8_t>(b.pass_limit < kMaxCodingPasses ? b.pass_limit : 0);
    job.ht_cleanup_plane = static_cast<uint8_t>(ht ? b.ht_cleanup_plane : 0);
    job.ht_flags =
        static_cast<uint8_t>((b.ht_refinement ? kHtRefinement : 0) | (b.distortions ? kHtDistortions : 0));
    layout.coefficients += static_cast<size_t>(w * h);
    // An HT block's slot holds its worst case (shared_code_block.h), so it
    // never overflows.
    const auto samples = static_cast<size_t>(w * h);
    largest = std::max<size_t>(largest, ht ? ht_slot_capacity(static_cast<uint32_t>(samples),
                                                               b.num_bitplanes + b.fraction_bits)
                                           : ebcot_slot_capacity(samples, b.num_bitplanes));
  }
  layout.slot_capacity = static_cast<uint32_t>(std::max<size_t>(largest, 64));
  return layout;
}

void gather_t1_block(const BlockToEncode& block, const T1DeviceJob& job, int32_t* buffer) {
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
  e.cut = result.cut;
  e.exact_passes = result.exact_passes;
  return e;
}

// A block whose bytes overflowed its slot, coded again by its coder on the
// CPU (the same bytes the device would have given).
Result<EncodedCodeBlock> code_again(const BlockToEncode& block) {
  return detail::one_block_encoder(block_coder_kind(block.style))(block);
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

void lay_out_t1_packed(std::span<const SharedT1Result> results, T1PackedLayout& layout) {
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

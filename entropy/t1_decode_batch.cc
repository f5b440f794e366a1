#include "entropy/t1_decode_batch.h"

#include <algorithm>
#include <limits>
#include <string>

#include "entropy/cpu_block_coder.h"
#include "entropy/device_coders.h"

namespace mallat::entropy {

Result<T1DecodeBatchLayout> lay_out_t1_decode_batch(std::span<const BlockToDecode> blocks,
                                                    std::span<const DecodedBlock> out) {
  if (out.size() != blocks.size()) return invalid_argument("a Tier-1 decoding batch and its outputs differ in size");
  T1DecodeBatchLayout layout;
  layout.jobs.resize(blocks.size());
  if (!blocks.empty()) layout.coder = block_coder_kind(blocks[0].style);
  for (size_t k = 0; k < blocks.size(); ++k) {
    const BlockToDecode& b = blocks[k];
    if (const BlockCoderKind coder = block_coder_kind(b.style); coder != layout.coder) {
      return invalid_argument("code-block " + std::to_string(k) + " of an " + block_coder_name(layout.coder) +
                              " device batch is " + block_coder_name(coder));
    }
    size_t length = 0;
    for (std::span<const uint8_t> piece : b.pieces) length += piece.size();
    if (length > std::numeric_limits<uint32_t>::max() ||
        layout.segments + b.segment_lengths.size() > std::numeric_limits<uint32_t>::max()) {
      return invalid_argument("code-block " + std::to_string(k) + " of a Tier-1 device batch: more than 4 GB");
    }
    const int64_t w = out[k].samples.width, h = out[k].samples.height;
    const bool shape_ok = w >= 1 && h >= 1 && w <= kMaxCodeBlockSide && h <= kMaxCodeBlockSide;
    T1DecodeJob& job = layout.jobs[k];
    job.byte_offset = layout.bytes;
    job.sample_offset = layout.samples;
    job.length = static_cast<uint32_t>(length);
    job.segment_offset = static_cast<uint32_t>(layout.segments);
    job.num_segments = static_cast<uint32_t>(b.segment_lengths.size());
    job.num_passes = b.num_passes;
    job.zero_bitplanes = b.zero_bitplanes;
    job.num_bitplanes = b.num_bitplanes;
    job.width = static_cast<uint16_t>(shape_ok ? w : 0);
    job.height = static_cast<uint16_t>(shape_ok ? h : 0);
    job.orientation = static_cast<uint8_t>(b.orientation);
    job.style = b.style.to_byte();
    layout.bytes += length;
    layout.segments += b.segment_lengths.size();
    layout.samples += shape_ok ? static_cast<size_t>(w * h) : 0;
  }
  return layout;
}

void gather_t1_decode_block(const BlockToDecode& block, const T1DecodeJob& job, uint8_t* bytes, uint32_t* segments) {
  uint8_t* at = bytes + job.byte_offset;
  for (std::span<const uint8_t> piece : block.pieces) at = std::copy(piece.begin(), piece.end(), at);
  std::copy(block.segment_lengths.begin(), block.segment_lengths.end(), segments + job.segment_offset);
}

void decode_block_on_cpu(const BlockToDecode& b, DecodedBlock& out) {
  detail::decode_one_block(detail::one_block_decoder(block_coder_kind(b.style)), b, out);
}

void finish_device_decoded_block(const BlockToDecode& block, const SharedT1DecodeResult& result,
                                 const int32_t* samples, DecodedBlock& out) {
  if (result.status != SharedT1DecodeStatus::kOk) {
    decode_block_on_cpu(block, out);
    return;
  }
  const PlaneView<int32_t>& s = out.samples;
  for (int64_t y = 0; y < s.height; ++y) std::copy(samples + y * s.width, samples + (y + 1) * s.width, s.row(y));
  out.info.lowest_plane = result.lowest_plane;
  out.info.ended_in_significance_pass = result.ended_in_significance_pass;
  out.status = Status::Ok();
}

}  // namespace mallat::entropy

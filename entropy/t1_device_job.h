// One code-block of a Tier-1 device batch as the kernels read it, either
// coder's (entropy/cuda/ebcot/ and entropy/cuda/ht/, encode_kernel.cuh and
// decode_kernel.cuh; a batch is all of one coder); the host lays jobs out in
// entropy/t1_encode_batch.h and entropy/t1_decode_batch.h. Plain data, no CUDA.
#pragma once

#include <cstdint>

namespace mallat::entropy {

// One code-block of a device batch: its samples are `width` x `height`, row
// after row, from `coefficient_offset` in the batch's coefficient buffer.
struct T1DeviceJob {
  uint64_t coefficient_offset = 0;
  uint16_t width = 0;
  uint16_t height = 0;
  uint8_t orientation = 0;     // BandOrientation
  uint8_t num_bitplanes = 0;   // Mb
  uint8_t style = 0;           // CodeBlockStyle::to_byte()
  uint8_t fraction_bits = 0;
  // HT blocks only (BlockToEncode's ht_* fields): the cleanup pass's plane,
  // and kHtRefinement / kHtDistortions.
  uint8_t ht_cleanup_plane = 0;
  uint8_t ht_flags = 0;
};
inline constexpr uint8_t kHtRefinement = 1;
inline constexpr uint8_t kHtDistortions = 2;

// One code-block of a device decoding batch (entropy/cuda/
// entropy/cuda/ebcot/decode_kernel.cuh; laid out by entropy/t1_decode_batch.h): its bytes, its
// codeword segment lengths and its samples at their offsets in the batch's
// buffers, and BlockToDecode's numbers. Sizes outside A.6.1 are kept as 0,
// which the kernel rejects as decode_code_block does.
struct T1DecodeJob {
  uint64_t byte_offset = 0;
  uint64_t sample_offset = 0;
  uint32_t length = 0;
  uint32_t segment_offset = 0;
  uint32_t num_segments = 0;
  int32_t num_passes = 0;
  int32_t zero_bitplanes = 0;  // P
  int32_t num_bitplanes = 0;   // Mb
  uint16_t width = 0;
  uint16_t height = 0;
  uint8_t orientation = 0;  // BandOrientation
  uint8_t style = 0;        // CodeBlockStyle::to_byte()
};

}  // namespace mallat::entropy

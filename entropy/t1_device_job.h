// One code-block of a Tier-1 device batch as the kernels read it, either
// coder's (entropy/cuda/ebcot/ and entropy/cuda/ht/, encode_kernel.cuh and
// decode_kernel.cuh; a batch is all of one coder); the host lays jobs out in
// entropy/t1_encode_batch.h and entropy/t1_decode_batch.h. Plain data, no CUDA
// (MALLAT_HD marks what both sides call).
#pragma once

#include <cstdint>

#include "common/host_device.h"

namespace mallat::entropy {

// One code-block of a device batch: its samples are `width` x `height`, from
// `coefficient_offset` in the batch's coefficient buffer, each row `stride`
// samples after the one before (0: `width`, rows packed; the whole-tile
// runner's jobs read a block where it lies in the DWT's output).
struct T1DeviceJob {
  uint64_t coefficient_offset = 0;
  uint32_t stride = 0;
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
  // EBCOT blocks: SharedT1Block::pass_limit (0: every pass).
  uint8_t pass_limit = 0;
};
inline constexpr uint8_t kHtRefinement = 1;
// The samples from a job's row to its next.
MALLAT_HD inline constexpr uint64_t job_stride(const T1DeviceJob& job) { return job.stride ? job.stride : job.width; }
// The samples of the batch's buffer from the job's first to one past its
// last.
MALLAT_HD inline constexpr uint64_t job_span(const T1DeviceJob& job) {
  return job.height == 0 ? 0 : (job.height - 1u) * job_stride(job) + job.width;
}
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

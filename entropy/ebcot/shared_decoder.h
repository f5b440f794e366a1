// The Tier-1 code-block decoder of Annex D as one source for the CPU and the
// GPU (host_device.h), as entropy/ebcot/shared_encoder.h is for encoding: the passes of
// entropy/ebcot/shared_decoder_passes.h and entropy/ebcot/passes.h on the
// fixed-size state T1FixedState, the MQ decoder (C.3, entropy/ebcot/mq_entry_decoder.h) and
// the raw decoder (D.6) bounded by the codeword segment (past its end both
// read 0xFF, as the CPU decoder's do), no allocation, no exceptions. It
// gives what decode_code_block (entropy/ebcot/decoder.cc) gives: the same samples and
// the same DecodedCodeBlockInfo, for every mode switch, several segments
// per block, passes cut anywhere and damaged bytes; and it rejects the
// parameters decode_code_block rejects (a caller then asks decode_code_block
// for its message). The tests hold it to that (tests/entropy/
// t1_shared_decoder_test.cc on the CPU in CI, tests/entropy_cuda on a device).
#pragma once

#include <cstddef>
#include <cstdint>

#include "entropy/code_block_style.h"
#include "entropy/host_device.h"
#include "entropy/ebcot/mq_entry_decoder.h"
#include "entropy/ebcot/raw_coder.h"
#include "entropy/ebcot/ebcot.h"
#include "entropy/ebcot/contexts.h"
#include "entropy/t1_device_job.h"
#include "entropy/ebcot/flags.h"
#include "entropy/ebcot/passes.h"
#include "entropy/ebcot/shared_decoder_passes.h"
#include "entropy/ebcot/schedule.h"
#include "entropy/ebcot/shared_encoder.h"

namespace mallat::entropy {

enum class SharedT1DecodeStatus : uint8_t {
  kOk = 0,
  // The parameters decode_code_block rejects (check_decode_parameters): a
  // size outside A.6.1, Mb outside 0..31, P outside 0..Mb, more passes than
  // the planes allow. Nothing is written.
  kBadParameters,
};

// One code-block to decode: decode_code_block's arguments as plain data.
// The codeword segments are `length` bytes at `data`; `segment_lengths`
// has `num_segments` entries (CodeBlockToDecode::segment_lengths: none
// means one segment holds everything; missing ones are read as empty).
struct SharedT1DecodeBlock {
  const uint8_t* data = nullptr;
  uint32_t length = 0;
  const uint32_t* segment_lengths = nullptr;
  uint32_t num_segments = 0;
  int width = 0;
  int height = 0;
  int num_passes = 0;
  int zero_bitplanes = 0;  // P of B.10.5
  int num_bitplanes = 0;   // Mb
  BandOrientation orientation = BandOrientation::kLL;
  CodeBlockStyle style;
};

// decode_code_block's DecodedCodeBlockInfo, and whether the block decoded.
struct SharedT1DecodeResult {
  int8_t lowest_plane = 0;
  bool ended_in_significance_pass = false;
  SharedT1DecodeStatus status = SharedT1DecodeStatus::kOk;
};

namespace detail {

// The codeword segments in order, never past the data (entropy/ebcot/decoder.cc's
// SegmentReader on plain data).
struct SharedSegmentReader {
  const SharedT1DecodeBlock* block;
  uint32_t offset = 0;
  uint32_t index = 0;

  MALLAT_HD void next(const uint8_t*& data, uint32_t& size) {
    const uint32_t left = block->length - offset;
    uint32_t length = left;  // with no lengths given, one segment holds everything
    if (block->num_segments > 0) {
      length = index < block->num_segments ? block->segment_lengths[index] : 0;
      length = length < left ? length : left;
    }
    ++index;
    data = block->data + offset;
    size = length;
    offset += length;
  }
};

// decode_passes of entropy/ebcot/decoder.cc with the bounded decoders: the
// MQ-coded significance and refinement passes of entropy/ebcot/
// shared_decoder_passes.h, the others of entropy/ebcot/passes.h (which
// decode when their symbol coder decodes).
// kMarked: the passes walk only the columns they have work in
// (for_each_marked_column), as the GPU's kernel asks.
template <bool kVsc, bool kMarked>
MALLAT_HD void decode_shared_passes(const SharedT1DecodeBlock& block, T1FixedState& s, int planes) {
  MqEntryContexts contexts;
  contexts.reset();
  MqEntryDecodeSymbols mq{MqEntryDecoder{}, &contexts};
  RawDecodeSymbols raw{};
  SharedSegmentReader segments{&block};
  const uint8_t* zc_lut = MALLAT_T1_TABLE(kZeroCodingLut)[static_cast<int>(block.orientation)].data();
  bool open = false;
  for (int i = 0; i < block.num_passes; ++i) {
    const PassType type = pass_type(i);
    const bool is_raw = pass_is_raw(block.style, i);
    if (!open) {
      const uint8_t* segment = nullptr;
      uint32_t size = 0;
      segments.next(segment, size);
      if (is_raw) {
        raw.raw.init(segment, size);
      } else {
        mq.mq.init(segment, size);
      }
      open = true;
    }
    run_decoding_pass<kVsc, kMarked>(type, is_raw, mq, raw, s, zc_lut, planes - 1 - pass_plane_offset(i));
    // D.5: SEGMARK's 1010 in UNIFORM after each cleanup pass; a mismatch
    // means corruption, which the decoder conceals by decoding on.
    if (type == PassType::kCleanup && block.style.segmentation_symbols) {
      for (int k = 0; k < 4; ++k) mq.code(kUniformContext, 0);
    }
    if (pass_ends_segment(block.style, i)) open = false;
    if (block.style.reset) contexts.reset();
  }
}

}  // namespace detail

// Whether decode_code_block rejects the block's parameters
// (check_decode_parameters, entropy/ebcot/internal.cc): a size outside
// A.6.1, Mb outside 0..31, P outside 0..Mb, more passes than the planes
// allow (HT's passes count as Part 1's, 15444-15 Annex B).
MALLAT_HD inline bool bad_decode_parameters(const SharedT1DecodeBlock& block) {
  const int w = block.width, h = block.height;
  const int planes = block.num_bitplanes - block.zero_bitplanes;
  const int max_passes = planes > 0 ? 3 * planes - 2 : 0;
  return w < 1 || h < 1 || w > kMaxCodeBlockSide || h > kMaxCodeBlockSide || w * h > kMaxCodeBlockSamples ||
         block.num_bitplanes < 0 || block.num_bitplanes > kMaxBitPlanes || block.zero_bitplanes < 0 || planes < 0 ||
         block.num_passes < 0 || block.num_passes > max_passes;
}

// Decodes one code-block's passes into `s`, its working state (about 40 KB:
// a thread's own), leaving the samples there; `marked`: by the walk of
// marked columns (the same samples). `*in_state`: whether the samples are
// in `s` for write_decoded_samples to write; false where the block has no
// passes (then they are zeros, written here into `samples`, row after row
// `stride` values apart) or its parameters were refused (nothing written).
// The GPU's kernel writes a warp's blocks out of their states together
// (entropy/cuda/ebcot/decode_kernel.cuh).
MALLAT_HD inline SharedT1DecodeResult decode_code_block_to_state(const SharedT1DecodeBlock& block, T1FixedState& s,
                                                                 int32_t* samples, ptrdiff_t stride, bool marked,
                                                                 bool* in_state) {
  *in_state = false;
  SharedT1DecodeResult result;
  const int w = block.width;
  const int h = block.height;
  const int planes = block.num_bitplanes - block.zero_bitplanes;
  if (bad_decode_parameters(block)) {
    result.status = SharedT1DecodeStatus::kBadParameters;
    return result;
  }
  if (block.num_passes == 0) {
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) samples[y * stride + x] = 0;
    }
    result.lowest_plane = static_cast<int8_t>(planes);
    return result;
  }
  s.reset(w, h);
  if (block.style.vertical_causal) {
    if (marked) {
      detail::decode_shared_passes<true, true>(block, s, planes);
    } else {
      detail::decode_shared_passes<true, false>(block, s, planes);
    }
  } else if (marked) {
    detail::decode_shared_passes<false, true>(block, s, planes);
  } else {
    detail::decode_shared_passes<false, false>(block, s, planes);
  }
  const int last = block.num_passes - 1;
  result.lowest_plane = static_cast<int8_t>(planes - 1 - pass_plane_offset(last));
  result.ended_in_significance_pass = pass_type(last) == PassType::kSignificance;
  *in_state = true;
  return result;
}

// Decodes one code-block into `samples` (row after row, `stride` values
// apart) with `s` as its working state; `marked` as above.
MALLAT_HD inline SharedT1DecodeResult decode_code_block_shared(const SharedT1DecodeBlock& block, T1FixedState& s,
                                                               int32_t* samples, ptrdiff_t stride,
                                                               bool marked = false) {
  bool in_state = false;
  const SharedT1DecodeResult result = decode_code_block_to_state(block, s, samples, stride, marked, &in_state);
  if (in_state) detail::write_decoded_samples(s, samples, stride);
  return result;
}

// The block a device batch's job names: its bytes and segment lengths at the
// job's offsets in the batch's buffers (entropy/t1_decode_batch.h lays them out); the
// kernel and the host stand-in of the hybrid decoder's tests read jobs alike.
MALLAT_HD inline SharedT1DecodeBlock shared_block_of(const T1DecodeJob& job, const uint8_t* bytes,
                                                     const uint32_t* segment_lengths) {
  SharedT1DecodeBlock block;
  block.data = bytes + job.byte_offset;
  block.length = job.length;
  block.segment_lengths = segment_lengths + job.segment_offset;
  block.num_segments = job.num_segments;
  block.width = job.width;
  block.height = job.height;
  block.num_passes = job.num_passes;
  block.zero_bitplanes = job.zero_bitplanes;
  block.num_bitplanes = job.num_bitplanes;
  block.orientation = static_cast<BandOrientation>(job.orientation);
  block.style = CodeBlockStyle::from_byte(job.style);
  return block;
}

}  // namespace mallat::entropy

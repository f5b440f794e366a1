// The Tier-1 code-block encoder of Annex D as one source for the CPU and the
// GPU (host_device.h): the passes of entropy/ebcot/passes.h on a fixed-size state, the
// MQ and raw coders bounded by a caller-given output buffer, no allocation,
// no exceptions, no std containers beyond std::array. It produces what
// encode_code_block (entropy/ebcot/encoder.cc) produces, byte for byte: the codeword
// segments, each pass's cumulative length (the same terminations, the same
// shortest_truncation and finish_pass_lengths rules) and its distortion
// decrease (the same exact sums, DistortionSum), the zero bit-planes and the
// pass count. The tests hold
// it to that (tests/entropy/t1_shared_test.cc on the CPU in CI,
// tests/entropy_cuda on a device).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "entropy/code_block_style.h"
#include "entropy/host_device.h"
#include "entropy/ebcot/mq_encoder.h"
#include "entropy/ebcot/raw_coder.h"
#include "entropy/ebcot/ebcot.h"
#include "entropy/ebcot/contexts.h"
#include "entropy/ebcot/flags.h"
#include "entropy/ebcot/internal.h"
#include "entropy/ebcot/passes.h"
#include "entropy/ebcot/recorded_symbols.h"
#include "entropy/ebcot/schedule.h"
#include "entropy/t1_device_job.h"

namespace mallat::entropy {

// Passes of a block with Mb = 31 and nothing below: 3 * 31 - 2.
inline constexpr int kMaxCodingPasses = 3 * kMaxBitPlanes - 2;

// Words a state needs over every shape A.6.1 allows (w, h <= 1024,
// w * h <= 4096): column words with their border (T1State's layout), or
// magnitudes four to a stripe column without a border.
constexpr int t1_fixed_state_words(bool magnitudes) {
  int most = 0;
  for (int h = 1; h <= kMaxCodeBlockSide; ++h) {
    const int w = kMaxCodeBlockSamples / h < kMaxCodeBlockSide ? kMaxCodeBlockSamples / h : kMaxCodeBlockSide;
    const int stripes = (h + 3) / 4;
    const int words = magnitudes ? 4 * stripes * w : (w + 2) * (stripes + 2);
    most = words > most ? words : most;
  }
  return most;
}

// detail::T1State with fixed arrays: the same column words (entropy/ebcot/flags.h) and
// the magnitudes in scan order, which is all the passes ask of a state.
struct T1FixedState {
  // The passes load a column's magnitudes ahead of coding it (entropy/ebcot/passes.h's
  // for_each_column): the GPU waits on every load it uses, and this state
  // is what the GPU's coder runs on.
  static constexpr bool kLoadAhead = true;
  static constexpr int kColumnWords = t1_fixed_state_words(false);
  static constexpr int kMagnitudeWords = t1_fixed_state_words(true);
  int width = 0;
  int height = 0;
  int column_stride = 0;
  double distortion = 0.0;
  uint32_t column_storage[kColumnWords];
  // A column's room past the last (the passes load the next column's
  // magnitudes ahead, entropy/ebcot/passes.h), and 16-byte columns (one load on the GPU).
  alignas(16) uint32_t magnitude_storage[kMagnitudeWords + 4];
  // Decoding: the stripes holding a significant sample, as the decoder's
  // walks last left them, one bit a stripe (for_each_column's skipping of
  // quiet stripes, entropy/ebcot/passes.h).
  static constexpr int kStripeWords = (kMaxCodeBlockSide / 4 + 63) / 64;
  uint64_t significant_stripes[kStripeWords];

  MALLAT_HD void reset(int w, int h) {
    width = w;
    height = h;
    column_stride = w + 2;
    const int columns = column_stride * ((h + 3) / 4 + 2);
    for (int i = 0; i < columns; ++i) column_storage[i] = 0;
    for (uint64_t& word : significant_stripes) word = 0;
    distortion = 0.0;
  }
  MALLAT_HD uint32_t* column(int x, int y) {
    return column_storage + (y / 4 + 1) * column_stride + x + 1;
  }
  MALLAT_HD uint32_t* magnitude(int x, int y) { return magnitude_storage + 4 * ((y / 4) * width + x) + y % 4; }
};

enum class SharedT1Status : uint8_t {
  kOk = 0,
  kBadShape,           // width or height outside A.6.1
  kBadBitPlanes,       // Mb outside 0..31, or Mb + F above 31
  kMagnitudeTooLarge,  // a coefficient needs more than Mb (+ F) bits
  kOutputOverflow,     // the codeword segments do not fit the buffer
};

// What a message says for each status (the callers turn it into a Status).
inline const char* shared_t1_status_text(SharedT1Status status) {
  switch (status) {
    case SharedT1Status::kOk: return "ok";
    case SharedT1Status::kBadShape: return "code-block size outside A.6.1's limits";
    case SharedT1Status::kBadBitPlanes: return "Mb or Mb + fraction bits above 31";
    case SharedT1Status::kMagnitudeTooLarge: return "a coefficient needs more than Mb magnitude bits";
    case SharedT1Status::kOutputOverflow: return "coded bytes exceed the output buffer";
  }
  return "unknown";
}

// One code-block to encode: encode_code_block's arguments as plain data.
// `stride` counts samples from a row to the next.
struct SharedT1Block {
  const int32_t* coefficients = nullptr;
  int width = 0;
  int height = 0;
  ptrdiff_t stride = 0;
  BandOrientation orientation = BandOrientation::kLL;
  int num_bitplanes = 0;
  CodeBlockStyle style;
  int fraction_bits = 0;
  // At most this many passes are coded (0: every pass). Truncating a block
  // after any pass is the encoder's right (J.14 / Taubman's PCRD: passes
  // past the one rate control keeps are never sent), so a rate-controlled
  // encode whose estimates say a block's finer passes cannot survive need
  // not code them: the last coded pass is terminated (C.2.9) and the
  // block is a valid one of fewer passes. SharedT1Result::exact_passes
  // says which passes are byte for byte what coding every pass gives.
  int pass_limit = 0;
};

// The caller's output: `buffer[0]` is a scratch byte (the placeholder before
// the first segment that C.2.8 reads), the codeword segments go to
// buffer[1 .. 1 + length) and nothing goes past buffer[capacity - 1]; a
// flush may write one byte past the data that it then drops (a final 0xFF,
// C.2.9), so length + 2 bytes always suffice. `passes` has room for
// kMaxCodingPasses.
struct SharedT1Output {
  uint8_t* buffer = nullptr;
  uint32_t capacity = 0;
  CodingPass* passes = nullptr;
};

struct SharedT1Result {
  uint32_t length = 0;  // bytes at buffer + 1
  int16_t num_passes = 0;
  // Of the passes coded, how many leading ones have the length, distortion
  // decrease and termination that coding every pass gives them, their
  // bytes (up to that length) the same: all of them unless a pass limit
  // cut the block. Past a cut the MQ coder's register C would still have
  // carried into the bytes it last wrote, and the terminated segment ends
  // otherwise, so a pass whose shortest truncation (shortest_truncation)
  // reads a byte that was not final when the last pass ended is not exact.
  int16_t exact_passes = 0;
  int8_t zero_bitplanes = 0;
  SharedT1Status status = SharedT1Status::kOk;
  bool cut = false;  // the pass limit left passes out
};

// The block a device batch's job names, its coefficients at the job's offset
// in the batch's buffer (entropy/t1_encode_batch.h lays them out); either
// coder's kernel reads jobs alike.
MALLAT_HD inline SharedT1Block shared_block_of(const T1DeviceJob& job, const int32_t* coefficients) {
  SharedT1Block block;
  block.coefficients = coefficients + job.coefficient_offset;
  block.width = job.width;
  block.height = job.height;
  block.stride = static_cast<ptrdiff_t>(job_stride(job));
  block.orientation = static_cast<BandOrientation>(job.orientation);
  block.num_bitplanes = job.num_bitplanes;
  block.style = CodeBlockStyle::from_byte(job.style);
  block.fraction_bits = job.fraction_bits;
  block.pass_limit = job.pass_limit;
  return block;
}

// What a block keeps when a batch's outputs are packed one after another
// (T1DeviceEncoder::download_packed): its bytes and passes where it was
// coded, nothing where it failed (an overflowing block is coded again on
// the CPU). One rule for the device's packing and the host's reading.
MALLAT_HD inline uint32_t packed_bytes(const SharedT1Result& r) {
  return r.status == SharedT1Status::kOk ? r.length : 0;
}
MALLAT_HD inline uint32_t packed_passes(const SharedT1Result& r) {
  return r.status == SharedT1Status::kOk && r.num_passes > 0 ? static_cast<uint32_t>(r.num_passes) : 0;
}

namespace detail {

// encode_passes of entropy/ebcot/encoder.cc on the bounded coders: codes
// `num_passes` passes, the lowest bit-plane being `lowest`, each formed by
// form(i, type, raw, plane, mq, raw_coder), which codes pass i's decisions
// with the MQ coder (BasicMqEncodeSymbols) or the raw one and returns its
// distortion decrease; this loop opens, terminates and measures the
// codeword segments (Table D.9, C.2.9) and adds SEGMARK's symbols. Returns
// the bytes coded, or kOutputOverflow as soon as a byte does not fit. The
// state's passes (encode_shared_passes) and the GPU's formed ones
// (entropy/ebcot/formed_passes.h) share it. `exact` gets the count of
// SharedT1Result::exact_passes: num_passes unless `cut` (a pass limit
// stopped the block before its last plane's cleanup pass).
template <class FormPass>
MALLAT_HD SharedT1Status code_shared_passes(FormPass&& form, int planes, int lowest, const CodeBlockStyle& style,
                                            const SharedT1Output& out, int num_passes, bool cut, uint32_t& length,
                                            int& exact) {
  BasicMqEncodeSymbols<BasicMqEncoder<true>> mq{BasicMqEncoder<true>{}, initial_contexts()};
  BasicRawEncodeSymbols<BasicRawEncoder<true>> raw{};
  uint8_t* const buffer = out.buffer;
  mq.mq.end = buffer + out.capacity;
  raw.raw.end = buffer + out.capacity;
  buffer[0] = 0;

  // The passes of the open MQ segment that do not end it (PendingTruncations).
  int pending_pass[kMaxCodingPasses];
  MqTruncationPoint pending_point[kMaxCodingPasses];
  int pending = 0;
  uint32_t segment_start = 1;  // offset in the buffer of the open segment
  bool open = false;
  // The passes before the open segment's first are in closed segments,
  // terminated alike whether or not the block is cut.
  int segment_first_pass = 0;
  exact = num_passes;
  for (int i = 0; i < num_passes; ++i) {
    const PassType type = pass_type(i);
    const bool is_raw = pass_is_raw(style, i);
    const int plane = lowest + planes - 1 - pass_plane_offset(i);
    if (!open) {
      if (segment_start >= out.capacity) return SharedT1Status::kOutputOverflow;
      if (is_raw) {
        raw.raw.init(buffer + segment_start);
      } else {
        mq.mq.init(buffer + segment_start);
      }
      open = true;
      segment_first_pass = i;
    }
    const double distortion = form(i, type, is_raw, plane, mq, raw);
    // SEGMARK (D.5): the symbols 1010 in the UNIFORM context after each cleanup pass.
    if (type == PassType::kCleanup && style.segmentation_symbols) {
      for (uint32_t bit = 1, k = 0; k < 4; ++k, bit ^= 1) mq.code(kUniformContext, bit);
    }
    CodingPass& pass = out.passes[i];
    pass.distortion_decrease = distortion;
    pass.terminated = i == num_passes - 1 || pass_ends_segment(style, i);
    // A cut block's last pass ends a segment that coding on would have
    // left open: the bytes before B (the byte a carry may still reach,
    // C.2.5) are final, those after are the termination's.
    const bool cut_here = cut && i == num_passes - 1 && !pass_ends_segment(style, i);
    const uint32_t settled = cut_here && !is_raw ? static_cast<uint32_t>(mq.mq.bp - buffer) : 0;
    if (cut_here) exact = segment_first_pass;
    if (pass.terminated) {
      const uint32_t bytes = is_raw ? raw.raw.flush()
                             : style.predictable_termination ? mq.mq.flush_predictable()
                                                             : mq.mq.flush();
      if (mq.mq.overflow || raw.raw.overflow) return SharedT1Status::kOutputOverflow;
      if (!is_raw) {
        for (int k = 0; k < pending; ++k) {
          const size_t end = shortest_truncation(pending_point[k], buffer, segment_start, segment_start + bytes);
          out.passes[pending_pass[k]].cumulative_length = static_cast<uint32_t>(end - 1);
          // Read from final bytes alone (and ending before B, so that no
          // later pass's length, each at least B's offset, is shorter).
          if (cut_here && exact == pending_pass[k] && end < settled) exact = pending_pass[k] + 1;
        }
        pending = 0;
      }
      segment_start += bytes;
      open = false;
      pass.cumulative_length = segment_start - 1;
    } else if (is_raw) {
      // Not terminated: what the raw coder has, a partial byte included.
      pass.cumulative_length = segment_start - 1 + raw.raw.length_so_far();
    } else {
      pending_pass[pending] = i;
      pending_point[pending] = mq.mq.truncation_point(buffer);
      ++pending;
    }
    if (mq.mq.overflow || raw.raw.overflow) return SharedT1Status::kOutputOverflow;
    if (style.reset) mq.cx = initial_contexts();
  }
  length = segment_start - 1;
  return SharedT1Status::kOk;
}

// code_shared_passes with each pass run on the state `s`. kRecorded: each
// MQ pass's decisions are formed into `decisions` first and coded after
// (recorded_symbols.h); the same bytes.
template <bool kVsc, bool kRecorded>
MALLAT_HD SharedT1Status encode_shared_passes(T1FixedState& s, BandOrientation orientation, int planes,
                                              int lowest, const CodeBlockStyle& style,
                                              const SharedT1Output& out, int num_passes, bool cut,
                                              const DecisionBuffer& decisions, uint32_t& length, int& exact) {
  const uint8_t* zc_lut = MALLAT_T1_TABLE(kZeroCodingLut)[static_cast<int>(orientation)].data();
  auto form = [&](int, PassType type, bool is_raw, int plane, auto& mq, auto& raw) {
    s.distortion = 0.0;
    if constexpr (kRecorded) {
      if (is_raw) {
        run_pass<kVsc>(type, true, mq, raw, s, zc_lut, plane);
      } else {
        RecordedMqSymbols recorded{decisions.words, decisions.stride};
        run_pass<kVsc>(type, false, recorded, raw, s, zc_lut, plane);
        recorded.finish();
        code_recorded(mq, decisions.words, decisions.stride, recorded.count);
      }
    } else {
      run_pass<kVsc>(type, is_raw, mq, raw, s, zc_lut, plane);
    }
    return s.distortion;
  };
  return code_shared_passes(form, planes, lowest, style, out, num_passes, cut, length, exact);
}

// The result's last steps once the passes are coded: the passes' lengths
// (finish_pass_lengths) and the distortions scaled back from F fraction
// bits.
MALLAT_HD inline void finish_shared_passes(const SharedT1Output& out, int num_passes, uint32_t length,
                                           int fraction_bits) {
  finish_pass_lengths(out.passes, num_passes, out.buffer + 1, length);
  if (fraction_bits > 0) {
    for (int i = 0; i < num_passes; ++i) {
      out.passes[i].distortion_decrease = scale_distortion(out.passes[i].distortion_decrease, fraction_bits);
    }
  }
}

}  // namespace detail

// Encodes one code-block into `out` with `s` as its working state (about
// 40 KB: a thread's own, reused from block to block). With
// `decisions.words` (room for kMaxPassDecisions / 4 at its stride), each MQ
// pass's decisions are formed first and coded after (recorded_symbols.h):
// the same result.
MALLAT_HD inline SharedT1Result encode_code_block_shared(const SharedT1Block& block, T1FixedState& s,
                                                         const SharedT1Output& out,
                                                         const DecisionBuffer& decisions = {}) {
  SharedT1Result result;
  const int w = block.width;
  const int h = block.height;
  if (w < 1 || h < 1 || w > kMaxCodeBlockSide || h > kMaxCodeBlockSide || w * h > kMaxCodeBlockSamples) {
    result.status = SharedT1Status::kBadShape;
    return result;
  }
  if (block.num_bitplanes < 0 || block.fraction_bits < 0 ||
      block.num_bitplanes + block.fraction_bits > kMaxBitPlanes) {
    result.status = SharedT1Status::kBadBitPlanes;
    return result;
  }
  s.reset(w, h);
  // Column by column: a stripe column's four coefficients are loaded
  // together and its word is stored once (reset cleared it). The encoder
  // knows every sign up front; the bit only counts for the neighbours once
  // the sample is significant.
  uint32_t all = 0;
  for (int y0 = 0; y0 < h; y0 += 4) {
    const int rows = h - y0 < 4 ? h - y0 : 4;
    const int32_t* stripe = block.coefficients + y0 * block.stride;
    uint32_t* column = s.column(0, y0);
    uint32_t* mag = s.magnitude(0, y0);
    for (int x = 0; x < w; ++x, mag += 4) {
      detail::ColumnMagnitudes m{{0, 0, 0, 0}};
      uint32_t word = 0;
      for (int r = 0; r < 4; ++r) {
        if (r >= rows) break;
        const int32_t v = stripe[r * block.stride + x];
        m.v[r] = v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
        word |= v < 0 ? sign_bit(r + 1) : 0;
      }
      all |= m.v[0] | m.v[1] | m.v[2] | m.v[3];
      detail::store_magnitudes(mag, m);
      column[x] = word;
    }
  }
  const int coded_bits = block.num_bitplanes + block.fraction_bits;
  if (coded_bits < 32 && (all >> coded_bits) != 0) {
    result.status = SharedT1Status::kMagnitudeTooLarge;
    return result;
  }
  int bit_width = 0;
  while (bit_width < 32 && (all >> bit_width) != 0) ++bit_width;
  const int planes = bit_width > block.fraction_bits ? bit_width - block.fraction_bits : 0;
  result.zero_bitplanes = static_cast<int8_t>(block.num_bitplanes - planes);
  if (planes == 0) return result;
  const int num_passes = limited_passes(planes, block.pass_limit);
  const bool cut = num_passes < 3 * planes - 2;
  result.num_passes = static_cast<int16_t>(num_passes);
  result.cut = cut;
  int exact = 0;
  const auto passes = [&](auto vsc, auto recorded) {
    return detail::encode_shared_passes<decltype(vsc)::value, decltype(recorded)::value>(
        s, block.orientation, planes, block.fraction_bits, block.style, out, num_passes, cut, decisions,
        result.length, exact);
  };
  using Yes = std::true_type;
  using No = std::false_type;
  const bool vsc = block.style.vertical_causal;
  const SharedT1Status status = decisions.words != nullptr ? (vsc ? passes(Yes{}, Yes{}) : passes(No{}, Yes{}))
                                                             : (vsc ? passes(Yes{}, No{}) : passes(No{}, No{}));
  if (status != SharedT1Status::kOk) {
    result.status = status;
    return result;
  }
  detail::finish_shared_passes(out, num_passes, result.length, block.fraction_bits);
  result.exact_passes = static_cast<int16_t>(exact);
  return result;
}

}  // namespace mallat::entropy

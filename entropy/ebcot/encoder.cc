// The fast Tier-1 encoder: the MQ-coded passes of entropy/ebcot/encoder_passes.h and the
// raw (BYPASS) passes of entropy/ebcot/passes.h over flag words, with
// the codeword segments, terminations and mode switches of D.4 and D.6.
#include <algorithm>
#include <bit>
#include <cstring>

#include "entropy/ebcot/ebcot.h"
#include "entropy/ebcot/encoder_passes.h"
#include "entropy/ebcot/internal.h"
#include "entropy/ebcot/passes.h"
#include "entropy/ebcot/schedule.h"

namespace mallat::entropy {
namespace {

using detail::MqEncodeSymbols;
using detail::RawEncodeSymbols;
using detail::T1State;

// The output buffer grows between passes; the coders hold pointers into it.
class SegmentBuffer {
 public:
  explicit SegmentBuffer(size_t initial) : bytes_(initial + 1, 0) {}

  uint8_t* at(size_t offset) { return bytes_.data() + offset; }

  // Room for `extra` more bytes after `used`, moving the coders' pointers.
  void reserve(size_t used, size_t extra, MqEncoder& mq, RawEncoder& raw) {
    if (used + extra <= bytes_.size()) return;
    uint8_t* old = bytes_.data();
    bytes_.resize(2 * (used + extra));
    uint8_t* now = bytes_.data();
    auto move = [&](auto*& p) {
      if (p != nullptr) p = now + (p - old);
    };
    move(mq.bp);
    move(mq.start);
    move(raw.out);
    move(raw.start);
  }

  std::vector<uint8_t> take(size_t end) {
    return std::vector<uint8_t>(bytes_.begin() + 1, bytes_.begin() + static_cast<ptrdiff_t>(end));
  }

 private:
  std::vector<uint8_t> bytes_;  // bytes_[0] is the placeholder before the first segment
};

// SEGMARK (D.5): the symbols 1010 in the UNIFORM context after each cleanup pass.
void code_segmentation_symbols(MqEncodeSymbols& s) {
  for (uint32_t bit : {1u, 0u, 1u, 0u}) s.code(kUniformContext, bit);
}

// Codes `planes` bit-planes of the magnitudes, the lowest being `lowest`;
// the MQ-coded passes measure their distortion decrease with kDistortion.
// At most `pass_limit` passes (0: all), the last terminated; a block so cut
// gets exact_passes as code_shared_passes (entropy/ebcot/shared_encoder.h)
// counts them.
template <bool kVsc, bool kDistortion>
EncodedCodeBlock encode_passes(T1State& s, BandOrientation orientation, int planes, int lowest,
                               const CodeBlockStyle& style, int pass_limit) {
  EncodedCodeBlock out;
  out.num_passes = limited_passes(planes, pass_limit);
  const bool cut = out.num_passes < 3 * planes - 2;
  out.cut = cut;
  out.exact_passes = out.num_passes;
  out.passes.resize(out.num_passes);
  const size_t samples = static_cast<size_t>(s.width) * s.height;
  // A pass codes fewer than 3 symbols per sample and an MQ symbol emits at
  // most 15 bits: 6 bytes per sample bounds any pass.
  const size_t pass_bound = 6 * samples + 64;
  SegmentBuffer buffer(samples + 64);
  MqEncodeSymbols mq{MqEncoder{}, initial_contexts()};
  RawEncodeSymbols raw{};
  const uint8_t* zc_lut = kZeroCodingLut[static_cast<int>(orientation)].data();
  const uint8_t* sp_lut = kSignificancePassLut[static_cast<int>(orientation)].data();

  size_t segment_start = 1;  // offset in the buffer of the open segment
  bool open = false;
  bool open_raw = false;
  int segment_first_pass = 0;
  detail::PendingTruncations truncations;
  for (int i = 0; i < out.num_passes; ++i) {
    const PassType type = pass_type(i);
    const bool is_raw = pass_is_raw(style, i);
    const int plane = lowest + planes - 1 - pass_plane_offset(i);
    const size_t used = !open ? segment_start
                        : open_raw ? static_cast<size_t>(raw.raw.out - buffer.at(0))
                                   : static_cast<size_t>(mq.mq.bp - buffer.at(0)) + 1;
    buffer.reserve(used, pass_bound, mq.mq, raw.raw);
    if (!open) {
      if (is_raw) {
        raw.raw.init(buffer.at(segment_start));
      } else {
        mq.mq.init(buffer.at(segment_start));
      }
      open = true;
      open_raw = is_raw;
      segment_first_pass = i;
    }
    s.distortion = 0.0;
    if (is_raw) {
      detail::run_pass<kVsc>(type, true, mq, raw, s, zc_lut, plane);
    } else {
      detail::encode_mq_pass<kVsc, kDistortion>(type, mq, s, zc_lut, sp_lut, plane);
    }
    if (type == PassType::kCleanup && style.segmentation_symbols) code_segmentation_symbols(mq);

    CodingPass& pass = out.passes[i];
    pass.distortion_decrease = s.distortion;
    pass.terminated = i == out.num_passes - 1 || pass_ends_segment(style, i);
    // A cut block's last pass ends a segment coding on would have left
    // open: its passes whose shortest truncation reads only bytes before B
    // (final once the pass ended) are the whole coding's.
    const bool cut_here = cut && i == out.num_passes - 1 && !pass_ends_segment(style, i);
    const size_t settled = cut_here && !is_raw ? static_cast<size_t>(mq.mq.bp - buffer.at(0)) : 0;
    if (pass.terminated) {
      const uint32_t length = is_raw ? raw.raw.flush()
                              : style.predictable_termination ? mq.mq.flush_predictable()
                                                              : mq.mq.flush();
      if (!is_raw) truncations.resolve(buffer.at(0), segment_start, segment_start + length, out.passes);
      if (cut_here) {
        out.exact_passes = segment_first_pass;
        // The pending passes' lengths are their truncations' ends less the
        // placeholder byte.
        while (out.exact_passes < i && out.passes[out.exact_passes].cumulative_length + 1 < settled)
          ++out.exact_passes;
      }
      segment_start += length;
      open = false;
      pass.cumulative_length = static_cast<uint32_t>(segment_start - 1);
    } else if (is_raw) {
      // Not terminated: what the raw coder has, a partial byte included.
      pass.cumulative_length = static_cast<uint32_t>(segment_start - 1 + raw.raw.length_so_far());
    } else {
      truncations.add(i, mq.mq, buffer.at(0));   // its length once the segment ends
    }
    if (style.reset) mq.cx = initial_contexts();
  }
  out.data = buffer.take(segment_start);
  detail::finish_pass_lengths(out);
  return out;
}

}  // namespace

Result<EncodedCodeBlock> encode_code_block(PlaneView<const int32_t> coefficients,
                                           BandOrientation orientation, int num_bitplanes,
                                           const CodeBlockStyle& style, int fraction_bits,
                                           bool distortions, int pass_limit) {
  MALLAT_RETURN_IF_ERROR(
      detail::check_code_block_shape(coefficients.width, coefficients.height, num_bitplanes));
  MALLAT_RETURN_IF_ERROR(detail::check_fraction_bits(num_bitplanes, fraction_bits));
  MALLAT_ASSIGN_OR_RETURN(const uint32_t all,
                          detail::magnitude_or(coefficients, num_bitplanes + fraction_bits));
  const int planes = std::max(0, static_cast<int>(std::bit_width(all)) - fraction_bits);
  if (planes == 0) {
    EncodedCodeBlock empty;
    empty.zero_bitplanes = num_bitplanes;
    return empty;
  }
  const int w = static_cast<int>(coefficients.width);
  const int h = static_cast<int>(coefficients.height);
  thread_local T1State s;
  s.reset(w, h);
  for (int y = 0; y < h; ++y) {
    const int32_t* row = coefficients.row(y);
    uint32_t* mag = s.magnitude(0, y);
    uint32_t* column = s.column(0, y);
    // The encoder knows every sign up front; the bit only counts for the
    // neighbours once the sample is significant.
    const uint32_t negative = sign_bit(y % 4 + 1);
    for (int x = 0; x < w; ++x) {
      const int32_t v = row[x];
      mag[4 * x] = v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
      column[x] |= v < 0 ? negative : 0;
    }
  }
  auto encode = [&]<bool kVsc>() {
    return distortions ? encode_passes<kVsc, true>(s, orientation, planes, fraction_bits, style, pass_limit)
                       : encode_passes<kVsc, false>(s, orientation, planes, fraction_bits, style, pass_limit);
  };
  EncodedCodeBlock out = style.vertical_causal ? encode.template operator()<true>()
                                               : encode.template operator()<false>();
  detail::scale_distortions(out, fraction_bits);
  out.zero_bitplanes = num_bitplanes - planes;
  return out;
}

}  // namespace mallat::entropy

// The Tier-1 decoder: the MQ-coded passes of entropy/ebcot/decoder_passes.h and the raw
// (BYPASS) passes shared with the encoder (entropy/ebcot/passes.h), one codeword
// segment at a time.
#include <algorithm>
#include <string>

#include "entropy/ebcot/ebcot.h"
#include "entropy/ebcot/internal.h"
#include "entropy/ebcot/cpu_samples.h"
#include "entropy/ebcot/decoder_passes.h"
#include "entropy/ebcot/mq_entry_decoder.h"
#include "entropy/ebcot/passes.h"
#include "entropy/ebcot/schedule.h"

namespace mallat::entropy {
namespace {

using detail::RawDecodeSymbols;
using detail::T1State;

// Hands out the codeword segments in order, never past the data.
class SegmentReader {
 public:
  explicit SegmentReader(const CodeBlockToDecode& block) : block_(block) {}

  std::span<const uint8_t> next() {
    const size_t left = block_.data.size() - offset_;
    size_t length = left;  // with no lengths given, one segment holds everything
    if (!block_.segment_lengths.empty()) {
      length = index_ < block_.segment_lengths.size() ? block_.segment_lengths[index_] : 0;
      length = std::min(length, left);
    }
    ++index_;
    const std::span<const uint8_t> segment = block_.data.subspan(offset_, length);
    offset_ += length;
    return segment;
  }

 private:
  const CodeBlockToDecode& block_;
  size_t offset_ = 0;
  size_t index_ = 0;
};

template <bool kVsc>
void decode_passes(const CodeBlockToDecode& block, T1State& s, int planes) {
  static constexpr MqContexts kInitial = initial_contexts();
  const detail::FastMqContexts initial = detail::fast_contexts(kInitial);
  detail::MqFastDecoder mq;
  detail::FastMqContexts cx = initial;
  detail::MqEntryDecodeSymbols unused_mq{};  // the raw passes' run_pass needs one; BYPASS never codes a cleanup pass raw
  RawDecodeSymbols raw{};
  SegmentReader segments(block);
  thread_local detail::WidePaddedSegment padded;  // for MqFastDecoder
  const uint8_t* zc_lut = kZeroCodingLut[static_cast<int>(block.orientation)].data();
  const uint8_t* sp_lut = kSignificancePassLut[static_cast<int>(block.orientation)].data();
  bool open = false;
  for (int i = 0; i < block.num_passes; ++i) {
    const PassType type = pass_type(i);
    const bool is_raw = pass_is_raw(block.style, i);
    if (!open) {
      const std::span<const uint8_t> segment = segments.next();
      if (is_raw) {
        raw.raw.init(segment.data(), segment.size());
      } else {
        mq.init(padded.assign(segment), segment.size());
      }
      open = true;
    }
    const int plane = planes - 1 - pass_plane_offset(i);
    if (is_raw) {
      detail::run_pass<kVsc>(type, true, unused_mq, raw, s, zc_lut, plane);
    } else if (type == PassType::kSignificance) {
      detail::decode_significance_pass<kVsc>(mq, cx, s, sp_lut, plane);
    } else if (type == PassType::kRefinement) {
      detail::decode_refinement_pass<kVsc>(mq, cx, s, plane);
    } else {
      detail::decode_cleanup_pass<kVsc>(mq, cx, s, zc_lut, plane);
    }
    if (type == PassType::kCleanup && block.style.segmentation_symbols) {
      // D.5: 1010 in UNIFORM; a mismatch means corruption, which a decoder
      // may conceal. We decode on: the samples are the best we have.
      for (int k = 0; k < 4; ++k) mq.decode(cx[kUniformContext]);
    }
    if (pass_ends_segment(block.style, i)) open = false;
    if (block.style.reset) cx = initial;
  }
}

}  // namespace

Result<DecodedCodeBlockInfo> decode_code_block(const CodeBlockToDecode& block,
                                               PlaneView<int32_t> out,
                                               PlaneView<uint8_t> known_plane) {
  MALLAT_RETURN_IF_ERROR(detail::check_decode_parameters(block, out.width, out.height));
  const int planes = block.num_bitplanes - block.zero_bitplanes;
  if (!known_plane.empty() &&
      (known_plane.width != out.width || known_plane.height != out.height)) {
    return invalid_argument("known_plane view differs in size from the code-block");
  }
  const int w = static_cast<int>(out.width);
  const int h = static_cast<int>(out.height);
  DecodedCodeBlockInfo info;
  if (block.num_passes == 0) {
    for (int y = 0; y < h; ++y) std::fill(out.row(y), out.row(y) + w, 0);
    info.lowest_plane = planes;
    if (!known_plane.empty()) {
      const auto top = static_cast<uint8_t>(planes);
      for (int y = 0; y < h; ++y) std::fill(known_plane.row(y), known_plane.row(y) + w, top);
    }
    return info;
  }
  thread_local T1State s;
  s.reset(w, h);
  if (block.style.vertical_causal) {
    decode_passes<true>(block, s, planes);
  } else {
    decode_passes<false>(block, s, planes);
  }
  const int last = block.num_passes - 1;
  info.lowest_plane = planes - 1 - pass_plane_offset(last);
  info.ended_in_significance_pass = pass_type(last) == PassType::kSignificance;
  detail::write_decoded_samples_by_columns(s, out.data, out.stride);
  if (!known_plane.empty()) {
    for (int y = 0; y < h; ++y) {
      uint8_t* kp = known_plane.row(y);
      for (int x = 0; x < w; ++x) {
        const bool behind =
            info.ended_in_significance_pass && !(*s.column(x, y) & visited_bit(y % 4));
        kp[x] = static_cast<uint8_t>(info.lowest_plane + (behind ? 1 : 0));
      }
    }
  }
  return info;
}

}  // namespace mallat::entropy

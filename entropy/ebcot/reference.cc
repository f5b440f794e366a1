// The reference Tier-1 coder: the passes of D.3 as the standard words them,
// each context computed from the neighbourhood of the sample with bounds
// checks, no flag words, no look-up tables. Slow on purpose; the fast
// encoder must produce the same bytes and the fast decoder the same samples
// (on any input, corrupt ones included).
#include <bit>
#include <vector>

#include <algorithm>

#include "entropy/ebcot/mq_decoder.h"
#include "entropy/ebcot/mq_encoder.h"
#include "entropy/ebcot/raw_coder.h"
#include "entropy/ebcot/ebcot.h"
#include "entropy/ebcot/contexts.h"
#include "entropy/ebcot/internal.h"
#include "entropy/ebcot/schedule.h"

namespace mallat::entropy {
namespace {

// kEncode: code the magnitudes and signs given; otherwise decode them.
template <bool kEncode>
class ReferenceCoder {
 public:
  ReferenceCoder(int w, int h, BandOrientation o, const CodeBlockStyle& style)
      : w_(w), h_(h), orientation_(o), style_(style), magnitude_(w_ * h_), negative_(w_ * h_),
        significant_(w_ * h_), visited_(w_ * h_), refined_(w_ * h_) {}

  void set_samples(PlaneView<const int32_t> c) {
    for (int y = 0; y < h_; ++y) {
      for (int x = 0; x < w_; ++x) {
        const int32_t v = c.at(x, y);
        magnitude_[y * w_ + x] = v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
        negative_[y * w_ + x] = v < 0;
      }
    }
  }

  // Codes `planes` bit-planes, the lowest being `lowest`.
  EncodedCodeBlock encode(int planes, int lowest) {
    EncodedCodeBlock out;
    out.num_passes = 3 * planes - 2;
    out.passes.resize(out.num_passes);
    std::vector<uint8_t> buffer(1 + static_cast<size_t>(out.num_passes) * (6 * w_ * h_ + 64), 0);
    contexts_ = initial_contexts();
    size_t segment_start = 1;
    bool open = false;
    detail::PendingTruncations truncations;
    for (int i = 0; i < out.num_passes; ++i) {
      const PassType type = pass_type(i);
      raw_pass_ = pass_is_raw(style_, i);
      if (!open) {
        if (raw_pass_) {
          raw_.init(buffer.data() + segment_start);
        } else {
          mq_.init(buffer.data() + segment_start);
        }
        open = true;
      }
      const int p = lowest + planes - 1 - pass_plane_offset(i);
      distortion_ = 0.0;
      if (type == PassType::kSignificance) significance_pass(p);
      if (type == PassType::kRefinement) refinement_pass(p);
      if (type == PassType::kCleanup) {
        cleanup_pass(p);
        if (style_.segmentation_symbols) {
          for (uint32_t bit : {1u, 0u, 1u, 0u}) mq_.encode(contexts_[kUniformContext], bit);
        }
      }
      CodingPass& pass = out.passes[i];
      pass.distortion_decrease = distortion_;
      pass.terminated = i == out.num_passes - 1 || pass_ends_segment(style_, i);
      if (pass.terminated) {
        const size_t length = raw_pass_                        ? raw_.flush()
                              : style_.predictable_termination ? mq_.flush_predictable()
                                                               : mq_.flush();
        if (!raw_pass_) truncations.resolve(buffer.data(), segment_start, segment_start + length, out.passes);
        segment_start += length;
        open = false;
        pass.cumulative_length = static_cast<uint32_t>(segment_start - 1);
      } else if (raw_pass_) {
        pass.cumulative_length = static_cast<uint32_t>(segment_start - 1 + raw_.length_so_far());
      } else {
        truncations.add(i, mq_, buffer.data());
      }
      if (style_.reset) contexts_ = initial_contexts();
    }
    out.data.assign(buffer.begin() + 1, buffer.begin() + static_cast<ptrdiff_t>(segment_start));
    detail::finish_pass_lengths(out);
    return out;
  }

  // Decodes `passes` passes of a block with `planes` coded bit-planes.
  void decode(const CodeBlockToDecode& in, int planes, PlaneView<int32_t> out) {
    contexts_ = initial_contexts();
    size_t offset = 0, segment = 0;
    bool open = false;
    for (int i = 0; i < in.num_passes; ++i) {
      const PassType type = pass_type(i);
      raw_pass_ = pass_is_raw(style_, i);
      if (!open) {
        // The next codeword segment; missing lengths read as empty, or as
        // everything left when no lengths were given at all.
        const size_t left = in.data.size() - offset;
        size_t length = left;
        if (!in.segment_lengths.empty()) {
          length = segment < in.segment_lengths.size() ? std::min<size_t>(in.segment_lengths[segment], left) : 0;
        }
        ++segment;
        if (raw_pass_) {
          raw_dec_.init(in.data.data() + offset, length);
        } else {
          mq_dec_.init(in.data.data() + offset, length);
        }
        offset += length;
        open = true;
      }
      const int p = planes - 1 - pass_plane_offset(i);
      if (type == PassType::kSignificance) significance_pass(p);
      if (type == PassType::kRefinement) refinement_pass(p);
      if (type == PassType::kCleanup) {
        cleanup_pass(p);
        if (style_.segmentation_symbols) {
          for (int k = 0; k < 4; ++k) mq_dec_.decode(contexts_[kUniformContext]);
        }
      }
      if (pass_ends_segment(style_, i)) open = false;
      if (style_.reset) contexts_ = initial_contexts();
    }
    for (int y = 0; y < h_; ++y) {
      for (int x = 0; x < w_; ++x) {
        const auto m = static_cast<int32_t>(magnitude_[y * w_ + x]);
        out.at(x, y) = negative_[y * w_ + x] ? -m : m;
      }
    }
  }

 private:
  // Significance of (x, y) as seen from a sample in row `from_y`: outside the
  // block, or (VSC, D.6) in the stripe below the sample's, counts as not.
  bool sig(int x, int y, int from_y) const {
    if (x < 0 || y < 0 || x >= w_ || y >= h_) return false;
    if (style_.vertical_causal && y / 4 > from_y / 4) return false;
    return significant_[y * w_ + x] != 0;
  }
  int signed_contribution(int x, int y, int from_y) const {
    if (!sig(x, y, from_y)) return 0;
    return negative_[y * w_ + x] ? -1 : 1;
  }
  int zc_context(int x, int y) const {
    const int h = sig(x - 1, y, y) + sig(x + 1, y, y);
    const int v = sig(x, y - 1, y) + sig(x, y + 1, y);
    const int d = sig(x - 1, y - 1, y) + sig(x + 1, y - 1, y) + sig(x - 1, y + 1, y) +
                  sig(x + 1, y + 1, y);
    return zero_coding_context(orientation_, h, v, d);
  }
  bool any_neighbour(int x, int y) const {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        if ((dx != 0 || dy != 0) && sig(x + dx, y + dy, y)) return true;
      }
    }
    return false;
  }

  // Codes `bit` in context `ctx` (the encoder), or decodes it (the decoder);
  // raw in the passes BYPASS makes raw.
  uint32_t code(int ctx, uint32_t bit) {
    if constexpr (kEncode) {
      if (raw_pass_) {
        raw_.encode(bit);
      } else {
        mq_.encode(contexts_[ctx], bit);
      }
      return bit;
    } else {
      return raw_pass_ ? raw_dec_.decode() : mq_dec_.decode(contexts_[ctx]);
    }
  }
  // The bit of plane p of a magnitude, where the encoder knows it.
  uint32_t bit_of(int i, int p) const { return kEncode ? (magnitude_[i] >> p) & 1 : 0; }

  // D.3.2: sign bit, with the context and XOR of Table D.3 (raw: the bit).
  void code_sign(int x, int y) {
    const uint32_t negative = negative_[y * w_ + x];
    if (raw_pass_) {
      negative_[y * w_ + x] = static_cast<uint8_t>(code(0, negative));
      return;
    }
    auto clamp = [](int v) { return v < -1 ? -1 : v > 1 ? 1 : v; };
    const int hc = clamp(signed_contribution(x - 1, y, y) + signed_contribution(x + 1, y, y));
    const int vc = clamp(signed_contribution(x, y - 1, y) + signed_contribution(x, y + 1, y));
    const SignContext sc = sign_context(hc, vc);
    negative_[y * w_ + x] = static_cast<uint8_t>(code(sc.context, negative ^ sc.xor_bit) ^ sc.xor_bit);
  }

  void becomes_significant(int x, int y, int p) {
    code_sign(x, y);
    significant_[y * w_ + x] = 1;
    if constexpr (kEncode) {
      distortion_ += error_at(magnitude_[y * w_ + x], 64) - error_at(magnitude_[y * w_ + x], p);
    } else {
      magnitude_[y * w_ + x] = 1u << p;
    }
  }

  // Squared error of mid-point reconstruction when bits p and above are known.
  static double error_at(uint32_t mag, int p) {
    if (p >= 32) return static_cast<double>(mag) * mag;
    const uint64_t kept = static_cast<uint64_t>(mag) >> p << p;
    double rec = 0.0;
    if (kept != 0) rec = static_cast<double>(kept) + (p > 0 ? static_cast<double>(1ull << p) / 2 : 0);
    return (static_cast<double>(mag) - rec) * (static_cast<double>(mag) - rec);
  }

  template <class F>
  void scan(F f) {
    for (int y0 = 0; y0 < h_; y0 += 4) {
      for (int x = 0; x < w_; ++x) {
        for (int y = y0; y < y0 + 4 && y < h_; ++y) f(x, y);
      }
    }
  }

  void significance_pass(int p) {
    scan([&](int x, int y) {
      const int i = y * w_ + x;
      if (significant_[i] || !any_neighbour(x, y)) return;  // D.3.1: needs a significant neighbour
      const uint32_t bit = code(zc_context(x, y), bit_of(i, p));
      visited_[i] = 1;
      if (bit) becomes_significant(x, y, p);
    });
  }

  void refinement_pass(int p) {
    scan([&](int x, int y) {
      const int i = y * w_ + x;
      if (!significant_[i] || visited_[i]) return;
      const uint32_t bit =
          code(refinement_context(refined_[i] != 0, any_neighbour(x, y)), bit_of(i, p));
      refined_[i] = 1;
      if constexpr (kEncode) {
        distortion_ += error_at(magnitude_[i], p + 1) - error_at(magnitude_[i], p);
      } else {
        magnitude_[i] |= bit << p;
      }
    });
  }

  void cleanup_pass(int p) {
    for (int y0 = 0; y0 < h_; y0 += 4) {
      for (int x = 0; x < w_; ++x) {
        int y = y0;
        const int y_end = y0 + 4 < h_ ? y0 + 4 : h_;
        // D.3.4: run-length mode for a full column of four samples that are
        // all insignificant, unvisited and without significant neighbours.
        bool run = y_end - y0 == 4;
        for (int k = y0; run && k < y_end; ++k) {
          const int i = k * w_ + x;
          if (significant_[i] || visited_[i] || any_neighbour(x, k)) run = false;
        }
        if (run) {
          int first = 4;
          for (int k = 0; k < 4; ++k) {
            if (bit_of((y0 + k) * w_ + x, p)) {
              first = k;
              break;
            }
          }
          if (!code(kRunLengthContext, first < 4)) continue;
          const uint32_t high = code(kUniformContext, static_cast<uint32_t>(first >> 1) & 1);
          const uint32_t low = code(kUniformContext, static_cast<uint32_t>(first) & 1);
          first = static_cast<int>(high << 1 | low);
          becomes_significant(x, y0 + first, p);
          y = y0 + first + 1;
        }
        for (; y < y_end; ++y) {
          const int i = y * w_ + x;
          if (!significant_[i] && !visited_[i]) {
            if (code(zc_context(x, y), bit_of(i, p))) becomes_significant(x, y, p);
          }
        }
        for (int k = y0; k < y_end; ++k) visited_[k * w_ + x] = 0;
      }
    }
  }

  int w_, h_;
  BandOrientation orientation_;
  CodeBlockStyle style_;
  std::vector<uint32_t> magnitude_;
  std::vector<uint8_t> negative_, significant_, visited_, refined_;
  MqContexts contexts_{};
  MqEncoder mq_;
  RawEncoder raw_;
  MqDecoder mq_dec_;
  RawDecoder raw_dec_;
  bool raw_pass_ = false;
  double distortion_ = 0.0;
};

}  // namespace

Result<EncodedCodeBlock> encode_code_block_reference(PlaneView<const int32_t> coefficients,
                                                     BandOrientation orientation,
                                                     int num_bitplanes,
                                                     const CodeBlockStyle& style,
                                                     int fraction_bits) {
  MALLAT_RETURN_IF_ERROR(
      detail::check_code_block_shape(coefficients.width, coefficients.height, num_bitplanes));
  MALLAT_RETURN_IF_ERROR(detail::check_fraction_bits(num_bitplanes, fraction_bits));
  MALLAT_ASSIGN_OR_RETURN(const uint32_t all,
                          detail::magnitude_or(coefficients, num_bitplanes + fraction_bits));
  const int planes = std::max(0, static_cast<int>(std::bit_width(all)) - fraction_bits);
  EncodedCodeBlock out;
  if (planes > 0) {
    ReferenceCoder<true> coder(static_cast<int>(coefficients.width),
                               static_cast<int>(coefficients.height), orientation, style);
    coder.set_samples(coefficients);
    out = coder.encode(planes, fraction_bits);
    detail::scale_distortions(out, fraction_bits);
  }
  out.zero_bitplanes = num_bitplanes - planes;
  return out;
}

Status decode_code_block_reference(const CodeBlockToDecode& block, PlaneView<int32_t> out) {
  MALLAT_RETURN_IF_ERROR(
      detail::check_code_block_shape(out.width, out.height, block.num_bitplanes));
  const int planes = block.num_bitplanes - block.zero_bitplanes;
  if (block.zero_bitplanes < 0 || planes < 0 || block.num_passes < 0 ||
      block.num_passes > (planes > 0 ? 3 * planes - 2 : 0)) {
    return corrupt_data("code-block passes or zero bit-planes out of range");
  }
  ReferenceCoder<false> coder(static_cast<int>(out.width), static_cast<int>(out.height),
                              block.orientation, block.style);
  coder.decode(block, planes, out);
  return Status::Ok();
}

}  // namespace mallat::entropy

// Pieces shared by the fast and the reference Tier-1 encoders. Internal.
#pragma once

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/plane_view.h"
#include "common/status.h"
#include "entropy/host_device.h"
#include "entropy/ebcot/mq_encoder.h"
#include "entropy/ebcot/ebcot.h"

namespace mallat::entropy::detail {

// Rejects sizes outside A.6.1 and Mb outside 0..31.
Status check_code_block_shape(int64_t width, int64_t height, int num_bitplanes);

// Rejects a block to decode whose size, Mb, zero bit-planes P or number of
// passes are impossible: passes beyond the 3 (Mb - P) - 2 that its planes
// allow (Part 1 and the HT coder alike: an HT block's last cleanup pass
// lands on plane 0 at most).
Status check_decode_parameters(const CodeBlockToDecode& block, int64_t width, int64_t height);

// Makes the per-pass lengths usable for truncation: no pass longer than a
// later one (a prefix that decodes pass i+1 decodes pass i), none past the
// data, and a non-terminated pass does not end on 0xFF (the decoder supplies
// 0xFF past the end anyway, and a segment must not end in 0xFF).
void finish_pass_lengths(EncodedCodeBlock& block);

// The same on `count` passes over the `total` bytes at `data`; host and
// device code (the shared encoder, entropy/ebcot/shared_encoder.h, uses it too).
MALLAT_HD inline void finish_pass_lengths(CodingPass* passes, int count, const uint8_t* data,
                                          uint32_t total) {
  uint32_t later = total;
  for (int i = count; i-- > 0;) {
    CodingPass& pass = passes[i];
    if (pass.cumulative_length > later) pass.cumulative_length = later;
    if (!pass.terminated && pass.cumulative_length > 0 && data[pass.cumulative_length - 1] == 0xFF) {
      --pass.cumulative_length;
    }
    later = pass.cumulative_length;
  }
}

// The passes of the open MQ codeword segment that do not end it: their
// lengths are found when the segment is finished and its bytes are final
// (shortest_truncation). Buffer offsets count from the encoder's buffer,
// whose byte 0 is the placeholder before the block's data.
class PendingTruncations {
 public:
  void add(int pass, const MqEncoder& mq, const uint8_t* buffer) {
    pending_.emplace_back(pass, mq.truncation_point(buffer));
  }
  // The segment at buffer[begin, end) is finished.
  void resolve(const uint8_t* buffer, size_t begin, size_t end, std::vector<CodingPass>& passes) {
    for (const auto& [pass, point] : pending_)
      passes[pass].cumulative_length = static_cast<uint32_t>(shortest_truncation(point, buffer, begin, end) - 1);
    pending_.clear();
  }

 private:
  std::vector<std::pair<int, MqEncoder::TruncationPoint>> pending_;
};

// Splits samples into magnitudes (sign-magnitude, as Annex D codes them)
// and returns their OR, or an error when one needs more than Mb bits.
// Where the CPU has AVX2, in its lanes; magnitude_or_plain is the loop of
// the baseline instruction set that it is tested against.
Result<uint32_t> magnitude_or(PlaneView<const int32_t> coefficients, int num_bitplanes);
uint32_t magnitude_or_plain(PlaneView<const int32_t> coefficients);

// Rejects fraction bits outside 0..31 - Mb (encode_code_block).
Status check_fraction_bits(int num_bitplanes, int fraction_bits);

// Brings distortion decreases measured on values with F fraction bits to
// units of the quantisation index (a factor 2^-2F).
void scale_distortions(EncodedCodeBlock& block, int fraction_bits);

// One decrease times 2^-2F, exactly (a power of two), on host and device.
MALLAT_HD inline double scale_distortion(double decrease, int fraction_bits) {
#if defined(__CUDA_ARCH__)
  return ::ldexp(decrease, -2 * fraction_bits);
#else
  return std::ldexp(decrease, -2 * fraction_bits);
#endif
}

}  // namespace mallat::entropy::detail

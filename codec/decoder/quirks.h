// Quirks of real encoders: what Part 1 forbids but encoders write and other
// decoders (OpenJPEG 2.5, Kakadu) accept. The decoder repairs each where the
// intent is clear, counts it, and says so once per kind (not once per
// code-block); DecodeOptions::strict refuses them instead, as before.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mallat::codec {

enum class Quirk {
  // B.10.6 / D.1: more coding passes than the code-block's bit-planes allow
  // (3 (Mb - P) - 2); the passes below the least significant bit-plane are
  // ignored, as OpenJPEG's t1 does.
  kPassesBelowLastBitPlane,
  // B.10.5: more zero bit-planes P than the subband's Mb (E-2): nothing of
  // the block is above bit-plane 0, so it decodes as zero (as OpenJPEG).
  kZeroBitPlanesBeyondMb,
  // A.6.4: a QCD/QCC with fewer step sizes than 3 N_L + 1 subbands; the
  // missing ones are derived (quant::complete_step_sizes).
  kMissingStepSizes,
  kCount
};

class QuirkCounts {
 public:
  void add(Quirk q, int64_t n = 1) { counts_[static_cast<size_t>(q)] += n; }
  int64_t count(Quirk q) const { return counts_[static_cast<size_t>(q)]; }
  // One warning per kind seen, with its count, appended to `warnings`.
  void report(std::vector<std::string>& warnings) const;

 private:
  std::array<int64_t, static_cast<size_t>(Quirk::kCount)> counts_{};
};

}  // namespace mallat::codec

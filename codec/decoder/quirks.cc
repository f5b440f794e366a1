#include "codec/decoder/quirks.h"

namespace mallat::codec {

void QuirkCounts::report(std::vector<std::string>& warnings) const {
  const auto n = [this](Quirk q) { return std::to_string(count(q)); };
  if (count(Quirk::kPassesBelowLastBitPlane) > 0)
    warnings.push_back(n(Quirk::kPassesBelowLastBitPlane) +
                       " code-block(s) with more coding passes than their bit-planes allow: the passes below the "
                       "least significant bit-plane were ignored (--strict refuses them)");
  if (count(Quirk::kZeroBitPlanesBeyondMb) > 0)
    warnings.push_back(n(Quirk::kZeroBitPlanesBeyondMb) +
                       " code-block(s) with more zero bit-planes than the subband's Mb: decoded as zero "
                       "(--strict refuses them)");
  if (count(Quirk::kMissingStepSizes) > 0)
    warnings.push_back(n(Quirk::kMissingStepSizes) +
                       " tile-component(s) whose QCD/QCC lists fewer step sizes than subbands: the missing ones were "
                       "derived from the coarser levels' (--strict refuses them)");
}

}  // namespace mallat::codec

// The restricted ICC profiles a JP2 file may carry (I.5.3.3, method 2): a
// Monochrome Input profile (grey tone curve kTRC) or a Three-Component
// Matrix-Based Input profile (rXYZ/gXYZ/bXYZ colorants and rTRC/gTRC/bTRC
// tone curves), both to the XYZ connection space (ICC.1:1998-09, 6.3.1).
// Applying one gives sRGB samples: what OpenJPEG's decoder does through
// LittleCMS, and what the JP2 conformance references were made with.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "common/image.h"
#include "common/status.h"

namespace mallat::codec {

// An ICC tone curve (curveType or parametricCurveType) from [0, 1] to [0, 1].
struct ToneCurve {
  enum class Kind { kIdentity, kGamma, kTable, kParametric } kind = Kind::kIdentity;
  double gamma = 1;
  std::vector<uint16_t> table;  // kTable: samples over [0, 1], linearly interpolated
  int function = 0;             // kParametric: ICC function type 0..4
  std::array<double, 7> params{};  // g, a, b, c, d, e, f
  double apply(double x) const;
};

struct RestrictedIccProfile {
  bool monochrome = false;  // kTRC only; otherwise three colorants
  std::array<ToneCurve, 3> curves;  // r, g, b (or grey in [0])
  // Columns: the XYZ (D50) of full red, green and blue.
  std::array<std::array<double, 3>, 3> colorants{};
};

// Errors name the tag and the byte offset in the profile.
Result<RestrictedIccProfile> parse_restricted_icc(std::span<const uint8_t> profile);

// The image's samples (components 0..2, or 0 for a grey profile; unsigned, of
// one precision) converted from image.icc_profile to sRGB at the same
// precision: tone curves, colorants to XYZ, XYZ to linear sRGB (primaries of
// IEC 61966-2-1 adapted to D50 with the Bradford transform, as ICC
// profiles of sRGB hold them), the sRGB curve, rounding. A grey image
// becomes three components. The profile is dropped and color_space is kRgb.
Status icc_to_srgb(Image& image);

}  // namespace mallat::codec

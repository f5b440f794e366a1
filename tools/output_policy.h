// Every decodable image to every output format: what `mallat
// decode` changes so that the format can hold the image, each change said in
// a note. PGX holds anything (one file per component), raw planes what the
// decoder gives (one precision and signedness, up to 16 bits); the interleaved
// formats get:
// - components of different sizes upsampled to the image grid; components
//   that all share one sub-sampling written at their size;
// - channels the format cannot hold left out: PPM/PGM and BMP keep 1 or 3
//   (an alpha channel or extra components dropped; -split-pnm, PAM, PNG and
//   TIFF keep alpha), PNG and TIFF up to 4, PAM any number;
// - one precision for all (the lower ones scaled up), at most the format's
//   bits (scaled down by a right shift, as opj_decompress);
// - signed samples offset by 2^(B-1) to unsigned, as opj_decompress does.
#pragma once

#include <string>
#include <vector>

#include "common/image.h"
#include "common/status.h"
#include "io/image_io.h"

namespace mallat::tools {

// What a format's writer holds (io/): channel counts (empty: any), bits per
// sample, whether it keeps an ICC profile. None of them holds signed samples
// but PGX.
struct FormatLimits {
  std::vector<int> counts;
  int max_bits = 16;
  bool signed_samples = false;
  bool icc_profile = false;
};
FormatLimits format_limits(io::Format format);

// Whether the format holds each component at its own size: PGX (a file
// each) and raw planes (.raw, .rawl: one after another, written as decoded).
bool planar(io::Format format);

// Whether a sub-sampled image must be upsampled for `format` (several sizes
// in one interleaved raster), or may be written at its components' size.
bool needs_upsampling(const Image& image, io::Format format);

// Fits `image`, already on one grid where the format interleaves, to what
// `format` holds (see above), appending a note per change. A per-component
// format (PGX, -split-pnm as one PGM per component) is fitted component by
// component: sign and bits only.
void fit_to_format(Image& image, io::Format format, bool per_component, std::vector<std::string>* notes);

}  // namespace mallat::tools

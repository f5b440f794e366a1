// Annex I applied to decoded components: the palette and component mapping
// (I.5.3.4, I.5.3.5), the channel definitions (I.5.3.6) and the colour
// specification (I.5.3.3), so that the Image is what the JP2 file describes
// rather than what its codestream holds.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "codec/jp2/jp2_boxes.h"
#include "common/image.h"
#include "common/status.h"

namespace mallat::codec {

// In place, on the components as the codestream decodes them:
// - pclr + cmap: channel i of cmap is component CMP directly (MTYP 0) or the
//   palette column PCOL looked up by that component's samples (MTYP 1), with
//   the column's precision and signedness;
// - cdef: colour channels move to the position their association names,
//   opacity and premultiplied opacity channels follow (Component::role,
//   Image::has_alpha when the last one is opacity);
// - the first colr: enumerated sRGB / greyscale / sYCC set color_space, a
//   restricted ICC profile is kept in Image::icc_profile.
// Inconsistent boxes are errors naming the box and its byte offset; problems
// that leave a usable image (an index past the palette, an unknown enumerated
// space, a colour space with more colour channels than the file has) are
// appended to `warnings`. Without `strict`, a cdef that describes a channel
// twice is read as its first description of it, with a warning.
Status apply_jp2_header(const Jp2File& jp2, Image& image, std::vector<std::string>* warnings, bool strict = false);

// The reverse, for writing a JP2 file of `image`: its colour space as an
// enumerated one, its ICC profile when it is a restricted one (I.5.3.3: a
// monochrome or three-component matrix-based profile; any other is dropped
// with a warning), and cdef entries when a channel is not plain colour
// (opacity from Component::role, or the last component when has_alpha).
Jp2Description describe_for_jp2(const Image& image, std::vector<std::string>* warnings = nullptr);

}  // namespace mallat::codec

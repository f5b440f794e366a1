// The last steps of decoding a tile: the inverse multiple-component transform
// of components 0..2 (G.2 RCT, G.3 ICT), the inverse DC level shift (G.1.2),
// the clamp to each component's range, and the copy of the tile's samples to
// their place in the output image.
//
// write_tile works in bands of rows on the thread pool and takes each row
// through every step while it is in cache; write_tile_reference does one step
// at a time over whole planes (the decoder's original sequence). Tests hold
// the two to identical output.
#pragma once

#include <cstdint>
#include <span>

#include "common/image.h"
#include "common/plane_view.h"
#include "common/thread_pool.h"
#include "dwt/geometry.h"

namespace mallat::codec {

// One tile-component after the inverse DWT, at the decoded (reduced)
// resolution. Exactly one of the views holds samples: integers for the
// reversible 5/3 path, floats for the irreversible 9/7 path.
struct DecodedTileComponent {
  dwt::Rect rect;                // where the samples lie on the component's reduced grid
  PlaneView<int32_t> samples53;  // reversible
  PlaneView<float> samples97;    // irreversible

  bool reversible() const { return samples97.data == nullptr; }
  int64_t width() const { return rect.width(); }
  int64_t height() const { return rect.height(); }
};

// Writes the tile into `image`. colour_transform: components 0..2 go through
// the inverse RCT (reversible) or ICT (irreversible) first; the caller has
// checked that they have one size and one wavelet. origin_x[c], origin_y[c]:
// the image's top-left on component c's reduced grid; samples outside the
// image are dropped. Each image component's samples must already hold
// width * height values; precision and signedness come from the image
// component. The 9/7's planes are scratch (the ICT runs in place where
// components 0..2 land on different columns or have more than 24 bits;
// elsewhere it runs in one pass with the rest: output_kernels.h); the
// 5/3's are only read (the streamed decoder hands over the inverse DWT's
// rows, which it reads again).
void write_tile(std::span<const DecodedTileComponent> tile, bool colour_transform,
                std::span<const int64_t> origin_x, std::span<const int64_t> origin_y, Image& image,
                ThreadPool& pool);

// Whether write_tile_bytes takes `image`'s components: each unsigned, of 1
// to 8 bits, all of one size.
bool fits_bytes(const Image& image);

// write_tile's samples narrowed to bytes, the components interleaved (a
// binary PNM's raster: bytes[(y * width + x) * components + c]), in place of
// image's samples (`image` only describes the components; fits_bytes). The
// same values as write_tile then an interleave of its samples, the RCT or
// ICT, shift, clamp and narrowing in one pass per row (output_kernels.h;
// tests/codec/tile_output_test.cc). The 9/7's planes are only read here.
void write_tile_bytes(std::span<const DecodedTileComponent> tile, bool colour_transform,
                      std::span<const int64_t> origin_x, std::span<const int64_t> origin_y, const Image& image,
                      uint8_t* bytes, ThreadPool& pool);

// The same result, step by step over whole planes with the plain functions
// of component_transform.h.
void write_tile_reference(std::span<const DecodedTileComponent> tile, bool colour_transform,
                          std::span<const int64_t> origin_x, std::span<const int64_t> origin_y,
                          Image& image);

}  // namespace mallat::codec

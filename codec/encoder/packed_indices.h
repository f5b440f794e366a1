// A code-block's quantisation indices packed for the wait between
// quantisation and the coding at the planes rate control chooses
// (kept_indices.h). An index's magnitude falls off fast below its block's
// largest, so each group of 8 indices along a row (fewer at the row's end)
// takes only the bits its own largest needs: one byte w (0..32), then the 8
// indices' zig-zag values (2|q| - (q < 0), so the sign costs one bit) at w
// bits each, in w bytes: byte plane k (bits 8k.. of each value) as the
// values' min(8, w - 8k) low bits, value i's bits at i x that count. A
// group of zeros after another is counted in the first one's byte instead:
// bytes 33..255 stand for runs of 2..224 groups of zeros (row after row).
// Indices whose magnitude lies below 2^F, F the fraction bits below the
// index (quant/quantize.h), are packed as zeros: the HT coder reads the
// bits |q| >> (p + F) of a cleanup at plane p >= 0 (15444-15 Annex B) and
// of SigProp and MagRef at p - 1 >= 0 (Annex C), and measures a pass's
// decrease of distortion only over the samples those make significant or
// refine, so such an index codes and measures as 0 at every plane. A
// photograph's indices take well under a byte each.
//
// Two packers write the same bytes: a plain one, bit by bit, and where the
// CPU has AVX2 and BMI2 one that gathers each byte plane with PEXT (and
// scatters it back with PDEP); the plain one is the reference the fast one
// is tested against.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/plane_view.h"

namespace mallat::codec {

// The most bytes pack_indices writes for a block of `width` x `height`
// indices (every group at 32 bits).
size_t packed_indices_bound(int64_t width, int64_t height);

// Packs `indices`, those of magnitude below 2^fraction_bits as zeros, into
// `out` (packed_indices_bound bytes of room); returns the bytes written.
size_t pack_indices(PlaneView<const int32_t> indices, int fraction_bits, uint8_t* out);
// Unpacks what pack_indices wrote (`bytes` of it) into `out`, the block's
// size. False where the bytes do not hold such a block.
bool unpack_indices(const uint8_t* in, size_t bytes, PlaneView<int32_t> out);

// The plain packer and unpacker, bit by bit: the same bytes and indices.
size_t pack_indices_reference(PlaneView<const int32_t> indices, int fraction_bits, uint8_t* out);
bool unpack_indices_reference(const uint8_t* in, size_t bytes, PlaneView<int32_t> out);

// Whether pack_indices and unpack_indices take the PEXT/PDEP path here.
bool packed_indices_fast();

}  // namespace mallat::codec

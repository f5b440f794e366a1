// Annex G: DC level shifting and the multiple-component transforms.
// The reversible colour transform (RCT, G.2) goes with the 5/3 wavelet and
// is exact on integers; the irreversible one (ICT, G.3) goes with the 9/7.
#pragma once

#include <cstdint>
#include <span>

namespace mallat::codec {

// G.1.2: unsigned samples are shifted by -2^(precision-1) before coding and
// back after decoding; signed samples are left as they are.
void dc_level_shift_forward(std::span<int32_t> samples, int precision, bool is_signed);
void dc_level_shift_inverse(std::span<int32_t> samples, int precision, bool is_signed);

// G.2: forward RCT on three equal-length planes, in place: (R, G, B) -> (Y, Cb, Cr).
void rct_forward(std::span<int32_t> c0, std::span<int32_t> c1, std::span<int32_t> c2);
void rct_inverse(std::span<int32_t> c0, std::span<int32_t> c1, std::span<int32_t> c2);

// G.3: forward and inverse ICT on float planes, in place.
void ict_forward(std::span<float> c0, std::span<float> c1, std::span<float> c2);
void ict_inverse(std::span<float> c0, std::span<float> c1, std::span<float> c2);

// G.1.2's DC level shift and the forward RCT (G.2) or ICT (G.3) in one pass
// over components 0..2 as read (i0, i1, i2, unshifted): each sample less
// its component's `shift`, then transformed into c0..c2; the same values
// as dc_level_shift_forward (for the ICT: the shifted integer turned into
// a float) and then rct_forward or ict_forward, which a streamed encode
// would otherwise run as a second pass over its rows. The six arrays do
// not overlap.
void shifted_rct_forward(std::span<const int32_t> i0, std::span<const int32_t> i1, std::span<const int32_t> i2,
                         const int32_t shift[3], int32_t* c0, int32_t* c1, int32_t* c2);
void shifted_ict_forward(std::span<const int32_t> i0, std::span<const int32_t> i1, std::span<const int32_t> i2,
                         const int32_t shift[3], float* c0, float* c1, float* c2);

// G.1.2 after an irreversible decode: rounds each float to the nearest
// integer (ties to even, lrintf as OpenJPEG), adds the DC level shift of
// unsigned components and clamps to the component's range.
void samples_from_floats(std::span<const float> in, std::span<int32_t> out, int precision, bool is_signed);

// Clamps decoded samples to the component's range (G.1.2 after the inverse shift).
void clamp_to_precision(std::span<int32_t> samples, int precision, bool is_signed);

}  // namespace mallat::codec

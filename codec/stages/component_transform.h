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

// G.1.2 after an irreversible decode: rounds each float to the nearest
// integer (ties to even, lrintf as OpenJPEG), adds the DC level shift of
// unsigned components and clamps to the component's range.
void samples_from_floats(std::span<const float> in, std::span<int32_t> out, int precision, bool is_signed);

// Clamps decoded samples to the component's range (G.1.2 after the inverse shift).
void clamp_to_precision(std::span<int32_t> samples, int precision, bool is_signed);

}  // namespace mallat::codec

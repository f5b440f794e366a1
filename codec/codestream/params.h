// Coding parameters as the marker segments of Annex A carry them. The
// codestream reader fills these from SIZ/COD/COC/QCD/QCC/POC/RGN, the writer
// serialises them, and the tile/packet machinery (Tier-2, geometry) reads
// them. Plain values only: no behaviour beyond small helpers.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "codec/api/coding_types.h"
#include "quant/step_size.h"

namespace mallat::codec {

// A.5.1, Table A.11: Ssiz, XRsiz, YRsiz of one component.
struct ComponentSize {
  int precision = 8;   // 1..38 bits
  bool is_signed = false;
  int dx = 1, dy = 1;  // XRsiz, YRsiz: 1..255
  friend bool operator==(const ComponentSize&, const ComponentSize&) = default;
};

// A.5.1: SIZ, the image and tile geometry on the reference grid.
struct ImageAndTileSize {
  uint16_t rsiz = 0;     // capabilities
  uint32_t xsiz = 0, ysiz = 0;    // reference grid size
  uint32_t xosiz = 0, yosiz = 0;  // image area offset
  uint32_t xtsiz = 0, ytsiz = 0;  // nominal tile size
  uint32_t xtosiz = 0, ytosiz = 0;  // tile grid offset
  std::vector<ComponentSize> components;

  // B-5; in 64 bits because Xsiz + XTsiz may exceed 32 bits.
  uint32_t tiles_x() const {
    return static_cast<uint32_t>((uint64_t{xsiz} - xtosiz + xtsiz - 1) / xtsiz);
  }
  uint32_t tiles_y() const {
    return static_cast<uint32_t>((uint64_t{ysiz} - ytosiz + ytsiz - 1) / ytsiz);
  }
  friend bool operator==(const ImageAndTileSize&, const ImageAndTileSize&) = default;
};

// A.6.1 / A.6.2: the per-component part of COD, or a COC.
struct ComponentCoding {
  int levels = 5;            // decomposition levels, 0..32
  int xcb = 6, ycb = 6;      // code-block size exponents (2^xcb), 2..10, xcb + ycb <= 12
  CodeBlockStyle style;
  bool reversible = true;    // 5/3 (true) or 9/7 (false) wavelet
  // PPx, PPy per resolution level 0..levels (Table A.21); empty means the
  // default of 15,15 for every resolution (no precinct partition).
  std::vector<std::array<uint8_t, 2>> precinct_exponents;

  int ppx(int r) const { return precinct_exponents.empty() ? 15 : precinct_exponents[r][0]; }
  int ppy(int r) const { return precinct_exponents.empty() ? 15 : precinct_exponents[r][1]; }
  friend bool operator==(const ComponentCoding&, const ComponentCoding&) = default;
};

// A.6.1: COD.
struct CodingStyle {
  bool sop = false;          // Scod bit 1: SOP marker before each packet
  bool eph = false;          // Scod bit 2: EPH marker after each packet header
  ProgressionOrder order = ProgressionOrder::kLRCP;
  int layers = 1;            // 1..65535
  bool multiple_component_transform = false;  // RCT (5/3) or ICT (9/7) on components 0..2
  ComponentCoding component; // default for components without a COC
  friend bool operator==(const CodingStyle&, const CodingStyle&) = default;
};

// A.6.4, Table A.28: quantisation style.
enum class QuantizationStyle : uint8_t { kNone = 0, kScalarDerived = 1, kScalarExpounded = 2 };

// E.1: one subband's step size (quant/step_size.h); for kNone only the
// exponent is used (epsilon_b).
using quant::StepSize;

// A.6.4 / A.6.5: QCD or QCC. Steps are in subband order: LL of the lowest
// resolution, then HL, LH, HH of each decomposition level from the coarsest
// (nb = levels) to the finest (nb = 1). kScalarDerived carries one step.
struct Quantization {
  QuantizationStyle style = QuantizationStyle::kNone;
  int guard_bits = 2;   // 0..7
  std::vector<StepSize> steps;
  // The step of subband `index` (in that order) of a component with `levels`
  // levels, for encoder and decoder alike: quant::subband_step_size, which
  // applies E-5 when the style is scalar derived.
  Result<StepSize> subband_step(int levels, int index) const {
    return quant::subband_step_size(steps, style == QuantizationStyle::kScalarDerived, levels, index);
  }
  friend bool operator==(const Quantization&, const Quantization&) = default;
};

}  // namespace mallat::codec

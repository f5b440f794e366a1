// The L2 norms of the wavelet synthesis basis functions of each subband: how
// much a unit error in one coefficient of subband b moves the reconstructed
// image (its squared norm is the "energy weight" of the subband). The
// encoder sizes irreversible step sizes by them (Delta_b = base / norm_b)
// and the rate allocator weighs each code-block's distortion by norm_b^2.
#pragma once

#include <vector>

#include "common/status.h"
#include "dwt/dwt.h"

namespace mallat::codec {

// One norm per subband in the signalling order of A.6.4 (LL, then HL, LH,
// HH from the coarsest level to the finest), 3 * levels + 1 of them. They
// are measured with the reference inverse transform of dwt/, so they match
// its normalisation (Table E.1 gains) by construction: each 2-D basis
// function is the outer product of two 1-D ones, so its norm is the product
// of the 1-D impulse responses' norms.
Result<std::vector<double>> subband_synthesis_norms(dwt::Wavelet wavelet, int levels);

}  // namespace mallat::codec

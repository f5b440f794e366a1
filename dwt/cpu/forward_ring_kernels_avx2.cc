// The line DWT's ring kernels compiled with -mavx2 -mfma (dwt/CMakeLists.txt);
// ISO C++ keeps -ffp-contract=off, so the 9/7 results equal the generic build's.
#define MALLAT_DWT_ISA avx2
#include "dwt/cpu/forward_ring_kernels_isa.h"

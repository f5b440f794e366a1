// The line DWT's ring kernels compiled with -mavx2 -mfma (dwt/CMakeLists.txt),
// with the 9/7 steps fused as in kernels_avx2.cc, so the 9/7 results equal
// the CPU backend's of the same build.
#define MALLAT_DWT_ISA avx2
#include "dwt/cpu/forward_ring_kernels_isa.h"

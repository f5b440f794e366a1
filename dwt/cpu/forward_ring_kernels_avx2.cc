// The line DWT's ring kernels compiled with -mavx2 -mfma (dwt/CMakeLists.txt),
// contracted as kernels_avx2.cc is, so the 9/7 results equal the CPU
// backend's of the same build.
#define MALLAT_DWT_ISA avx2
#include "dwt/cpu/forward_ring_kernels_isa.h"

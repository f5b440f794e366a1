// The CPU kernels compiled with -mavx2 -mfma (dwt/CMakeLists.txt); used only
// where the CPU reports both. The 9/7 steps x + c * (a + b) are fused
// multiply-adds here (wavelet_97.h's Step writes them out under -mfma), so
// the 9/7 results differ from the generic build's in the last bits; the
// one-pass kernels fuse them as the loops do.
#define MALLAT_DWT_ISA avx2
#include "dwt/cpu/isa_kernels.h"

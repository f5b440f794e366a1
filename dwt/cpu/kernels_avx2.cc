// The CPU kernels compiled with -mavx2 -mfma (dwt/CMakeLists.txt); used only
// where the CPU reports both. ISO C++ mode keeps -ffp-contract=off, so the
// 9/7 results are the same as the generic build's, only computed wider.
#define MALLAT_DWT_ISA avx2
#include "dwt/cpu/isa_kernels.h"

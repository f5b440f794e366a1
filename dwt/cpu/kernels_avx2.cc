// The CPU kernels compiled with -mavx2 -mfma (dwt/CMakeLists.txt); used only
// where the CPU reports both. g++ contracts the 9/7 steps x + c * (a + b)
// into FMAs here (its default for C++ is -ffp-contract=fast, ISO mode or
// not), so the 9/7 results differ from the generic build's in the last bits;
// the one-pass kernels do as the contracted loops do.
#define MALLAT_DWT_ISA avx2
#include "dwt/cpu/isa_kernels.h"

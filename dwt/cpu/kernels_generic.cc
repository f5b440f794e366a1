// The CPU kernels for the compiler's baseline instruction set (SSE2 on
// x86-64).
#define MALLAT_DWT_ISA generic
#include "dwt/cpu/isa_kernels.h"

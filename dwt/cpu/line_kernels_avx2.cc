// The line-based inverse DWT's kernels built with -mavx2 -mfma, as kernels_avx2.cc.
#define MALLAT_DWT_ISA avx2
#include "dwt/cpu/ring_sweep.h"

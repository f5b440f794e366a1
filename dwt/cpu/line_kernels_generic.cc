// The line-based inverse DWT's kernels, generic build (ring_sweep.h).
#define MALLAT_DWT_ISA generic
#include "dwt/cpu/ring_sweep.h"

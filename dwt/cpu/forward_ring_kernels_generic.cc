// The line DWT's ring kernels for the baseline instruction set.
#define MALLAT_DWT_ISA generic
#include "dwt/cpu/forward_ring_kernels_isa.h"

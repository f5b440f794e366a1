// Picks the kernels' instruction set at run time.
#include "dwt/cpu/kernels.h"

#include "dwt/cpu/line_kernels.h"

namespace mallat::dwt::cpu {

bool isa_available(Isa isa) {
  switch (isa) {
    case Isa::kBest:
    case Isa::kGeneric:
      return true;
    case Isa::kAvx2:
#if defined(MALLAT_DWT_AVX2) && (defined(__x86_64__) || defined(__i386__))
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
      return false;
#endif
  }
  return false;
}

Isa resolve_isa(Isa isa) {
  if (isa == Isa::kBest) return isa_available(Isa::kAvx2) ? Isa::kAvx2 : Isa::kGeneric;
  return isa_available(isa) ? isa : Isa::kGeneric;
}

const Kernels<int32_t>& kernels_53(Isa isa) {
#if defined(MALLAT_DWT_AVX2)
  if (resolve_isa(isa) == Isa::kAvx2) return avx2::kernels_53();
#endif
  (void)isa;
  return generic::kernels_53();
}

const Kernels<float>& kernels_97(Isa isa) {
#if defined(MALLAT_DWT_AVX2)
  if (resolve_isa(isa) == Isa::kAvx2) return avx2::kernels_97();
#endif
  (void)isa;
  return generic::kernels_97();
}

const LineKernels<int32_t>& line_kernels_53(Isa isa) {
#if defined(MALLAT_DWT_AVX2)
  if (resolve_isa(isa) == Isa::kAvx2) return avx2::line_kernels_53();
#endif
  (void)isa;
  return generic::line_kernels_53();
}

const LineKernels<float>& line_kernels_97(Isa isa) {
#if defined(MALLAT_DWT_AVX2)
  if (resolve_isa(isa) == Isa::kAvx2) return avx2::line_kernels_97();
#endif
  (void)isa;
  return generic::line_kernels_97();
}

const char* isa_name(Isa isa) {
  switch (resolve_isa(isa)) {
    case Isa::kAvx2: return "avx2";
    default: return "generic";
  }
}

}  // namespace mallat::dwt::cpu

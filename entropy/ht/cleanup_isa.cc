// The fast HT cleanup coders' instruction set, chosen at run time.
#include "entropy/ht/cleanup_isa.h"
#include "entropy/ht/passes.h"

#if MALLAT_HT_BMI2
#include <cpuid.h>
#endif

namespace mallat::entropy::ht {
namespace {

#if MALLAT_HT_BMI2
// LZCNT is CPUID 0x80000001 ECX bit 5 (ABM); asked directly because
// clang's __builtin_cpu_supports has no "lzcnt".
bool has_lzcnt() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(0x80000001u, &a, &b, &c, &d) != 0 && (c & (1u << 5)) != 0;
}
#endif

}  // namespace

bool cleanup_isa_available(CleanupIsa isa) {
  switch (isa) {
    case CleanupIsa::kBest:
    case CleanupIsa::kGeneric:
      return true;
    case CleanupIsa::kBmi2:
#if MALLAT_HT_BMI2
      return __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") && has_lzcnt() &&
             __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("avx2");
#else
      return false;
#endif
  }
  return false;
}

CleanupIsa resolve_cleanup_isa(CleanupIsa isa) {
  static const bool bmi2 = cleanup_isa_available(CleanupIsa::kBmi2);
  if (isa == CleanupIsa::kBest) return bmi2 ? CleanupIsa::kBmi2 : CleanupIsa::kGeneric;
  return isa == CleanupIsa::kBmi2 && !bmi2 ? CleanupIsa::kGeneric : isa;
}

}  // namespace mallat::entropy::ht

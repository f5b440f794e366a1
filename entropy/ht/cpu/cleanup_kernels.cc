// The fast HT cleanup coders' instruction set, chosen once at run time
// from what the CPU has (or MALLAT_HT_ISA), and encode_cleanup /
// decode_cleanup through its kernels.
#include "entropy/ht/cpu/cleanup_kernels.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "entropy/ht/passes.h"

#if MALLAT_HT_X86
#include <cpuid.h>
#endif

namespace mallat::entropy::ht {
namespace {

#if MALLAT_HT_X86
// LZCNT is CPUID 0x80000001 ECX bit 5 (ABM); asked directly because
// clang's __builtin_cpu_supports has no "lzcnt".
bool has_lzcnt() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(0x80000001u, &a, &b, &c, &d) != 0 && (c & (1u << 5)) != 0;
}
#endif

bool cpu_has(CleanupIsa isa) {
#if MALLAT_HT_X86
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
                    __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt") && has_lzcnt();
  if (isa == CleanupIsa::kAvx2) return avx2;
  if (isa == CleanupIsa::kAvx512) {
    return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  }
#endif
  return isa == CleanupIsa::kGeneric;
}

// The best instruction set this CPU has at or below `isa`.
CleanupIsa best_at_most(CleanupIsa isa) {
  static const bool avx2 = cpu_has(CleanupIsa::kAvx2), avx512 = cpu_has(CleanupIsa::kAvx512);
  if (isa == CleanupIsa::kAvx512 && avx512) return CleanupIsa::kAvx512;
  if (isa != CleanupIsa::kGeneric && avx2) return CleanupIsa::kAvx2;
  return CleanupIsa::kGeneric;
}

// kBest: MALLAT_HT_ISA where set to a known name (an unknown one is said
// once on stderr and ignored), else the best of all.
CleanupIsa chosen_best() {
  const char* wanted = std::getenv("MALLAT_HT_ISA");
  if (wanted == nullptr || *wanted == '\0') return best_at_most(CleanupIsa::kAvx512);
  if (std::strcmp(wanted, "generic") == 0) return CleanupIsa::kGeneric;
  if (std::strcmp(wanted, "avx2") == 0) return best_at_most(CleanupIsa::kAvx2);
  if (std::strcmp(wanted, "avx512") == 0) return best_at_most(CleanupIsa::kAvx512);
  std::fprintf(stderr, "mallat: MALLAT_HT_ISA=%s is not generic, avx2 or avx512; ignored\n", wanted);
  return best_at_most(CleanupIsa::kAvx512);
}

const cpu::CleanupKernels& kernels(CleanupIsa isa) {
  switch (resolve_cleanup_isa(isa)) {
#if MALLAT_HT_X86
    case CleanupIsa::kAvx512: return cpu::avx512::cleanup_kernels();
    case CleanupIsa::kAvx2: return cpu::avx2::cleanup_kernels();
#endif
    default: return cpu::generic::cleanup_kernels();
  }
}

}  // namespace

bool cleanup_isa_available(CleanupIsa isa) { return isa == CleanupIsa::kBest || cpu_has(isa); }

CleanupIsa resolve_cleanup_isa(CleanupIsa isa) {
  if (isa == CleanupIsa::kBest) {
    static const CleanupIsa best = chosen_best();
    return best;
  }
  return best_at_most(isa);
}

const char* cleanup_isa_name(CleanupIsa isa) {
  switch (resolve_cleanup_isa(isa)) {
    case CleanupIsa::kAvx512: return "avx512";
    case CleanupIsa::kAvx2: return "avx2";
    default: return "generic";
  }
}

void encode_cleanup(PlaneView<const int32_t> coefficients, int shift, std::vector<uint8_t>& segment,
                    CleanupIsa isa) {
  kernels(isa).encode(coefficients, shift, segment);
}

bool decode_cleanup(std::span<const uint8_t> segment, int p, int planes_above, PlaneView<int32_t> out,
                    CleanupIsa isa) {
  return kernels(isa).decode(segment, p, planes_above, out);
}

}  // namespace mallat::entropy::ht

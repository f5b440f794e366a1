// The irreversible 9/7 lifting steps of F.4.8.2 (forward) and F.3.8.2
// (inverse) in single precision, with the Table F.4 normalisation: the
// low-pass band is scaled by 1/K and the high-pass band by K on analysis.
#pragma once

#include <cmath>
#include <cstdint>

#include "dwt/cpu/hor_sd.h"
#include "dwt/cpu/hor_sr_97.h"
#include "dwt/lifting_constants.h"

namespace mallat::dwt::cpu::MALLAT_DWT_ISA {

constexpr float kAlpha = static_cast<float>(lifting97::kAlpha);
constexpr float kBeta = static_cast<float>(lifting97::kBeta);
constexpr float kGamma = static_cast<float>(lifting97::kGamma);
constexpr float kDelta = static_cast<float>(lifting97::kDelta);
constexpr float kK = static_cast<float>(lifting97::kK);
constexpr float kInvK = static_cast<float>(1.0 / lifting97::kK);

// A lifting step x +- c (a + b). Where the build has FMA it is one fused
// multiply-add, written out rather than left to the compiler's contraction,
// which other flags (the sanitizers') can turn off: the one-pass row kernels
// (hor_sd.h, hor_sr_97.h) and the CUDA transform fuse it always, and every
// path must give the same floats.
template <int kSign>
struct Step {
  float c;
  float operator()(float x, float a, float b) const {
#if defined(__FMA__)
    return std::fma(kSign > 0 ? c : -c, a + b, x);
#else
    return kSign > 0 ? x + c * (a + b) : x - c * (a + b);
#endif
  }
};

struct Irreversible97 {
  template <typename L>
  static void forward(const L& l) {
    l.on_d(Step<1>{kAlpha});
    l.on_s(Step<1>{kBeta});
    l.on_d(Step<1>{kGamma});
    l.on_s(Step<1>{kDelta});
    l.scale_d(kK);
    l.scale_s(kInvK);
  }
  template <typename L>
  static void inverse(const L& l) {
    l.scale_s(kK);
    l.scale_d(kInvK);
    l.on_s(Step<-1>{kDelta});
    l.on_d(Step<-1>{kGamma});
    l.on_s(Step<-1>{kBeta});
    l.on_d(Step<-1>{kAlpha});
  }
#if defined(__AVX2__) && defined(__FMA__)
  // HOR_SD in one pass (hor_sd.h), which lifting.h's forward_row_apart
  // takes where a wavelet has it.
  static void forward_apart(const float* in, float* low, float* high, int64_t n, int64_t i0, float factor) {
    hor_sd_97_avx2<Irreversible97>(in, low, high, n, i0, factor, kAlpha, kBeta, kGamma, kDelta, kK, kInvK);
  }
  // HOR_SR in one pass (hor_sr_97.h), which lifting.h's inverse_row_apart
  // takes where a wavelet has it; s and d are only read.
  static void inverse_interleaved(const float* s, const float* d, float* row, const Split& sp, float factor) {
    hor_sr_97_avx2<Irreversible97>(s, d, row, sp.sn + sp.dn, sp.odd_first ? 1 : 0, factor, kAlpha, kBeta, kGamma,
                                   kDelta, kK, kInvK);
  }
#endif
  static float lone_forward(float x) { return x * 2.0f; }
  static float lone_inverse(float x) { return x * 0.5f; }
};

}  // namespace mallat::dwt::cpu::MALLAT_DWT_ISA

// Wall time per pipeline stage of one encode or decode call, for benchmarks
// (`mallat bench codec`). A caller that wants the figures sets
// EncodeOptions::time_stages or DecodeOptions::time_stages and reads them
// from the call's report (or, inside the library, points
// CallResources::stage_times at one: the codec adds each stage's
// steady-clock time to it, never resets it, and measures nothing when the
// pointer is null). One call at a time per StageTimes: the codec runs its
// stages in turn, never two at once.
#pragma once

#include <chrono>

#include "common/timeline.h"

namespace mallat::codec {

struct StageTimes {
  // Encode: DC level shift and colour transform (G.1-G.3), with the tile's
  // samples read out of the image. Decode: the inverse colour transform,
  // DC shift, clamp and the samples' place in the image.
  double colour_transform_ms = 0;
  // The forward or inverse DWT (Annex F) through the backend; for a device
  // backend this includes its uploads and downloads.
  double dwt_ms = 0;
  // Encode: quantisation and Tier-1 coding (fused per code-block). Decode:
  // Tier-1 decoding and dequantisation.
  double block_coding_ms = 0;
  // Encode only: PCRD rate allocation, with the packet sizing it asks for
  // and, for -q, the decodes that correct each layer.
  double rate_allocation_ms = 0;
  // Encode: packets, tile-parts and the file's bytes. Decode: the headers
  // parsed and every tile's packets read (Annex A, B).
  double tier2_ms = 0;
};

// Adds the time from its construction to its destruction to `*sink`; does
// nothing for a null sink. With a `name` and a batch timeline on
// (common/timeline.h) the time is recorded there too, as a span of the
// calling thread's file.
class StageClock {
 public:
  explicit StageClock(double* sink, const char* name = nullptr)
      : sink_(sink), name_(name != nullptr && timeline::enabled() ? name : nullptr) {
    if (sink_ || name_) start_ = std::chrono::steady_clock::now();
  }
  ~StageClock() {
    if (!sink_ && !name_) return;
    const auto end = std::chrono::steady_clock::now();
    if (sink_) *sink_ += std::chrono::duration<double, std::milli>(end - start_).count();
    if (name_) timeline::record(name_, start_, end, timeline::current_tag());
  }
  StageClock(const StageClock&) = delete;
  StageClock& operator=(const StageClock&) = delete;

 private:
  double* sink_;
  const char* name_;
  std::chrono::steady_clock::time_point start_;
};

// The field of `times` a stage adds to, or null when nothing is measured.
inline double* stage_sink(StageTimes* times, double StageTimes::*field) { return times ? &(times->*field) : nullptr; }

}  // namespace mallat::codec

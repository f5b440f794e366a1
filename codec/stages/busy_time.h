// A device's busy time: the union of the spans in which some slot's stream
// had a tile's work queued (device_tile_stages.h). The slots run tiles side
// by side, so summing their steps counts the same moment once a slot; the
// union counts it once. `mallat bench codec --batch` reports it as the
// device's time an image.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

namespace mallat::codec {

class BusyTime {
 public:
  // Adds [start_ms, end_ms) (any clock, the same for every span; spans may
  // come in any order and overlap). Empty or reversed spans add nothing.
  void add(double start_ms, double end_ms) {
    if (!(end_ms > start_ms)) return;
    latest_start_ms_ = std::max(latest_start_ms_, start_ms);
    // The first kept span that ends at or after this one's start; every
    // span from there that starts at or before its end merges with it.
    auto first = std::lower_bound(spans_.begin(), spans_.end(), start_ms,
                                  [](const Span& s, double at) { return s.second < at; });
    auto last = first;
    while (last != spans_.end() && last->first <= end_ms) {
      start_ms = std::min(start_ms, last->first);
      end_ms = std::max(end_ms, last->second);
      ++last;
    }
    first = spans_.erase(first, last);
    spans_.insert(first, Span{start_ms, end_ms});
    fold();
  }

  // The union's length so far.
  double total_ms() const {
    double total = folded_ms_;
    for (const Span& s : spans_) total += s.second - s.first;
    return total;
  }

  // Spans kept apart (not yet folded into the total).
  size_t spans() const { return spans_.size(); }

 private:
  using Span = std::pair<double, double>;  // [start, end), merged, by start

  // A long-running engine's spans stay bounded: past kMostSpans, those that
  // ended more than kFoldAfterMs before the latest span began are summed
  // and dropped. A span that comes later overlaps them only where one
  // tile's work stayed queued on the device longer than that.
  static constexpr size_t kMostSpans = 1024;
  static constexpr double kFoldAfterMs = 60000;

  void fold() {
    if (spans_.size() <= kMostSpans) return;
    size_t n = 0;
    while (n < spans_.size() && spans_[n].second < latest_start_ms_ - kFoldAfterMs) {
      folded_ms_ += spans_[n].second - spans_[n].first;
      ++n;
    }
    spans_.erase(spans_.begin(), spans_.begin() + static_cast<std::ptrdiff_t>(n));
  }

  std::vector<Span> spans_;
  double folded_ms_ = 0;
  double latest_start_ms_ = std::numeric_limits<double>::lowest();
};

// One tile's span on the device: it starts where its first step is queued
// on its slot's stream, idle then, so that the host's steady clock at that
// moment (steady_ms) stands for the device's; its length is the device's
// own, by CUDA events from the first step to the last. Within it, the
// Tier-1 kernel's part: from tier1_from_ms after the start, tier1_ms long.
struct DeviceSpan {
  double start_ms = 0;
  double length_ms = 0;
  double tier1_from_ms = 0;
  double tier1_ms = 0;
};
// The span that starts at start_ms and runs through `n` steps one after
// another, `steps` their lengths (by CUDA events), the Tier-1 kernel's at
// index `tier1`.
inline DeviceSpan span_of_steps(double start_ms, const float* steps, int n, int tier1) {
  DeviceSpan span;
  span.start_ms = start_ms;
  for (int i = 0; i < n; ++i) {
    if (i == tier1) {
      span.tier1_from_ms = span.length_ms;
      span.tier1_ms = steps[i];
    }
    span.length_ms += steps[i];
  }
  return span;
}
inline double steady_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
// The spans of a direction's tiles: the whole steps' and Tier-1's.
struct DeviceBusy {
  BusyTime whole, tier1;
  void add(const DeviceSpan& span) {
    whole.add(span.start_ms, span.start_ms + span.length_ms);
    const double from = span.start_ms + span.tier1_from_ms;
    tier1.add(from, from + span.tier1_ms);
  }
};

}  // namespace mallat::codec

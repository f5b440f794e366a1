#include "codec/encoder/prefix_search.h"

#include <algorithm>

namespace mallat::codec {
namespace {

// What is known of the prefixes around the boundary: `lo` fits, `hi` does
// not; the overhead at an evaluated point at or below lo (when one is) and
// at one at or above hi (always: hi itself, or one it was bounded by).
struct Bracket {
  size_t lo = 0, hi = 0;
  bool lo_sized = false;  // lo's own file was sized and fits
  bool low_known = false;
  size_t low_k = 0;
  double low_over = 0;    // overhead at low_k <= lo
  size_t high_k = 0;
  double high_over = 0;   // overhead at high_k >= hi
};

// The largest k in [a, b) with body[k] + over(k) <= target, where the sum
// does not decrease with k; a - 1 when there is none (a >= 1 or the caller
// checks).
template <typename Over>
size_t last_within(std::span<const double> body, size_t a, size_t b, double target, const Over& over) {
  size_t lo = a, hi = b;  // the answer is in [a - 1, b - 1]: find the first k failing
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (body[mid] + over(mid) <= target) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo - 1;
}

}  // namespace

Result<size_t> longest_fitting_prefix(size_t lo, size_t hi, uint64_t size_hi, std::span<const double> body,
                                      double target, const SizeOfPrefix& size_of, int* sizings) {
  const size_t floor = lo;
  int calls = 0;
  const auto size_at = [&](size_t k) -> Result<uint64_t> {
    ++calls;
    return size_of(k);
  };
  Bracket b;
  b.lo = lo;
  b.hi = hi;
  b.high_k = hi;
  b.high_over = static_cast<double>(size_hi) - body[hi];
  for (int probe = 0; b.hi - b.lo > 1; ++probe) {
    // Bounds, with the overhead growing: every k <= high_k carries at most
    // high_over, so those within the target with it fit; every k >= low_k
    // carries at least low_over, so those over the target with it do not.
    const size_t sure = last_within(body, b.lo + 1, b.hi, target, [&](size_t) { return b.high_over; });
    if (sure > b.lo) {
      b.lo = sure;
      b.lo_sized = false;
    }
    if (b.low_known) {
      const size_t last = last_within(body, b.lo + 1, b.hi, target, [&](size_t) { return b.low_over; });
      b.hi = std::min(b.hi, last + 1);
    }
    if (b.hi - b.lo <= 1) break;
    // The next prefix to size: where the overhead, taken as linear between
    // the two known points, would just fit; the first probe, with no point
    // below known, sizes the bound's own lo; after six probes, bisection
    // (a guess that keeps missing on a curved overhead).
    size_t m = b.lo + (b.hi - b.lo) / 2;
    if (probe < 6 && b.low_known && b.high_k > b.low_k) {
      const double slope = (b.high_over - b.low_over) / static_cast<double>(b.high_k - b.low_k);
      const auto guess = [&](size_t k) { return b.low_over + slope * static_cast<double>(k - b.low_k); };
      m = std::clamp(last_within(body, b.lo + 1, b.hi, target, guess), b.lo + 1, b.hi - 1);
    } else if (probe == 0 && !b.low_known && b.lo > floor) {
      m = b.lo;
    }
    MALLAT_ASSIGN_OR_RETURN(const uint64_t size, size_at(m));
    const double over = static_cast<double>(size) - body[m];
    if (static_cast<double>(size) <= target) {
      b.lo = m;
      b.lo_sized = true;
      b.low_known = true;
      b.low_k = m;
      b.low_over = over;
    } else {
      b.hi = m;
      b.high_k = m;
      b.high_over = over;
    }
  }
  size_t result = b.lo;
  if (result != floor && !b.lo_sized) {
    MALLAT_ASSIGN_OR_RETURN(const uint64_t size, size_at(result));
    if (static_cast<double>(size) > target) {
      // The overhead shrank somewhere: bisection below, each answer sized.
      size_t l = floor, h = result;
      while (h - l > 1) {
        const size_t mid = l + (h - l) / 2;
        MALLAT_ASSIGN_OR_RETURN(const uint64_t s, size_at(mid));
        (static_cast<double>(s) <= target ? l : h) = mid;
      }
      result = l;
    }
  }
  if (sizings) *sizings = calls;
  return result;
}

}  // namespace mallat::codec

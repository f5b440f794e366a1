// Annex F, line by line. Each 1-D procedure extends its signal explicitly
// (1D_EXTR, F.3.7 / F.4.7), runs the lifting steps of F.3.8 / F.4.8 over the
// index ranges the extension makes available, and keeps [i0, i1).
#include "dwt/reference.h"

#include <cassert>
#include <string>
#include <vector>

#include "dwt/geometry.h"
#include "dwt/lifting_constants.h"
#include "dwt/timing.h"

namespace mallat::dwt::reference {
namespace {

using lifting97::kAlpha;
using lifting97::kBeta;
using lifting97::kDelta;
using lifting97::kGamma;
using lifting97::kK;

// Samples beyond each end that the 9/7 steps read (Tables F.2 / F.3 ask for
// at most 4); the 5/3 needs fewer, using the same margin keeps one code path.
constexpr int64_t kMargin = 4;

bool is_even(int64_t i) { return (i & 1) == 0; }

int64_t floor_div(int64_t a, int64_t b) {  // b > 0
  int64_t q = a / b;
  if ((a % b) != 0 && a < 0) --q;
  return q;
}

// A signal indexed by absolute coordinate over [i0 - kMargin, i1 + kMargin).
template <typename V>
struct Extended {
  int64_t i0, i1;
  std::vector<V> v;
  Extended(int64_t a, int64_t b) : i0(a), i1(b), v(static_cast<size_t>(b - a + 2 * kMargin)) {}
  V& operator()(int64_t i) { return v[static_cast<size_t>(i - i0 + kMargin)]; }
};

// 1D_EXTR: fill the margins with the periodic symmetric extension of the
// samples already placed in [i0, i1).
template <typename V>
void extend(Extended<V>& s) {
  for (int64_t i = s.i0 - kMargin; i < s.i1 + kMargin; ++i) {
    if (i < s.i0 || i >= s.i1) s(i) = s(pse_index(i, s.i0, s.i1));
  }
}

// Natural order <-> packed (even coordinates first, then odd).
template <typename T, typename V>
void pack(const Extended<V>& s, std::span<T> line) {
  size_t k = 0;
  for (int64_t i = s.i0; i < s.i1; ++i) {
    if (is_even(i)) line[k++] = static_cast<T>(s.v[static_cast<size_t>(i - s.i0 + kMargin)]);
  }
  for (int64_t i = s.i0; i < s.i1; ++i) {
    if (!is_even(i)) line[k++] = static_cast<T>(s.v[static_cast<size_t>(i - s.i0 + kMargin)]);
  }
}

template <typename T, typename V>
void unpack(std::span<const T> line, Extended<V>& s) {
  size_t k = 0;
  for (int64_t i = s.i0; i < s.i1; ++i) {
    if (is_even(i)) s(i) = static_cast<V>(line[k++]);
  }
  for (int64_t i = s.i0; i < s.i1; ++i) {
    if (!is_even(i)) s(i) = static_cast<V>(line[k++]);
  }
}

// Applies `step(i)` to every i of parity `odd` in [from, to).
template <typename F>
void for_parity(bool odd, int64_t from, int64_t to, F step) {
  for (int64_t i = from; i < to; ++i) {
    if (is_even(i) != odd) step(i);
  }
}

}  // namespace

// F-4: PSE_O(i, i0, i1) = i0 + min(mod(i - i0, 2(i1 - i0 - 1)),
//                                  2(i1 - i0 - 1) - mod(i - i0, 2(i1 - i0 - 1))).
int64_t pse_index(int64_t i, int64_t i0, int64_t i1) {
  const int64_t period = 2 * (i1 - i0 - 1);
  int64_t m = (i - i0) % period;
  if (m < 0) m += period;
  return i0 + (m < period - m ? m : period - m);
}

// 1D_SD with 1D_FILTD_5-3R (F.4.8.1):
//   Y(2n+1) = X(2n+1) - floor((X(2n) + X(2n+2)) / 2)     i0 - 1 <= 2n+1 < i1 + 1
//   Y(2n)   = X(2n) + floor((Y(2n-1) + Y(2n+1) + 2) / 4)   i0 <= 2n < i1
void forward_53(std::span<int32_t> line, int64_t i0) {
  const int64_t i1 = i0 + static_cast<int64_t>(line.size());
  if (line.empty()) return;
  if (line.size() == 1) {  // F.4.7: a lone odd sample is doubled
    if (!is_even(i0)) line[0] *= 2;
    return;
  }
  Extended<int64_t> s(i0, i1);
  for (int64_t i = i0; i < i1; ++i) s(i) = line[static_cast<size_t>(i - i0)];
  extend(s);
  for_parity(true, i0 - 1, i1 + 1, [&](int64_t i) { s(i) -= floor_div(s(i - 1) + s(i + 1), 2); });
  for_parity(false, i0, i1, [&](int64_t i) { s(i) += floor_div(s(i - 1) + s(i + 1) + 2, 4); });
  pack(s, line);
}

// 1D_SR with 1D_FILTR_5-3R (F.3.8.1):
//   X(2n)   = Y(2n) - floor((Y(2n-1) + Y(2n+1) + 2) / 4)
//   X(2n+1) = Y(2n+1) + floor((X(2n) + X(2n+2)) / 2)
void inverse_53(std::span<int32_t> line, int64_t i0) {
  const int64_t i1 = i0 + static_cast<int64_t>(line.size());
  if (line.empty()) return;
  if (line.size() == 1) {  // F.3.7: a lone odd sample is halved; Y is even
    if (!is_even(i0)) line[0] /= 2;  // after a forward pass (truncates like OpenJPEG)
    return;
  }
  Extended<int64_t> s(i0, i1);
  unpack<int32_t>(std::span<const int32_t>(line), s);
  extend(s);
  for_parity(false, i0 - 1, i1 + 1, [&](int64_t i) { s(i) -= floor_div(s(i - 1) + s(i + 1) + 2, 4); });
  for_parity(true, i0, i1, [&](int64_t i) { s(i) += floor_div(s(i - 1) + s(i + 1), 2); });
  for (int64_t i = i0; i < i1; ++i) line[static_cast<size_t>(i - i0)] = static_cast<int32_t>(s(i));
}

// 1D_SD with 1D_FILTD_9-7I (F.4.8.2): four lifting steps, then the high-pass
// samples are multiplied by K and the low-pass ones by 1/K, which gives the
// Table F.4 analysis filters (low-pass DC gain 1, high-pass Nyquist gain 2).
void forward_97(std::span<float> line, int64_t i0) {
  const int64_t i1 = i0 + static_cast<int64_t>(line.size());
  if (line.empty()) return;
  if (line.size() == 1) {
    if (!is_even(i0)) line[0] *= 2.0f;
    return;
  }
  Extended<double> s(i0, i1);
  for (int64_t i = i0; i < i1; ++i) s(i) = line[static_cast<size_t>(i - i0)];
  extend(s);
  for_parity(true, i0 - 3, i1 + 3, [&](int64_t i) { s(i) += kAlpha * (s(i - 1) + s(i + 1)); });
  for_parity(false, i0 - 2, i1 + 2, [&](int64_t i) { s(i) += kBeta * (s(i - 1) + s(i + 1)); });
  for_parity(true, i0 - 1, i1 + 1, [&](int64_t i) { s(i) += kGamma * (s(i - 1) + s(i + 1)); });
  for_parity(false, i0, i1, [&](int64_t i) { s(i) += kDelta * (s(i - 1) + s(i + 1)); });
  for_parity(true, i0, i1, [&](int64_t i) { s(i) = kK * s(i); });
  for_parity(false, i0, i1, [&](int64_t i) { s(i) = (1.0 / kK) * s(i); });
  pack(s, line);
}

// 1D_SR with 1D_FILTR_9-7I (F.3.8.2): undo the scaling, then the four steps
// in reverse order with opposite signs.
void inverse_97(std::span<float> line, int64_t i0) {
  const int64_t i1 = i0 + static_cast<int64_t>(line.size());
  if (line.empty()) return;
  if (line.size() == 1) {
    if (!is_even(i0)) line[0] /= 2.0f;
    return;
  }
  Extended<double> s(i0, i1);
  unpack<float>(std::span<const float>(line), s);
  extend(s);
  for_parity(false, i0 - kMargin, i1 + kMargin, [&](int64_t i) { s(i) = kK * s(i); });
  for_parity(true, i0 - kMargin, i1 + kMargin, [&](int64_t i) { s(i) = (1.0 / kK) * s(i); });
  for_parity(false, i0 - 3, i1 + 3, [&](int64_t i) { s(i) -= kDelta * (s(i - 1) + s(i + 1)); });
  for_parity(true, i0 - 2, i1 + 2, [&](int64_t i) { s(i) -= kGamma * (s(i - 1) + s(i + 1)); });
  for_parity(false, i0 - 1, i1 + 1, [&](int64_t i) { s(i) -= kBeta * (s(i - 1) + s(i + 1)); });
  for_parity(true, i0, i1, [&](int64_t i) { s(i) -= kAlpha * (s(i - 1) + s(i + 1)); });
  for (int64_t i = i0; i < i1; ++i) line[static_cast<size_t>(i - i0)] = static_cast<float>(s(i));
}

namespace {

// Runs `one_d` on every column (vertical = true) or row of `v`, through a
// copy into a temporary line.
template <typename T, typename F>
void each_line(const PlaneView<T>& v, bool vertical, int64_t i0, F one_d) {
  const int64_t lines = vertical ? v.width : v.height;
  const int64_t length = vertical ? v.height : v.width;
  std::vector<T> line(static_cast<size_t>(length));
  for (int64_t k = 0; k < lines; ++k) {
    for (int64_t j = 0; j < length; ++j) line[j] = vertical ? v.at(k, j) : v.at(j, k);
    one_d(std::span<T>(line), i0);
    for (int64_t j = 0; j < length; ++j) (vertical ? v.at(k, j) : v.at(j, k)) = line[j];
  }
}

template <typename T, typename Fwd, typename Inv>
void transform_plane(const PlaneJob& job, const PlaneView<T>& plane, Fwd fwd, Inv inv) {
  const Rect tc{job.x0, job.y0, job.x0 + plane.width, job.y0 + plane.height};
  // Level l transforms resolution NL - l + 1, i.e. ceil(tc / 2^(l-1)) (B-14),
  // held in the plane's top-left corner.
  auto region = [&](int l) { return resolution_rect(tc, l - 1, 0); };
  if (job.direction == Direction::kForward) {
    for (int l = 1; l <= job.levels; ++l) {
      const Rect r = region(l);
      if (r.empty()) break;
      const PlaneView<T> v = plane.sub(0, 0, r.width(), r.height());
      each_line(v, true, r.y0, fwd);   // F.4.2: VER_SD first,
      each_line(v, false, r.x0, fwd);  // then HOR_SD
    }
  } else {
    for (int l = job.levels; l >= 1; --l) {
      const Rect r = region(l);
      if (r.empty()) continue;
      const PlaneView<T> v = plane.sub(0, 0, r.width(), r.height());
      each_line(v, false, r.x0, inv);  // F.3.2: HOR_SR first,
      each_line(v, true, r.y0, inv);   // then VER_SR
    }
  }
}

class ReferenceBackend final : public Backend {
 public:
  std::string name() const override { return "reference"; }
  Status run(std::span<const PlaneJob> jobs) override {
    for (const PlaneJob& job : jobs) MALLAT_RETURN_IF_ERROR(transform(job));
    return Status::Ok();
  }
  Result<Timing> time(std::span<const PlaneJob> jobs, int warmup, int runs) override {
    return time_on_host(*this, jobs, warmup, runs);
  }
};

}  // namespace

Status transform(const PlaneJob& job) {
  MALLAT_RETURN_IF_ERROR(validate(job));
  if (job.wavelet == Wavelet::k53) {
    transform_plane(job, job.samples53, forward_53, inverse_53);
  } else {
    transform_plane(job, job.samples97, forward_97, inverse_97);
  }
  return Status::Ok();
}

std::unique_ptr<Backend> make_reference_backend() { return std::make_unique<ReferenceBackend>(); }

}  // namespace mallat::dwt::reference

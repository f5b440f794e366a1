#include "dwt/timing.h"

#include <chrono>
#include <cstring>
#include <vector>

namespace mallat::dwt {
namespace {

// A copy of every job's plane (rows only, not the stride padding).
struct SavedPlane {
  std::vector<unsigned char> bytes;
};

template <typename T>
void save(const PlaneView<T>& v, SavedPlane* out) {
  const size_t row_bytes = static_cast<size_t>(v.width) * sizeof(T);
  out->bytes.resize(row_bytes * static_cast<size_t>(v.height));
  for (int64_t y = 0; y < v.height; ++y) {
    std::memcpy(out->bytes.data() + row_bytes * y, v.row(y), row_bytes);
  }
}

template <typename T>
void restore(const PlaneView<T>& v, const SavedPlane& in) {
  const size_t row_bytes = static_cast<size_t>(v.width) * sizeof(T);
  for (int64_t y = 0; y < v.height; ++y) {
    std::memcpy(v.row(y), in.bytes.data() + row_bytes * y, row_bytes);
  }
}

}  // namespace

Result<Timing> time_on_host(Backend& backend, std::span<const PlaneJob> jobs, int warmup,
                            int runs) {
  if (warmup < 0 || runs < 1) return invalid_argument("time: warmup >= 0 and runs >= 1 needed");
  for (const PlaneJob& job : jobs) MALLAT_RETURN_IF_ERROR(validate(job));
  std::vector<SavedPlane> saved(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].wavelet == Wavelet::k53) save(jobs[i].samples53, &saved[i]);
    else save(jobs[i].samples97, &saved[i]);
  }
  auto restore_all = [&] {
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (jobs[i].wavelet == Wavelet::k53) restore(jobs[i].samples53, saved[i]);
      else restore(jobs[i].samples97, saved[i]);
    }
  };
  Timing timing;
  for (int i = 0; i < warmup + runs; ++i) {
    restore_all();
    const auto start = std::chrono::steady_clock::now();
    MALLAT_RETURN_IF_ERROR(backend.run(jobs));
    const auto stop = std::chrono::steady_clock::now();
    if (i >= warmup) {
      timing.run_ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    }
  }
  return timing;
}

}  // namespace mallat::dwt

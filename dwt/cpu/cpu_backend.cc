// The CPU backend's level loop (F.4.2 2D_SD: columns then rows; F.3.2
// 2D_SR: rows then columns) with the work shared among a thread pool: rows
// in blocks, columns in strips.
#include "dwt/cpu/cpu_backend.h"

#include <algorithm>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "dwt/cpu/kernels.h"
#include "dwt/geometry.h"
#include "dwt/timing.h"

namespace mallat::dwt::cpu {
namespace {

// Columns per vertical strip (wavefront.h): wide enough that the per-row
// work of a sweep is spread over many columns and a row is eight whole cache
// lines, narrow enough that the strip's scratch copy (128 x 4096 x 4 bytes
// = 2 MiB) mostly stays in L2.
constexpr int64_t kStripWidth = 128;

// Per-thread scratch that grows to the largest line or strip seen.
template <typename T>
T* scratch(size_t n) {
  thread_local std::vector<T> buffer;
  if (buffer.size() < n) buffer.resize(n);
  return buffer.data();
}

template <typename T>
void horizontal(ThreadPool& pool, const PlaneView<T>& v, int64_t x0, bool forward,
                const Kernels<T>& k) {
  const int64_t blocks = std::min<int64_t>(v.height, pool.size() * 4);
  if (blocks <= 0 || v.width <= 0) return;
  const auto one_d = forward ? k.forward_row : k.inverse_row;
  pool.parallel_for(blocks, [&](int64_t b) {
    const int64_t y_begin = v.height * b / blocks, y_end = v.height * (b + 1) / blocks;
    T* buf = scratch<T>(static_cast<size_t>(v.width));
    for (int64_t y = y_begin; y < y_end; ++y) one_d(v.row(y), v.width, x0, buf);
  });
}

template <typename T>
void vertical(ThreadPool& pool, const PlaneView<T>& v, int64_t y0, bool forward,
              const Kernels<T>& k) {
  const int64_t strips = (v.width + kStripWidth - 1) / kStripWidth;
  if (strips <= 0 || v.height <= 0) return;
  const auto one_strip = forward ? k.forward_strip : k.inverse_strip;
  pool.parallel_for(strips, [&](int64_t i) {
    const int64_t x = i * kStripWidth;
    const int64_t w = std::min(kStripWidth, v.width - x);
    T* buf = scratch<T>(static_cast<size_t>(w * v.height));
    one_strip(v.data + x, v.stride, w, v.height, y0, buf);
  });
}

template <typename T>
void transform_plane(ThreadPool& pool, const PlaneJob& job, const PlaneView<T>& plane,
                     const Kernels<T>& k) {
  const Rect tc{job.x0, job.y0, job.x0 + plane.width, job.y0 + plane.height};
  if (job.direction == Direction::kForward) {
    for (int l = 1; l <= job.levels; ++l) {
      const Rect r = resolution_rect(tc, l - 1, 0);  // B-14: ceil(tc / 2^(l-1))
      if (r.empty()) break;
      const PlaneView<T> v = plane.sub(0, 0, r.width(), r.height());
      vertical(pool, v, r.y0, true, k);
      horizontal(pool, v, r.x0, true, k);
    }
  } else {
    for (int l = job.levels; l >= 1; --l) {
      const Rect r = resolution_rect(tc, l - 1, 0);
      if (r.empty()) continue;
      const PlaneView<T> v = plane.sub(0, 0, r.width(), r.height());
      horizontal(pool, v, r.x0, false, k);
      vertical(pool, v, r.y0, false, k);
    }
  }
}

class CpuBackend final : public Backend {
 public:
  CpuBackend(int threads, Isa isa)
      : pool_(threads), isa_(resolve_isa(isa)), k53_(kernels_53(isa_)), k97_(kernels_97(isa_)) {}

  std::string name() const override {
    return std::string("cpu (") + isa_name(isa_) + ", " + std::to_string(pool_.size()) + " threads)";
  }

  Status run(std::span<const PlaneJob> jobs) override {
    for (const PlaneJob& job : jobs) MALLAT_RETURN_IF_ERROR(validate(job));
    for (const PlaneJob& job : jobs) {
      if (job.wavelet == Wavelet::k53) transform_plane(pool_.get(), job, job.samples53, k53_);
      else transform_plane(pool_.get(), job, job.samples97, k97_);
    }
    return Status::Ok();
  }

  Result<Timing> time(std::span<const PlaneJob> jobs, int warmup, int runs) override {
    return time_on_host(*this, jobs, warmup, runs);
  }

 private:
  // Whole planes only: a streamed coder's line DWT leaves it unstarted.
  PoolOnDemand pool_;
  Isa isa_;
  const Kernels<int32_t>& k53_;
  const Kernels<float>& k97_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(int threads, Isa isa) {
  return std::make_unique<CpuBackend>(threads, isa);
}

}  // namespace mallat::dwt::cpu

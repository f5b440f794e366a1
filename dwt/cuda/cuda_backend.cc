// The CUDA backend behind dwt::Backend: device selection, the batch pipeline
// of run() and the resident-data timing of time().
#include "dwt/cuda/cuda_backend.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "dwt/cuda/check.h"
#include "dwt/cuda/device_buffer.h"
#include "dwt/cuda/plane_transform.h"

namespace mallat::dwt::cuda {

Result<int> device_count() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return device_error("no CUDA device: cudaGetDeviceCount returned " +
                        std::to_string(static_cast<int>(err)) + " (" + cudaGetErrorString(err) + ")");
  }
  if (n == 0) return device_error("no CUDA device: cudaGetDeviceCount found none");
  return n;
}

std::string device_status() {
  Result<int> n = device_count();
  if (!n.ok()) return n.status().message();
  cudaDeviceProp prop{};
  Status st = check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  if (!st.ok()) return st.message();
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) +
         ", " + std::to_string(prop.multiProcessorCount) + " SMs)";
}

namespace {

constexpr int kStreams = 3;          // planes of a batch overlap copy and compute
constexpr int64_t kPitchAlign = 32;  // elements: 128-byte rows
constexpr size_t kOffsetAlign = 256;

int64_t round_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

// Where one job's planes live in the device arena and the pinned staging.
struct JobLayout {
  int64_t pitch = 0, scratch_pitch = 0, scratch_rows = 0;
  size_t in = 0, out = 0, scratch0 = 0, scratch1 = 0;  // device arena offsets
  size_t staging = 0;                                    // pinned arena offset
};

struct BatchLayout {
  std::vector<JobLayout> jobs;
  size_t device_bytes = 0;
  size_t staging_bytes = 0;
};

BatchLayout plan_batch(std::span<const PlaneJob> jobs) {
  BatchLayout b;
  size_t dev = 0, pin = 0;
  auto take = [](size_t& at, size_t bytes) {
    const size_t off = at;
    at = static_cast<size_t>(round_up(static_cast<int64_t>(at + bytes), kOffsetAlign));
    return off;
  };
  for (const PlaneJob& j : jobs) {
    JobLayout l;
    const int64_t w = j.width(), h = j.height();
    l.pitch = round_up(std::max<int64_t>(w, 1), kPitchAlign);
    l.scratch_pitch = round_up(std::max<int64_t>((w + 1) / 2, 1), kPitchAlign);
    l.scratch_rows = (h + 1) / 2;
    const size_t plane = static_cast<size_t>(l.pitch * h) * 4;
    const size_t scratch = static_cast<size_t>(l.scratch_pitch * l.scratch_rows) * 4;
    l.in = take(dev, plane);
    l.out = take(dev, plane);
    l.scratch0 = take(dev, scratch);
    l.scratch1 = take(dev, scratch);
    l.staging = take(pin, static_cast<size_t>(w * h) * 4);
    b.jobs.push_back(l);
  }
  b.device_bytes = std::max<size_t>(dev, 1);
  b.staging_bytes = std::max<size_t>(pin, 1);
  return b;
}

PlaneShape shape_of(const PlaneJob& j) {
  return PlaneShape{j.direction, j.levels, j.x0, j.y0, j.width(), j.height()};
}

// The job's samples as raw 4-byte elements (int32 and float alike).
struct HostPlane {
  std::byte* data;
  int64_t width, height, stride;
};
HostPlane host_plane(const PlaneJob& j) {
  if (j.wavelet == Wavelet::k53)
    return {reinterpret_cast<std::byte*>(j.samples53.data), j.samples53.width, j.samples53.height,
            j.samples53.stride};
  return {reinterpret_cast<std::byte*>(j.samples97.data), j.samples97.width, j.samples97.height,
          j.samples97.stride};
}

class CudaBackend final : public Backend {
 public:
  CudaBackend(std::string device, std::array<Stream, kStreams> streams, CudaBackendOptions options)
      : device_name_(std::move(device)), streams_(std::move(streams)), options_(options) {}

  std::string name() const override { return "cuda (" + device_name_ + ")"; }

  Status run(std::span<const PlaneJob> jobs) override {
    MALLAT_RETURN_IF_ERROR(prepare(jobs));
    // Plane k goes to stream k % kStreams: while the device transforms one
    // plane, the host stages the next. No synchronisation until the end.
    for (size_t k = 0; k < jobs.size(); ++k) {
      if (!active(jobs[k])) continue;
      cudaStream_t s = streams_[k % kStreams].get();
      stage_in(jobs[k], layout_.jobs[k]);
      MALLAT_RETURN_IF_ERROR(upload_async(jobs[k], layout_.jobs[k], s));
      MALLAT_RETURN_IF_ERROR(transform_async(jobs[k], layout_.jobs[k], s));
      MALLAT_RETURN_IF_ERROR(download_async(jobs[k], layout_.jobs[k], s));
    }
    MALLAT_RETURN_IF_ERROR(sync_all());
    for (size_t k = 0; k < jobs.size(); ++k)
      if (active(jobs[k])) stage_out(jobs[k], layout_.jobs[k]);
    return Status::Ok();
  }

  Result<Timing> time(std::span<const PlaneJob> jobs, int warmup, int runs) override {
    MALLAT_RETURN_IF_ERROR(prepare(jobs));
    cudaStream_t s = streams_[0].get();
    MALLAT_ASSIGN_OR_RETURN(Event start, make_event(true));
    MALLAT_ASSIGN_OR_RETURN(Event stop, make_event(true));
    Timing t;

    for (size_t k = 0; k < jobs.size(); ++k)
      if (active(jobs[k])) stage_in(jobs[k], layout_.jobs[k]);
    MALLAT_CUDA_RETURN_IF_ERROR(cudaEventRecord(start.get(), s));
    for (size_t k = 0; k < jobs.size(); ++k)
      if (active(jobs[k])) MALLAT_RETURN_IF_ERROR(upload_async(jobs[k], layout_.jobs[k], s));
    MALLAT_CUDA_RETURN_IF_ERROR(cudaEventRecord(stop.get(), s));
    MALLAT_ASSIGN_OR_RETURN(t.upload_ms, elapsed_ms(start.get(), stop.get()));

    // The whole batch as one graph: one launch per run however many levels
    // and planes, which is what keeps small images fast.
    MALLAT_ASSIGN_OR_RETURN(GraphExec graph, capture_batch(jobs, s));
    for (int i = 0; i < warmup; ++i) MALLAT_CUDA_RETURN_IF_ERROR(cudaGraphLaunch(graph.get(), s));
    for (int i = 0; i < runs; ++i) {
      MALLAT_CUDA_RETURN_IF_ERROR(cudaEventRecord(start.get(), s));
      MALLAT_CUDA_RETURN_IF_ERROR(cudaGraphLaunch(graph.get(), s));
      MALLAT_CUDA_RETURN_IF_ERROR(cudaEventRecord(stop.get(), s));
      MALLAT_ASSIGN_OR_RETURN(double ms, elapsed_ms(start.get(), stop.get()));
      t.run_ms.push_back(ms);
    }
    if (runs == 0) MALLAT_CUDA_RETURN_IF_ERROR(cudaGraphLaunch(graph.get(), s));

    MALLAT_CUDA_RETURN_IF_ERROR(cudaEventRecord(start.get(), s));
    for (size_t k = 0; k < jobs.size(); ++k)
      if (active(jobs[k])) MALLAT_RETURN_IF_ERROR(download_async(jobs[k], layout_.jobs[k], s));
    MALLAT_CUDA_RETURN_IF_ERROR(cudaEventRecord(stop.get(), s));
    MALLAT_ASSIGN_OR_RETURN(t.download_ms, elapsed_ms(start.get(), stop.get()));
    for (size_t k = 0; k < jobs.size(); ++k)
      if (active(jobs[k])) stage_out(jobs[k], layout_.jobs[k]);

    MALLAT_ASSIGN_OR_RETURN(t.copy_bytes_per_s, copy_bandwidth());
    return t;
  }

 private:
  static bool active(const PlaneJob& j) { return j.width() > 0 && j.height() > 0 && j.levels > 0; }

  Status prepare(std::span<const PlaneJob> jobs) {
    for (const PlaneJob& j : jobs) MALLAT_RETURN_IF_ERROR(validate(j));
    layout_ = plan_batch(jobs);
    MALLAT_RETURN_IF_ERROR(arena_.reserve(layout_.device_bytes));
    MALLAT_RETURN_IF_ERROR(staging_.reserve(layout_.staging_bytes));
    if (options_.poison_device_buffers) {
      // Waited for here: the batch's other streams must not race the fill.
      cudaStream_t s = streams_[0].get();
      MALLAT_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(arena_.data(), 0x7F, layout_.device_bytes, s));
      MALLAT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(s));
    }
    return Status::Ok();
  }

  // Host plane (any stride) <-> packed pinned staging.
  void stage_in(const PlaneJob& j, const JobLayout& l) {
    const HostPlane p = host_plane(j);
    std::byte* dst = staging_.data() + l.staging;
    for (int64_t y = 0; y < p.height; ++y)
      std::memcpy(dst + y * p.width * 4, p.data + y * p.stride * 4, static_cast<size_t>(p.width) * 4);
  }
  void stage_out(const PlaneJob& j, const JobLayout& l) {
    const HostPlane p = host_plane(j);
    const std::byte* src = staging_.data() + l.staging;
    for (int64_t y = 0; y < p.height; ++y)
      std::memcpy(p.data + y * p.stride * 4, src + y * p.width * 4, static_cast<size_t>(p.width) * 4);
  }

  Status upload_async(const PlaneJob& j, const JobLayout& l, cudaStream_t s) {
    return check_cuda(cudaMemcpy2DAsync(arena_.data() + l.in, l.pitch * 4, staging_.data() + l.staging,
                                        j.width() * 4, j.width() * 4, j.height(),
                                        cudaMemcpyHostToDevice, s),
                      "cudaMemcpy2DAsync (upload)");
  }
  Status download_async(const PlaneJob& j, const JobLayout& l, cudaStream_t s) {
    return check_cuda(cudaMemcpy2DAsync(staging_.data() + l.staging, j.width() * 4,
                                        arena_.data() + l.out, l.pitch * 4, j.width() * 4,
                                        j.height(), cudaMemcpyDeviceToHost, s),
                      "cudaMemcpy2DAsync (download)");
  }

  template <typename T>
  PlaneBuffers<T> buffers(const JobLayout& l) const {
    auto at = [&](size_t off, int64_t pitch) {
      return DevicePlane<T>{reinterpret_cast<T*>(arena_.data() + off), pitch};
    };
    PlaneBuffers<T> b;
    b.in = at(l.in, l.pitch);
    b.out = at(l.out, l.pitch);
    b.scratch[0] = at(l.scratch0, l.scratch_pitch);
    b.scratch[1] = at(l.scratch1, l.scratch_pitch);
    return b;
  }

  Status transform_async(const PlaneJob& j, const JobLayout& l, cudaStream_t s) {
    if (j.wavelet == Wavelet::k53) return transform_plane_async(shape_of(j), buffers<int32_t>(l), s);
    return transform_plane_async(shape_of(j), buffers<float>(l), s);
  }

  Status sync_all() {
    for (const Stream& s : streams_)
      MALLAT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(s.get()));
    return Status::Ok();
  }

  static Result<double> elapsed_ms(cudaEvent_t start, cudaEvent_t stop) {
    MALLAT_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(stop));
    float ms = 0;
    MALLAT_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, start, stop));
    return static_cast<double>(ms);
  }

  // The batch as one graph whose planes are parallel branches: plane k is
  // captured on stream k % kStreams, forked from and joined back into `s`,
  // so the small coarse levels of one plane overlap the others'.
  Result<GraphExec> capture_batch(std::span<const PlaneJob> jobs, cudaStream_t s) {
    MALLAT_ASSIGN_OR_RETURN(Event fork, make_event(false));
    std::array<Event, kStreams> join;
    for (Event& e : join) {
      MALLAT_ASSIGN_OR_RETURN(Event made, make_event(false));
      e = std::move(made);
    }
    MALLAT_CUDA_RETURN_IF_ERROR(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    Status st = check_cuda(cudaEventRecord(fork.get(), s), "cudaEventRecord (fork)");
    const size_t branches = std::min<size_t>(jobs.size(), kStreams);
    for (size_t b = 0; b < branches && st.ok(); ++b) {
      cudaStream_t branch = streams_[b].get();
      if (branch != s) st = check_cuda(cudaStreamWaitEvent(branch, fork.get(), 0), "cudaStreamWaitEvent (fork)");
    }
    for (size_t k = 0; k < jobs.size() && st.ok(); ++k)
      if (active(jobs[k])) st = transform_async(jobs[k], layout_.jobs[k], streams_[k % kStreams].get());
    for (size_t b = 0; b < branches && st.ok(); ++b) {
      cudaStream_t branch = streams_[b].get();
      if (branch == s) continue;
      st = check_cuda(cudaEventRecord(join[b].get(), branch), "cudaEventRecord (join)");
      if (st.ok()) st = check_cuda(cudaStreamWaitEvent(s, join[b].get(), 0), "cudaStreamWaitEvent (join)");
    }
    cudaGraph_t graph = nullptr;
    const cudaError_t end = cudaStreamEndCapture(s, &graph);
    MALLAT_RETURN_IF_ERROR(st);
    MALLAT_CUDA_RETURN_IF_ERROR(end);
    cudaGraphExec_t exec = nullptr;
    const cudaError_t inst = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    MALLAT_CUDA_RETURN_IF_ERROR(inst);
    return GraphExec(exec);
  }

  // Device-to-device copy bandwidth, bytes read + written per second, of a
  // buffer far larger than L2; measured once per backend (median of 9).
  Result<double> copy_bandwidth() {
    if (copy_bytes_per_s_ > 0) return copy_bytes_per_s_;
    constexpr size_t kBytes = size_t{512} << 20;
    DeviceArena src, dst;
    MALLAT_RETURN_IF_ERROR(src.reserve(kBytes));
    MALLAT_RETURN_IF_ERROR(dst.reserve(kBytes));
    cudaStream_t s = streams_[0].get();
    MALLAT_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(src.data(), 1, kBytes, s));
    MALLAT_ASSIGN_OR_RETURN(Event start, make_event(true));
    MALLAT_ASSIGN_OR_RETURN(Event stop, make_event(true));
    std::vector<double> ms;
    for (int i = 0; i < 12; ++i) {
      MALLAT_CUDA_RETURN_IF_ERROR(cudaEventRecord(start.get(), s));
      MALLAT_CUDA_RETURN_IF_ERROR(
          cudaMemcpyAsync(dst.data(), src.data(), kBytes, cudaMemcpyDeviceToDevice, s));
      MALLAT_CUDA_RETURN_IF_ERROR(cudaEventRecord(stop.get(), s));
      MALLAT_ASSIGN_OR_RETURN(double m, elapsed_ms(start.get(), stop.get()));
      if (i >= 3) ms.push_back(m);  // the first ones warm up
    }
    std::sort(ms.begin(), ms.end());
    copy_bytes_per_s_ = 2.0 * static_cast<double>(kBytes) / (ms[ms.size() / 2] * 1e-3);
    return copy_bytes_per_s_;
  }

  std::string device_name_;
  std::array<Stream, kStreams> streams_;
  CudaBackendOptions options_;
  DeviceArena arena_;
  PinnedArena staging_;
  BatchLayout layout_;
  double copy_bytes_per_s_ = 0;
};

}  // namespace

Result<std::unique_ptr<Backend>> make_cuda_backend(const CudaBackendOptions& options) {
  MALLAT_ASSIGN_OR_RETURN(int n, device_count());
  (void)n;
  MALLAT_CUDA_RETURN_IF_ERROR(cudaSetDevice(0));
  std::array<Stream, kStreams> streams;
  for (Stream& s : streams) {
    MALLAT_ASSIGN_OR_RETURN(Stream made, make_stream());
    s = std::move(made);
  }
  return std::unique_ptr<Backend>(new CudaBackend(device_status(), std::move(streams), options));
}

}  // namespace mallat::dwt::cuda

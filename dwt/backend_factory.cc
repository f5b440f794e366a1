// Backend selection and job validation (dwt.h).
#include <string>
#include <utility>

#include "dwt/cpu/cpu_backend.h"
#include "dwt/dwt.h"
#include "dwt/reference.h"

#ifdef MALLAT_HAVE_CUDA
#include "dwt/cuda/cuda_backend.h"
#endif

namespace mallat::dwt {

Status validate(const PlaneJob& job) {
  if (job.levels < 0 || job.levels > 32) {
    return invalid_argument("dwt: levels must be in 0..32, got " + std::to_string(job.levels));
  }
  if (job.x0 < 0 || job.y0 < 0) return invalid_argument("dwt: negative tile-component origin");
  auto check = [](int64_t w, int64_t h, int64_t stride, const void* data) -> Status {
    if (w < 0 || h < 0) return invalid_argument("dwt: negative plane size");
    if (w > 0 && h > 0 && data == nullptr) return invalid_argument("dwt: plane has no data");
    if (h > 1 && stride < w) return invalid_argument("dwt: stride smaller than width");
    return Status::Ok();
  };
  if (job.wavelet == Wavelet::k53) {
    const auto& v = job.samples53;
    return check(v.width, v.height, v.stride, v.data);
  }
  const auto& v = job.samples97;
  return check(v.width, v.height, v.stride, v.data);
}

Result<BackendKind> parse_backend_kind(const std::string& name) {
  if (name == "auto") return BackendKind::kAuto;
  if (name == "cpu") return BackendKind::kCpu;
  if (name == "cuda") return BackendKind::kCuda;
  if (name == "reference") return BackendKind::kReference;
  return invalid_argument("unknown DWT backend '" + name + "' (auto, cpu, cuda or reference)");
}

bool cuda_compiled() {
#ifdef MALLAT_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

std::string cuda_status() {
#ifdef MALLAT_HAVE_CUDA
  return cuda::device_status();
#else
  return "this build has no CUDA backend";
#endif
}

Result<std::unique_ptr<Backend>> make_backend(BackendKind kind, int threads) {
  switch (kind) {
    case BackendKind::kReference:
      return reference::make_reference_backend();
    case BackendKind::kCpu:
      return cpu::make_cpu_backend(threads);
    case BackendKind::kCuda: {
#ifdef MALLAT_HAVE_CUDA
      Result<int> count = cuda::device_count();
      if (!count.ok()) {
        return device_error("no CUDA device for the DWT: " + count.status().message());
      }
      if (*count <= 0) return device_error("no CUDA device for the DWT: none found");
      return cuda::make_cuda_backend();
#else
      return unsupported("this build has no CUDA backend");
#endif
    }
    case BackendKind::kAuto: {
#ifdef MALLAT_HAVE_CUDA
      Result<int> count = cuda::device_count();
      if (count.ok() && *count > 0) return cuda::make_cuda_backend();
#endif
      return cpu::make_cpu_backend(threads);
    }
  }
  return internal_error("make_backend: unknown backend kind");
}

Result<std::shared_ptr<Backend>> given_or_made_backend(std::shared_ptr<Backend> given, BackendKind kind,
                                                       int threads) {
  if (given) return given;
  MALLAT_ASSIGN_OR_RETURN(std::unique_ptr<Backend> made, make_backend(kind, threads));
  return std::shared_ptr<Backend>(std::move(made));
}

}  // namespace mallat::dwt

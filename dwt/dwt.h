// The discrete wavelet transform of Annex F as one interface with several
// backends: a plain reference (dwt/reference.h, slow and obviously correct,
// for tests), a fast CPU backend and a CUDA backend. All of them work in
// place on whole tile-components and leave the subbands in the packed layout
// of geometry.h; 5/3 results are bit-exact between backends, 9/7 results
// agree within float rounding.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/plane_view.h"
#include "common/status.h"
#include "dwt/geometry.h"

namespace mallat::dwt {

// Annex F.3.8 / F.4.8: reversible 5/3 integer lifting, irreversible 9/7
// floating-point lifting.
enum class Wavelet { k53, k97 };
enum class Direction { kForward, kInverse };

// One plane to transform. The tile-component's position on its own grid
// (tcx0, tcy0) decides, level by level, which samples are low-pass (the even
// ones of the absolute coordinate), so it is part of every job.
struct PlaneJob {
  Wavelet wavelet = Wavelet::k53;
  Direction direction = Direction::kForward;
  int levels = 0;       // 0..32 decomposition levels
  int64_t x0 = 0;       // tcx0 of the tile-component
  int64_t y0 = 0;       // tcy0
  PlaneView<int32_t> samples53;  // used when wavelet == k53
  PlaneView<float> samples97;    // used when wavelet == k97

  int64_t width() const { return wavelet == Wavelet::k53 ? samples53.width : samples97.width; }
  int64_t height() const { return wavelet == Wavelet::k53 ? samples53.height : samples97.height; }
};

// Device timings of a batch, for benchmarks. CPU backends time with a
// steady clock and leave the transfer and copy figures at zero.
struct Timing {
  std::vector<double> run_ms;       // one entry per timed run of the whole batch
  double upload_ms = 0;             // host -> device, once (GPU only)
  double download_ms = 0;           // device -> host, once (GPU only)
  double copy_bytes_per_s = 0;      // measured device-to-device copy bandwidth,
                                    // bytes read + written per second (GPU only)
};

enum class BackendKind { kAuto, kCpu, kCuda, kReference };

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string name() const = 0;

  // Transforms every job; the planes may be different sizes and wavelets.
  // A GPU backend may overlap them in one stream pipeline and returns when
  // all results are back in host memory.
  virtual Status run(std::span<const PlaneJob> jobs) = 0;

  // Runs the batch `warmup` times untimed, then `runs` times timed, and
  // leaves the planes holding the result of one application. Device data
  // stays resident between runs, so run_ms is pure transform time.
  virtual Result<Timing> time(std::span<const PlaneJob> jobs, int warmup, int runs) = 0;

  Status run(const PlaneJob& job) { return run(std::span<const PlaneJob>(&job, 1)); }
};

// Checks a job's fields (levels in 0..32, a view that matches the wavelet,
// strides >= widths) before any backend touches memory.
Status validate(const PlaneJob& job);

// "auto" picks CUDA when this build has it and a device is present, else
// the CPU; "cuda" where there is no device is an error that says why.
Result<std::unique_ptr<Backend>> make_backend(BackendKind kind, int threads = 0);

// `given` when set (a backend a caller made once to reuse), else a new one
// of `kind` as make_backend makes it.
Result<std::shared_ptr<Backend>> given_or_made_backend(std::shared_ptr<Backend> given, BackendKind kind,
                                                       int threads = 0);

// Parses "auto", "cpu", "cuda" or "reference".
Result<BackendKind> parse_backend_kind(const std::string& name);

// Whether this build contains the CUDA backend, and a line on what it found
// (device name, or why there is none).
bool cuda_compiled();
std::string cuda_status();

}  // namespace mallat::dwt

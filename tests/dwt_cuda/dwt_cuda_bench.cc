// Benchmark driver for the CUDA backend through Backend::time, until
// `mallat bench dwt` is wired into tools/main.cc. Prints one table row per
// configuration: median of the timed runs, Gsamples/s of the input, and the
// achieved bandwidth as a fraction of the measured device-to-device copy
// bandwidth, counting per level the level's region read once and written
// once (4 bytes a sample).
//
//   dwt_cuda_bench [runs] [warmup] [targets]
// "targets" runs only the configurations with targets: 7680x4320, 3
// components, 5 levels, and 1920x1080, 1 component, 3 levels.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "dwt/cuda/cuda_backend.h"
#include "dwt/dwt.h"

using namespace mallat;
using namespace mallat::dwt;

namespace {

double level_bytes(int64_t w, int64_t h, int levels) {
  double bytes = 0;
  for (int l = 0; l < levels; ++l) {
    const int64_t d = int64_t{1} << l;
    bytes += static_cast<double>((w + d - 1) / d) * static_cast<double>((h + d - 1) / d) * 8.0;
  }
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 100;
  const int warmup = argc > 2 ? std::atoi(argv[2]) : 10;
  const bool targets_only = argc > 3 && std::string(argv[3]) == "targets";
  // "profile": 7680x4320, 1 component, 1 level (for ncu).
  const bool profile = argc > 3 && std::string(argv[3]) == "profile";
  Result<std::unique_ptr<Backend>> made = cuda::make_cuda_backend();
  if (!made.ok()) {
    std::fprintf(stderr, "%s\n", made.status().message().c_str());
    return 2;
  }
  Backend& backend = **made;
  std::printf("device: %s; median of %d runs after %d warm-up\n", cuda::device_status().c_str(), runs, warmup);
  std::printf("%-10s %5s %3s %4s %4s %10s %9s %9s %8s %9s %9s\n", "size", "comps", "lv", "wav", "dir",
              "median_ms", "Gsamp/s", "GB/s", "of_copy", "upload_ms", "dnload_ms");
  std::mt19937 rng(42);
  double copy_bw = 0;
  struct Size { int64_t w, h; };
  for (const Size s : {Size{1920, 1080}, Size{3840, 2160}, Size{7680, 4320}}) {
    if (targets_only && s.w == 3840) continue;
    const size_t n = static_cast<size_t>(s.w * s.h);
    // Random 12-bit samples (never zeros: they can run faster than data).
    std::vector<std::vector<int32_t>> base(3, std::vector<int32_t>(n)), i32 = base;
    std::vector<std::vector<float>> f32(3, std::vector<float>(n));
    std::uniform_int_distribution<int32_t> di(-2048, 2047);
    for (auto& p : base) for (auto& v : p) v = di(rng);
    for (int comps : {1, 3})
      for (int levels : {1, 3, 5})
        for (Wavelet wv : {Wavelet::k53, Wavelet::k97})
          for (Direction d : {Direction::kForward, Direction::kInverse}) {
            const bool target = (s.w == 7680 && comps == 3 && levels == 5) ||
                                (s.w == 1920 && comps == 1 && levels == 3);
            if (targets_only && !target) continue;
            if (profile && (s.w != 7680 || comps != 1 || levels != 1)) continue;
            // Every configuration starts from the same samples.
            for (size_t c = 0; c < 3; ++c)
              for (size_t i = 0; i < n; ++i) {
                i32[c][i] = base[c][i];
                f32[c][i] = static_cast<float>(base[c][i]);
              }
            std::vector<PlaneJob> jobs;
            for (int c = 0; c < comps; ++c) {
              PlaneJob j;
              j.wavelet = wv;
              j.direction = d;
              j.levels = levels;
              if (wv == Wavelet::k53) j.samples53 = PlaneView<int32_t>{i32[c].data(), s.w, s.h, s.w};
              else j.samples97 = PlaneView<float>{f32[c].data(), s.w, s.h, s.w};
              jobs.push_back(j);
            }
            Result<Timing> t = backend.time(jobs, warmup, runs);
            if (!t.ok()) {
              std::fprintf(stderr, "%s\n", t.status().to_string().c_str());
              return 1;
            }
            std::vector<double> ms = t->run_ms;
            std::sort(ms.begin(), ms.end());
            const double med = ms[ms.size() / 2];
            const double bytes = comps * level_bytes(s.w, s.h, levels);
            const double gbs = bytes / (med * 1e-3) / 1e9;
            std::printf("%5lldx%-4lld %5d %3d %4s %4s %10.4f %9.2f %9.1f %7.1f%% %9.3f %9.3f\n",
                        static_cast<long long>(s.w), static_cast<long long>(s.h), comps, levels,
                        wv == Wavelet::k53 ? "5/3" : "9/7", d == Direction::kForward ? "fwd" : "inv", med,
                        comps * static_cast<double>(n) / (med * 1e-3) / 1e9, gbs,
                        100.0 * gbs * 1e9 / t->copy_bytes_per_s, t->upload_ms, t->download_ms);
            std::fflush(stdout);
            copy_bw = t->copy_bytes_per_s;
          }
  }
  std::printf("measured D2D copy bandwidth: %.1f GB/s (bytes read + written)\n", copy_bw / 1e9);
  return 0;
}

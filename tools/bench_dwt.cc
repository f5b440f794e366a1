// `mallat bench dwt`: forward and inverse DWT throughput of one backend over
// a grid of sizes, component counts, wavelets and level counts, timed by the
// backend's own time() (device time for CUDA, steady clock on the CPU).
#include "tools/bench_dwt.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/status.h"
#include "dwt/dwt.h"
#include "dwt/geometry.h"
#include "tools/option_table.h"

namespace mallat::tools {
namespace {

struct Size {
  int64_t width = 0, height = 0;
};

struct Options {
  dwt::BackendKind backend = dwt::BackendKind::kAuto;
  std::vector<Size> sizes;
  std::vector<int> components;
  std::vector<int> levels;
  std::vector<dwt::Wavelet> wavelets{dwt::Wavelet::k53, dwt::Wavelet::k97};
  std::vector<dwt::Direction> directions{dwt::Direction::kForward, dwt::Direction::kInverse};
  int runs = -1;    // -1: the backend's default
  int warmup = -1;
  int threads = 0;
  std::string csv;
};

const char kIntro[] =
    "usage: mallat bench dwt [options]\n"
    "Times the forward and inverse DWT of one backend on synthetic planes, for every\n"
    "combination of the sizes, component counts, wavelets, directions and level counts\n"
    "given; a repeatable option given once or more replaces its default list.\n";

Result<int> parse_int(const std::string& flag, const std::string& text, int lo, int hi) {
  try {
    size_t used = 0;
    const int v = std::stoi(text, &used);
    if (used == text.size() && v >= lo && v <= hi) return v;
  } catch (...) {
  }
  return invalid_argument(flag + ": expected an integer in " + std::to_string(lo) + ".." +
                          std::to_string(hi) + ", got '" + text + "'");
}

Result<Size> parse_size(const std::string& text) {
  const size_t x = text.find('x');
  if (x == std::string::npos) return invalid_argument("--size: expected WxH, got '" + text + "'");
  MALLAT_ASSIGN_OR_RETURN(int w, parse_int("--size", text.substr(0, x), 1, 1 << 20));
  MALLAT_ASSIGN_OR_RETURN(int h, parse_int("--size", text.substr(x + 1), 1, 1 << 20));
  return Size{w, h};
}

// A Result's error as the Status an option's action returns.
template <typename T>
Status into(Result<T> r, T* out) {
  if (!r.ok()) return r.status();
  *out = std::move(r).value();
  return Status::Ok();
}

const std::vector<Option<Options>>& table() {
  static const std::vector<Option<Options>> rows = {
      {{"--backend"}, "auto|cpu|cuda|reference", "the backend timed (default auto: CUDA when a device is present)",
       "cpu", [](Options& o, const std::string& v) { return into(dwt::parse_backend_kind(v), &o.backend).with_context("--backend"); }},
      {{"--size"}, "WxH",
       "plane size, repeatable (default: 4096x4096 on the CPU; 1920x1080, 3840x2160 and 7680x4320 on CUDA)",
       "64x48",
       [](Options& o, const std::string& v) {
         o.sizes.emplace_back();
         return into(parse_size(v), &o.sizes.back());
       }},
      {{"--components"}, "N", "planes transformed together, 1..64, repeatable (default: 1; 1 and 3 on CUDA)", "3",
       [](Options& o, const std::string& v) {
         o.components.emplace_back();
         return into(parse_int("--components", v, 1, 64), &o.components.back());
       }},
      {{"--levels"}, "L", "decomposition levels, 0..32, repeatable (default: 1, 3 and 5)", "2",
       [](Options& o, const std::string& v) {
         o.levels.emplace_back();
         return into(parse_int("--levels", v, 0, 32), &o.levels.back());
       }},
      {{"--wavelet"}, "53|97|all", "the 5/3 or the 9/7 wavelet, or both (default all)", "53",
       [](Options& o, const std::string& v) {
         if (v == "53") o.wavelets = {dwt::Wavelet::k53};
         else if (v == "97") o.wavelets = {dwt::Wavelet::k97};
         else if (v != "all") return invalid_argument("--wavelet: 53, 97 or all");
         return Status::Ok();
       }},
      {{"--direction"}, "forward|inverse|all", "the forward or the inverse transform, or both (default all)",
       "inverse",
       [](Options& o, const std::string& v) {
         if (v == "forward") o.directions = {dwt::Direction::kForward};
         else if (v == "inverse") o.directions = {dwt::Direction::kInverse};
         else if (v != "all") return invalid_argument("--direction: forward, inverse or all");
         return Status::Ok();
       }},
      {{"--runs"}, "N", "timed runs per case, 1..100000, of which the median is reported (default 5; 50 on CUDA)",
       "3", [](Options& o, const std::string& v) { return into(parse_int("--runs", v, 1, 100000), &o.runs); }},
      {{"--warmup"}, "N", "untimed runs before them, 0..100000 (default 1; 5 on CUDA)", "0",
       [](Options& o, const std::string& v) { return into(parse_int("--warmup", v, 0, 100000), &o.warmup); }},
      {{"--threads"}, "N", "CPU backend threads, 0..1024 (default 0: one per hardware thread)", "2",
       [](Options& o, const std::string& v) { return into(parse_int("--threads", v, 0, 1024), &o.threads); }},
      {{"--csv"}, "FILE", "also write one line per case to FILE, as comma-separated values", "bench.csv",
       [](Options& o, const std::string& v) { o.csv = v; return Status::Ok(); }},
  };
  return rows;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

// Bytes a level moves if every sample of the region it transforms is read
// once and written once, 4 bytes each: the floor any implementation pays.
double transform_bytes(const Size& s, int levels, int components) {
  const dwt::Rect tc{0, 0, s.width, s.height};
  double samples = 0;
  for (int l = 1; l <= levels; ++l) {
    const dwt::Rect r = dwt::resolution_rect(tc, l - 1, 0);
    samples += static_cast<double>(r.width()) * static_cast<double>(r.height());
  }
  return samples * 8.0 * components;
}

struct Planes {
  std::vector<std::vector<int32_t>> ints;
  std::vector<std::vector<float>> floats;
  std::vector<dwt::PlaneJob> jobs;
};

Planes make_planes(const Size& s, int components, dwt::Wavelet wavelet, int levels,
                   dwt::Direction direction, std::mt19937& rng) {
  Planes p;
  const size_t n = static_cast<size_t>(s.width * s.height);
  std::uniform_int_distribution<int32_t> dist(-128, 127);
  for (int c = 0; c < components; ++c) {
    dwt::PlaneJob job;
    job.wavelet = wavelet;
    job.direction = direction;
    job.levels = levels;
    if (wavelet == dwt::Wavelet::k53) {
      p.ints.emplace_back(n);
      for (auto& v : p.ints.back()) v = dist(rng);
      job.samples53 = PlaneView<int32_t>{p.ints.back().data(), s.width, s.height, s.width};
    } else {
      p.floats.emplace_back(n);
      for (auto& v : p.floats.back()) v = static_cast<float>(dist(rng));
      job.samples97 = PlaneView<float>{p.floats.back().data(), s.width, s.height, s.width};
    }
    p.jobs.push_back(job);
  }
  return p;
}

std::string rate_text(double samples_per_s) {
  char buf[32];
  if (samples_per_s >= 1e9) std::snprintf(buf, sizeof buf, "%.2f Gsamples/s", samples_per_s / 1e9);
  else std::snprintf(buf, sizeof buf, "%.1f Msamples/s", samples_per_s / 1e6);
  return buf;
}

}  // namespace

CommandOptions bench_dwt_options() { return command_options<Options>("bench dwt", table()); }

int bench_dwt_main(const std::vector<std::string>& args) {
  Options o;
  Result<Parsed> parsed = parse_options(table(), args, o);
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s\nusage: mallat bench dwt [options]   (mallat bench dwt --help)\n",
                 parsed.status().to_string().c_str());
    return 2;
  }
  if (*parsed == Parsed::kHelp) {
    std::fputs(help_text(kIntro, option_texts(table())).c_str(), stdout);
    return 0;
  }
  Result<std::unique_ptr<dwt::Backend>> made = dwt::make_backend(o.backend, o.threads);
  if (!made.ok()) {
    std::fprintf(stderr, "mallat bench dwt: %s\n", made.status().to_string().c_str());
    return 1;
  }
  dwt::Backend& backend = **made;
  // "auto" may have picked either; the CUDA backend's name starts with "cuda".
  const bool gpu = o.backend == dwt::BackendKind::kCuda || backend.name().rfind("cuda", 0) == 0;
  if (o.sizes.empty()) {
    if (gpu) o.sizes = {{1920, 1080}, {3840, 2160}, {7680, 4320}};
    else o.sizes = {{4096, 4096}};
  }
  if (o.components.empty()) o.components = gpu ? std::vector<int>{1, 3} : std::vector<int>{1};
  if (o.levels.empty()) o.levels = {1, 3, 5};
  if (o.runs < 0) o.runs = gpu ? 50 : 5;
  if (o.warmup < 0) o.warmup = gpu ? 5 : 1;

  std::printf("backend: %s\n", backend.name().c_str());
  if (gpu) std::printf("device: %s\n", dwt::cuda_status().c_str());
  else std::printf("cpu: %s\n", cpu_model().c_str());
  std::printf("runs: %d (after %d warm-up)\n", o.runs, o.warmup);

  std::ofstream csv;
  if (!o.csv.empty()) {
    csv.open(o.csv);
    if (!csv) {
      std::fprintf(stderr, "mallat bench dwt: cannot write %s\n", o.csv.c_str());
      return 1;
    }
    csv << "backend,width,height,components,wavelet,direction,levels,median_ms,min_ms,"
           "samples_per_s,bytes_per_s,copy_bytes_per_s,upload_ms,download_ms\n";
  }

  std::mt19937 rng(2000);
  for (const Size& size : o.sizes) {
    for (int components : o.components) {
      for (dwt::Wavelet wavelet : o.wavelets) {
        for (dwt::Direction direction : o.directions) {
          for (int levels : o.levels) {
            Planes planes = make_planes(size, components, wavelet, levels, direction, rng);
            Result<dwt::Timing> timed = backend.time(planes.jobs, o.warmup, o.runs);
            if (!timed.ok()) {
              std::fprintf(stderr, "mallat bench dwt: %s\n", timed.status().to_string().c_str());
              return 1;
            }
            std::vector<double> ms = timed->run_ms;
            std::sort(ms.begin(), ms.end());
            const double median = ms.size() % 2 ? ms[ms.size() / 2]
                                                : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
            const double samples = static_cast<double>(size.width) * size.height * components;
            const double rate = samples / (median * 1e-3);
            const double bytes_per_s = transform_bytes(size, levels, components) / (median * 1e-3);
            const char* wname = wavelet == dwt::Wavelet::k53 ? "5/3" : "9/7";
            const char* dname = direction == dwt::Direction::kForward ? "forward" : "inverse";
            std::printf("%-10s %5lldx%-5lld x%d %s %-7s L%-2d median %9.3f ms  min %9.3f ms  %s",
                        gpu ? "cuda" : backend.name().substr(0, backend.name().find(' ')).c_str(),
                        static_cast<long long>(size.width), static_cast<long long>(size.height),
                        components, wname, dname, levels, median, ms.front(), rate_text(rate).c_str());
            if (timed->copy_bytes_per_s > 0) {
              std::printf("  %.1f GB/s (%.0f%% of copy)", bytes_per_s / 1e9,
                          100.0 * bytes_per_s / timed->copy_bytes_per_s);
            }
            if (timed->upload_ms > 0 || timed->download_ms > 0) {
              std::printf("  upload %.3f ms  download %.3f ms", timed->upload_ms, timed->download_ms);
            }
            std::printf("\n");
            std::fflush(stdout);
            if (csv) {
              csv << backend.name() << ',' << size.width << ',' << size.height << ',' << components
                  << ',' << (wavelet == dwt::Wavelet::k53 ? "53" : "97") << ',' << dname << ','
                  << levels << ',' << median << ',' << ms.front() << ',' << rate << ','
                  << bytes_per_s << ',' << timed->copy_bytes_per_s << ',' << timed->upload_ms
                  << ',' << timed->download_ms << '\n';
            }
          }
        }
      }
    }
  }
  return 0;
}

}  // namespace mallat::tools

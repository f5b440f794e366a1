// Device-only Tier-1 encoding throughput against the CPU coder (EBCOT's, or
// HT's for a style byte with bit 6 set, e.g. 0x40), on a
// 3840x2048x3 image's worth of Laplacian 64x64 code-blocks (5760 blocks,
// 23.6 Msamples; Laplacian scales 0.5, 2, 8, 32 in turn, the mix of a
// photo's high-pass subbands from coarse to fine; Mb 16; the orientations
// HL, LH, HH in turn), `images` copies of it in one launch.
//   entropy_cuda_bench [runs] [warmup] [images] [style byte]
// GPU: CUDA events around the launch (with EBCOT's ordering of the blocks
// by their planes where it runs), median of `runs` after `warmup`: EBCOT's
// split encoder (a warp forms a block's passes, then a thread codes them;
// entropy/ebcot/formed_passes.h) once, or with BENCH_SPLIT=0, and for HT,
// the threads' states in global memory and in local memory, and 32 down to
// 1 code-blocks per warp (entropy/cuda/ebcot/encode_kernel.cuh; the HT
// kernel keeps its states in global memory either way); the output is checked
// against the CPU coder block by block. CPU: the blocks of one image through
// the coder on 1 thread and on all hardware threads (and EBCOT's shared
// coder on 1 thread), median of 3 runs. The environment narrows or changes
// what runs:
//   BENCH_BPW=32,16,4L,0   only these code-blocks per warp (L: local states,
//                          not for the split encoder, where they are the
//                          coding kernel's)
//   BENCH_NO_CPU=1         no CPU timings
//   BENCH_DIRECT=1         EBCOT's decisions coded where they are formed
//   BENCH_HOST_ORDER=1     EBCOT's blocks in the host's order, not by planes
//   BENCH_SPLIT=0          EBCOT's passes formed and coded by one thread a
//                          block, not formed by a warp a block and then
//                          coded
//   BENCH_FORM_LANES=16    half a warp forms each block of at most 16
//                          stripes, two a warp (not a whole warp a block)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>
#include <cstring>

#include "entropy/cpu_block_coder.h"
#include "entropy/cuda/t1_device_encoder.h"
#include "entropy/ebcot/ebcot.h"
#include "entropy/ebcot/shared_encoder.h"
#include "tests/entropy/laplacian_block.h"
#include "tests/entropy_cuda/bench_timing.h"

using namespace mallat;
using namespace mallat::entropy;

namespace {

constexpr int kSide = 64;
constexpr int kBlocksPerImage = (3840 / kSide) * (2048 / kSide) * 3;

// Job j through its coder's CPU coder (lossless: HT's cleanup at plane 0).
Result<EncodedCodeBlock> cpu_encode(const std::vector<int32_t>& samples, const T1DeviceJob& j) {
  BlockToEncode b;
  b.coefficients = {samples.data() + j.coefficient_offset, j.width, j.height, j.width};
  b.orientation = static_cast<BandOrientation>(j.orientation);
  b.num_bitplanes = j.num_bitplanes;
  b.style = CodeBlockStyle::from_byte(j.style);
  return detail::one_block_encoder(block_coder_kind(b.style))(b);
}

// The CPU coder over blocks [begin, end).
void encode_range(const std::vector<int32_t>& samples, const std::vector<T1DeviceJob>& jobs, size_t begin,
                  size_t end) {
  for (size_t i = begin; i < end; ++i) {
    if (!cpu_encode(samples, jobs[i]).ok()) std::abort();
  }
}

void report(const char* what, double seconds, size_t blocks) {
  const double samples = static_cast<double>(blocks) * kSide * kSide;
  std::printf("%-34s %10.3f ms %9.3f Gsamples/s %11.0f code-blocks/s\n", what, seconds * 1e3, samples / seconds / 1e9,
              static_cast<double>(blocks) / seconds);
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 20;
  const int warmup = argc > 2 ? std::atoi(argv[2]) : 3;
  const int images = argc > 3 ? std::max(1, std::atoi(argv[3])) : 1;
  const auto style = static_cast<uint8_t>(argc > 4 ? std::strtol(argv[4], nullptr, 0) : 0);
  const double scales[] = {0.5, 2, 8, 32};

  std::vector<int32_t> samples;
  std::vector<T1DeviceJob> jobs;
  for (int i = 0; i < kBlocksPerImage; ++i) {
    const std::vector<int32_t> v = laplacian_block(scales[i % 4], static_cast<unsigned>(i + 1));
    T1DeviceJob j;
    j.coefficient_offset = samples.size();
    j.width = kSide;
    j.height = kSide;
    j.orientation = static_cast<uint8_t>(1 + i % 3);
    j.num_bitplanes = 16;
    j.style = style;
    jobs.push_back(j);
    samples.insert(samples.end(), v.begin(), v.end());
  }
  const size_t one_image = samples.size();
  for (int k = 1; k < images; ++k) {
    for (int i = 0; i < kBlocksPerImage; ++i) {
      T1DeviceJob j = jobs[i];
      j.coefficient_offset += k * one_image;
      jobs.push_back(j);
    }
    samples.insert(samples.end(), samples.begin(), samples.begin() + static_cast<ptrdiff_t>(one_image));
  }
  std::printf("%d image(s) of 3840x2048x3: %zu code-blocks of 64x64, style 0x%02X, Mb 16\n", images, jobs.size(),
              style);

  const std::string unavailable = cuda::t1_device_unavailable();
  if (!unavailable.empty()) {
    std::printf("GPU: %s\n", unavailable.c_str());
  } else {
    std::printf("device: %s; median of %d runs after %d warm-up\n", cuda::t1_device_name().c_str(), runs, warmup);
    struct Variant {
      cuda::T1StateMemory memory;
      int blocks_per_warp;
    };
    const char* split_env = std::getenv("BENCH_SPLIT");
    const bool split = !CodeBlockStyle::from_byte(style).ht && (split_env == nullptr || std::strcmp(split_env, "0") != 0);
    const char* lanes_env = std::getenv("BENCH_FORM_LANES");
    const int form_lanes = lanes_env != nullptr ? std::atoi(lanes_env) : 32;
    for (const Variant v : {Variant{cuda::T1StateMemory::kLocal, 32}, Variant{cuda::T1StateMemory::kGlobal, 32},
                            Variant{cuda::T1StateMemory::kGlobal, 24}, Variant{cuda::T1StateMemory::kGlobal, 16},
                            Variant{cuda::T1StateMemory::kGlobal, 12}, Variant{cuda::T1StateMemory::kGlobal, 8},
                            Variant{cuda::T1StateMemory::kGlobal, 4},
                            Variant{cuda::T1StateMemory::kGlobal, 2}, Variant{cuda::T1StateMemory::kGlobal, 1},
                            Variant{cuda::T1StateMemory::kGlobal, 0}}) {
      // The split EBCOT encoder has no state memory to vary; its blocks per
      // warp are the coding kernel's, and only the automatic choice runs
      // unless BENCH_BPW asks for others.
      const char* only = std::getenv("BENCH_BPW");
      if (split && (v.memory != cuda::T1StateMemory::kGlobal || (v.blocks_per_warp != 0 && only == nullptr))) {
        continue;
      }
      if (only != nullptr) {
        char key[16];
        std::snprintf(key, sizeof key, ",%d%s,", v.blocks_per_warp, v.memory == cuda::T1StateMemory::kLocal ? "L" : "");
        char list[256];
        std::snprintf(list, sizeof list, ",%s,", only);
        if (std::strstr(list, key) == nullptr) continue;
      }
      auto encoder = cuda::T1DeviceEncoder::create(v.memory, v.blocks_per_warp);
      if (!encoder.ok()) {
        std::fprintf(stderr, "%s\n", encoder.status().message().c_str());
        return 2;
      }
      (*encoder)->record_decisions(std::getenv("BENCH_DIRECT") == nullptr);
      (*encoder)->order_by_planes(std::getenv("BENCH_HOST_ORDER") == nullptr);
      (*encoder)->split_passes(split, form_lanes);
      Status st = (*encoder)->upload(jobs, samples, 24 * 1024);
      auto ms = st.ok() ? (*encoder)->time_encode(warmup, runs) : Result<double>(st);
      if (!ms.ok()) {
        std::fprintf(stderr, "%s\n", ms.status().message().c_str());
        return 2;
      }
      char name[80];
      if (split) {
        std::snprintf(name, sizeof name, "GPU, split: formed by %d lanes a block, coded %d%s a warp", form_lanes,
                      v.blocks_per_warp, v.blocks_per_warp > 0 ? "" : " (auto)");
      } else {
        std::snprintf(name, sizeof name, "GPU, %s states, %2d blocks/warp%s",
                      v.memory == cuda::T1StateMemory::kGlobal ? "global" : "local",
                      v.blocks_per_warp > 0 ? v.blocks_per_warp : 0, v.blocks_per_warp > 0 ? "" : " (auto)");
      }
      report(name, *ms / 1e3, jobs.size());
      cuda::T1DeviceBatchResult out;
      st = (*encoder)->download(out);
      size_t mismatches = 0, bytes = 0;
      for (int i = 0; i < kBlocksPerImage && st.ok(); ++i) {
        const T1DeviceJob& j = jobs[i];
        auto want = cpu_encode(samples, j);
        auto got = out.block(i);
        bytes += got.ok() ? got->data.size() : 0;
        if (!got.ok() || got->data != want->data || got->passes.size() != want->passes.size()) ++mismatches;
      }
      std::printf("  output: %zu of %d blocks differ from the CPU coder; %.2f MB coded per image\n",
                  st.ok() ? mismatches : kBlocksPerImage, kBlocksPerImage, static_cast<double>(bytes) / 1e6);
    }
  }

  if (std::getenv("BENCH_NO_CPU")) return 0;
  const int cpu_runs = 3;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  report("CPU coder, 1 thread", median_seconds(cpu_runs, [&] {
           encode_range(samples, jobs, 0, kBlocksPerImage);
         }), kBlocksPerImage);
  char label[64];
  std::snprintf(label, sizeof label, "CPU coder, %u threads", threads);
  report(label, median_seconds(cpu_runs, [&] {
           std::vector<std::thread> pool;
           for (unsigned t = 0; t < threads; ++t) {
             pool.emplace_back([&, t] {
               encode_range(samples, jobs, kBlocksPerImage * t / threads, kBlocksPerImage * (t + 1) / threads);
             });
           }
           for (auto& th : pool) th.join();
         }), kBlocksPerImage);
  if (CodeBlockStyle::from_byte(style).ht) return 0;
  auto state = std::make_unique<T1FixedState>();
  std::vector<uint8_t> buffer(24 * 1024);
  std::vector<CodingPass> passes(kMaxCodingPasses);
  report("CPU shared encoder, 1 thread", median_seconds(cpu_runs, [&] {
           for (int i = 0; i < kBlocksPerImage; ++i) {
             const T1DeviceJob& j = jobs[i];
             const SharedT1Block block{samples.data() + j.coefficient_offset, j.width, j.height, j.width,
                                       static_cast<BandOrientation>(j.orientation), j.num_bitplanes,
                                       CodeBlockStyle::from_byte(j.style), 0};
             if (encode_code_block_shared(block, *state, {buffer.data(), 24 * 1024, passes.data()}).status !=
                 SharedT1Status::kOk)
               std::abort();
           }
         }), kBlocksPerImage);
  return 0;
}

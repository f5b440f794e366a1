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
//   BENCH_IMAGE=a.ppm      an 8-bit RGB photo's code-blocks instead, as a
//                          lossless encode makes them (5/3, 5 levels;
//                          tests/entropy/subband_blocks.h)
//   BENCH_KEEP=0.09        EBCOT: each block coded only down to a pass limit
//                          (SharedT1Block::pass_limit), set as rate control
//                          by estimates would set it for a target keeping
//                          this share of the lossless bytes, from the whole
//                          coding's hulls (the best estimate there can be):
//                          the passes PCRD keeps (each block weighed as
//                          its subband's synthesis energy with
//                          BENCH_IMAGE, else alike) and BENCH_MARGIN (3)
//                          more;
//                          the blocks are held to the shared encoder's
//                          with the same limits, and the report says how
//                          many cut blocks keep PCRD's choice
//                          (codec/encoder/pass_limits.h)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>
#include <cstring>

#include "codec/encoder/pass_limits.h"
#include "codec/encoder/rate_control.h"
#include "codec/encoder/synthesis_norms.h"
#include "entropy/cpu_block_coder.h"
#include "entropy/cuda/t1_device_encoder.h"
#include "entropy/ebcot/ebcot.h"
#include "entropy/ebcot/shared_encoder.h"
#include "tests/entropy/laplacian_block.h"
#include "tests/entropy/subband_blocks.h"
#include "tests/entropy_cuda/bench_timing.h"

using namespace mallat;
using namespace mallat::entropy;

namespace {

constexpr int kSide = 64;
// The blocks of one image: the Laplacian set's, or BENCH_IMAGE's.
int kBlocksPerImage = (3840 / kSide) * (2048 / kSide) * 3;
// Each block's weight in PCRD (BENCH_KEEP): 1, or its subband's synthesis
// energy (BENCH_IMAGE).
std::vector<double> block_weight;

// Job j through its coder's CPU coder (lossless: HT's cleanup at plane 0;
// EBCOT's under the job's pass limit).
Result<EncodedCodeBlock> cpu_encode(const std::vector<int32_t>& samples, const T1DeviceJob& j) {
  BlockToEncode b;
  b.coefficients = {samples.data() + j.coefficient_offset, j.width, j.height, j.width};
  b.orientation = static_cast<BandOrientation>(j.orientation);
  b.num_bitplanes = j.num_bitplanes;
  b.style = CodeBlockStyle::from_byte(j.style);
  b.pass_limit = j.pass_limit;
  return detail::one_block_encoder(block_coder_kind(b.style))(b);
}

// The CPU coder over blocks [begin, end).
void encode_range(const std::vector<int32_t>& samples, const std::vector<T1DeviceJob>& jobs, size_t begin,
                  size_t end) {
  for (size_t i = begin; i < end; ++i) {
    if (!cpu_encode(samples, jobs[i]).ok()) std::abort();
  }
}

// The shared encoder's coding of job j (its pass limit too).
SharedT1Result shared_encode(const std::vector<int32_t>& samples, const T1DeviceJob& j, T1FixedState& state,
                             std::vector<uint8_t>& buffer, std::vector<CodingPass>& passes) {
  return encode_code_block_shared(shared_block_of(j, samples.data()), state,
                                  {buffer.data(), static_cast<uint32_t>(buffer.size()), passes.data()});
}

// BENCH_KEEP: PCRD over the whole coding of the first image's blocks (each
// of weight 1) for a target of `keep` of their bytes; each block's limit is
// the passes it keeps and `margin` more (at least 1), on every image's
// copy. Prints what is cut and how many cut blocks keep their choice.
void set_oracle_limits(const std::vector<int32_t>& samples, std::vector<T1DeviceJob>& jobs, double keep,
                       int margin) {
  auto state = std::make_unique<T1FixedState>();
  std::vector<uint8_t> buffer(24 * 1024);
  std::vector<std::vector<CodingPass>> whole(kBlocksPerImage);
  std::vector<codec::CodeBlockHull> hulls(kBlocksPerImage);
  double total_bytes = 0;
  for (int i = 0; i < kBlocksPerImage; ++i) {
    whole[i].resize(kMaxCodingPasses);
    const SharedT1Result r = shared_encode(samples, jobs[i], *state, buffer, whole[i]);
    if (r.status != SharedT1Status::kOk) std::abort();
    whole[i].resize(static_cast<size_t>(r.num_passes));
    hulls[i] = codec::convex_hull(whole[i], block_weight.empty() ? 1.0 : block_weight[i]);
    total_bytes += r.length;
  }
  struct Point {
    double slope;
    int block, index;
  };
  std::vector<Point> points;
  for (int b = 0; b < kBlocksPerImage; ++b)
    for (size_t k = 0; k < hulls[b].passes.size(); ++k) points.push_back({hulls[b].slope[k], b, static_cast<int>(k)});
  std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.slope > b.slope; });
  std::vector<int> chosen(kBlocksPerImage, 0);
  double bytes = 0;
  for (const Point& p : points) {
    const codec::CodeBlockHull& h = hulls[p.block];
    const double more = h.bytes[p.index] - (p.index > 0 ? h.bytes[p.index - 1] : 0.0);
    if (bytes + more > keep * total_bytes) break;
    bytes += more;
    chosen[p.block] = h.passes[p.index];
  }
  const double slope = codec::steepest_left_out(hulls, chosen);
  size_t cut = 0, coded = 0, all = 0, kept = 0;
  std::vector<CodingPass> passes(kMaxCodingPasses);
  for (size_t j = 0; j < jobs.size(); ++j) {
    const int b = static_cast<int>(j % kBlocksPerImage);
    const int every = static_cast<int>(whole[b].size());
    const int limit = std::min(every, std::max(1, chosen[b] + margin));
    jobs[j].pass_limit = static_cast<uint8_t>(limit < every ? limit : 0);
    if (j >= static_cast<size_t>(kBlocksPerImage)) continue;
    all += static_cast<size_t>(every);
    coded += static_cast<size_t>(limit);
    if (limit == every) continue;
    ++cut;
    const SharedT1Result r = shared_encode(samples, jobs[j], *state, buffer, passes);
    double energy = 0;
    for (const CodingPass& p : whole[b]) energy += p.distortion_decrease;
    const double weight = block_weight.empty() ? 1.0 : block_weight[b];
    if (codec::cut_keeps_choice(std::span(passes.data(), static_cast<size_t>(r.num_passes)), r.exact_passes, weight,
                                energy * weight * (1 + 1e-6), slope))
      ++kept;
  }
  std::printf("pass limits: %.3f of the bytes kept (%.2f MB), margin %d passes: %zu of %d blocks cut, %zu of %zu "
              "passes coded (%.1f%%); %zu of the %zu cut blocks keep PCRD's choice\n",
              bytes / total_bytes, bytes / 1e6, margin, cut, kBlocksPerImage, coded, all, 100.0 * coded / all, kept,
              cut);
}

// Samples of each image's blocks (the report's rate).
double image_samples = double{kSide} * kSide * ((3840 / kSide) * (2048 / kSide) * 3);

void report(const char* what, double seconds, size_t blocks) {
  const double samples = image_samples * static_cast<double>(blocks) / kBlocksPerImage;
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
  const char* image_path = std::getenv("BENCH_IMAGE");
  if (image_path != nullptr) {
    // A photo's lossless blocks (tests/entropy/subband_blocks.h), weighted
    // by their subbands' synthesis energy as the encoder weighs them.
    const bench::SubbandBlocks m = bench::subband_blocks_of_ppm(image_path);
    auto norms = codec::subband_synthesis_norms(dwt::Wavelet::k53, 5);
    if (m.blocks.empty() || !norms.ok()) {
      std::fprintf(stderr, "%s: not an 8-bit binary PPM\n", image_path);
      return 2;
    }
    kBlocksPerImage = static_cast<int>(m.blocks.size());
    image_samples = static_cast<double>(m.samples());
    for (const bench::SubbandBlock& b : m.blocks) {
      T1DeviceJob j;
      j.coefficient_offset = samples.size();
      j.width = static_cast<uint16_t>(b.coefficients.width);
      j.height = static_cast<uint16_t>(b.coefficients.height);
      j.orientation = static_cast<uint8_t>(b.orientation);
      j.num_bitplanes = static_cast<uint8_t>(b.num_bitplanes);
      j.style = style;
      jobs.push_back(j);
      for (int64_t y = 0; y < b.coefficients.height; ++y)
        samples.insert(samples.end(), b.coefficients.row(y), b.coefficients.row(y) + b.coefficients.width);
      const double norm = (*norms)[static_cast<size_t>(b.band)];
      block_weight.push_back(norm * norm);
    }
  }
  for (int i = 0; image_path == nullptr && i < kBlocksPerImage; ++i) {
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
  if (image_path != nullptr) {
    std::printf("%d image(s) of %s's 5/3 code-blocks: %zu blocks, style 0x%02X\n", images, image_path, jobs.size(),
                style);
  } else {
    std::printf("%d image(s) of 3840x2048x3: %zu code-blocks of 64x64, style 0x%02X, Mb 16\n", images, jobs.size(),
                style);
  }
  const char* keep = std::getenv("BENCH_KEEP");
  const bool limited = keep != nullptr && !CodeBlockStyle::from_byte(style).ht;
  if (limited) {
    const char* margin = std::getenv("BENCH_MARGIN");
    set_oracle_limits(samples, jobs, std::atof(keep), margin != nullptr ? std::atoi(margin) : 3);
  }

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
      auto state = std::make_unique<T1FixedState>();
      std::vector<uint8_t> buffer(24 * 1024);
      std::vector<CodingPass> passes(kMaxCodingPasses);
      for (int i = 0; i < kBlocksPerImage && st.ok(); ++i) {
        const T1DeviceJob& j = jobs[i];
        auto got = out.block(i);
        bytes += got.ok() ? got->data.size() : 0;
        if (limited) {
          // Cut blocks: the shared encoder's with the same limit.
          const SharedT1Result want = shared_encode(samples, j, *state, buffer, passes);
          if (!got.ok() || got->passes.size() != static_cast<size_t>(want.num_passes) ||
              got->data.size() != want.length || !std::equal(got->data.begin(), got->data.end(), buffer.data() + 1))
            ++mismatches;
          continue;
        }
        auto want = cpu_encode(samples, j);
        if (!got.ok() || got->data != want->data || got->passes.size() != want->passes.size()) ++mismatches;
      }
      std::printf("  output: %zu of %d blocks differ from the %s; %.2f MB coded per image\n",
                  st.ok() ? mismatches : kBlocksPerImage, kBlocksPerImage,
                  limited ? "shared encoder under the same limits" : "CPU coder", static_cast<double>(bytes) / 1e6);
    }
  }

  if (std::getenv("BENCH_NO_CPU")) return 0;
  const int cpu_runs = 3;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  report(limited ? "CPU coder, limits, 1 thread" : "CPU coder, 1 thread", median_seconds(cpu_runs, [&] {
           encode_range(samples, jobs, 0, kBlocksPerImage);
         }), kBlocksPerImage);
  char label[64];
  std::snprintf(label, sizeof label, "CPU coder,%s %u threads", limited ? " limits," : "", threads);
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
  // (Under BENCH_KEEP, with the jobs' pass limits.)
  report(limited ? "CPU shared encoder, limits, 1 thread" : "CPU shared encoder, 1 thread", median_seconds(cpu_runs, [&] {
           for (int i = 0; i < kBlocksPerImage; ++i) {
             if (shared_encode(samples, jobs[i], *state, buffer, passes).status != SharedT1Status::kOk)
               std::abort();
           }
         }), kBlocksPerImage);
  return 0;
}

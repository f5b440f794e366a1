// Device-only Tier-1 decoding throughput against the CPU decoder, on the
// code-blocks of t1_cuda_bench.cc (a 3840x2048x3 image's worth of Laplacian
// 64x64 blocks, 5760 blocks, 23.6 Msamples; scales 0.5, 2, 8, 32; Mb 16),
// encoded by the style's CPU coder (EBCOT's, or HT's for a style byte with
// bit 6 set, e.g. 0x40), `images` copies in one launch.
//   entropy_cuda_decode_bench [runs] [warmup] [images] [style byte]
// GPU: CUDA events around the launch, median of `runs` after `warmup`, for
// auto and 1..32 code-blocks per warp; the samples are checked against the
// CPU decoder block by block. Also the upload and download of one batch
// (wall time, pageable host memory). CPU: the CPU decoder over one image on
// all hardware threads, median of 3. BENCH_MARKED=0 or 1 sets whether
// EBCOT's passes walk only their marked columns (set_marked_columns;
// unset, the decoder's rule).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "entropy/cpu_block_coder.h"
#include "entropy/cuda/t1_device_decoder.h"
#include "entropy/cuda/t1_device_encoder.h"
#include "entropy/ebcot/ebcot.h"
#include "tests/entropy/laplacian_block.h"
#include "tests/entropy_cuda/bench_timing.h"

using namespace mallat;
using namespace mallat::entropy;

int main(int argc, char** argv) {
  const std::string why = cuda::t1_device_unavailable();
  if (!why.empty()) {
    std::printf("skipped: %s\n", why.c_str());
    return 0;
  }
  const int runs = argc > 1 ? std::atoi(argv[1]) : 10;
  const int warmup = argc > 2 ? std::atoi(argv[2]) : 2;
  const int images = argc > 3 ? std::atoi(argv[3]) : 1;
  const auto style = CodeBlockStyle::from_byte(static_cast<uint8_t>(argc > 4 ? std::strtol(argv[4], nullptr, 0) : 0));
  constexpr int kSide = 64, kBlocks = (3840 / kSide) * (2048 / kSide) * 3;
  const double scales[] = {0.5, 2, 8, 32};

  std::vector<EncodedCodeBlock> coded(kBlocks);
  std::vector<std::vector<uint32_t>> lengths(kBlocks);
  for (int i = 0; i < kBlocks; ++i) {
    const std::vector<int32_t> v = laplacian_block(scales[i % 4], static_cast<unsigned>(i + 1));
    BlockToEncode b;
    b.coefficients = {v.data(), kSide, kSide, kSide};
    b.orientation = static_cast<BandOrientation>(1 + i % 3);
    b.num_bitplanes = 16;
    b.style = style;
    coded[i] = *detail::one_block_encoder(block_coder_kind(style))(b);
    lengths[i] = codeword_segment_lengths(coded[i], coded[i].num_passes);
  }
  std::vector<T1DecodeJob> jobs;
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> segments;
  size_t samples = 0;
  for (int copy = 0; copy < images; ++copy) {
    for (int i = 0; i < kBlocks; ++i) {
      T1DecodeJob j;
      j.byte_offset = bytes.size();
      j.sample_offset = samples;
      j.length = static_cast<uint32_t>(coded[i].data.size());
      j.segment_offset = static_cast<uint32_t>(segments.size());
      j.num_segments = static_cast<uint32_t>(lengths[i].size());
      j.num_passes = coded[i].num_passes;
      j.zero_bitplanes = coded[i].zero_bitplanes;
      j.num_bitplanes = 16;
      j.width = kSide;
      j.height = kSide;
      j.orientation = static_cast<uint8_t>(1 + i % 3);
      j.style = style.to_byte();
      jobs.push_back(j);
      bytes.insert(bytes.end(), coded[i].data.begin(), coded[i].data.end());
      segments.insert(segments.end(), lengths[i].begin(), lengths[i].end());
      samples += kSide * kSide;
    }
  }
  std::printf("device: %s\nbatch: %zu blocks of 64x64 (%d image(s)), %.1f Msamples, %.1f MB coded, style 0x%02X\n",
              cuda::t1_device_name().c_str(), jobs.size(), images, samples / 1e6, bytes.size() / 1e6, style.to_byte());

  // CPU: one image on all hardware threads.
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<int32_t> cpu_out(static_cast<size_t>(kBlocks) * kSide * kSide);
  const double cpu_s = median_seconds(3, [&] {
    std::atomic<int> next{0};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        for (int i; (i = next.fetch_add(1)) < kBlocks;) {
          const CodeBlockToDecode in{coded[i].data, lengths[i], coded[i].num_passes, coded[i].zero_bitplanes, 16,
                                     static_cast<BandOrientation>(1 + i % 3), style};
          (void)detail::one_block_decoder(block_coder_kind(style))(
              in, {cpu_out.data() + static_cast<size_t>(i) * kSide * kSide, kSide, kSide, kSide});
        }
      });
    }
    for (std::thread& t : pool) t.join();
  });
  std::printf("CPU decoder, %u threads, one image: %.2f ms (%.0f Msamples/s)\n", threads, cpu_s * 1e3,
              kBlocks * 4096.0 / cpu_s / 1e6);

  for (int per_warp : {0, 1, 2, 4, 8, 16, 32}) {
    auto device = cuda::T1DeviceDecoder::create(per_warp);
    if (!device.ok()) {
      std::printf("error: %s\n", device.status().message().c_str());
      return 1;
    }
    const char* marked = std::getenv("BENCH_MARKED");
    if (marked != nullptr) (*device)->set_marked_columns(std::atoi(marked) != 0);
    double upload_s = median_seconds(1, [&] { (void)(*device)->upload(jobs, bytes, segments, samples); });
    Result<double> ms = (*device)->time_decode(warmup, runs);
    if (!ms.ok()) {
      std::printf("error: %s\n", ms.status().message().c_str());
      return 1;
    }
    std::vector<SharedT1DecodeResult> results(jobs.size());
    std::vector<int32_t> out(samples);
    const double download_s = median_seconds(1, [&] { (void)(*device)->download(results, out); });
    size_t wrong = 0;
    for (size_t k = 0; k < jobs.size(); ++k) {
      const int32_t* want = cpu_out.data() + (k % kBlocks) * kSide * kSide;
      if (results[k].status != SharedT1DecodeStatus::kOk ||
          !std::equal(want, want + kSide * kSide, out.data() + jobs[k].sample_offset)) {
        ++wrong;
      }
    }
    std::printf("marked %s: ", marked != nullptr ? marked : "default");
    std::printf("GPU kernel, %s blocks/warp: %.2f ms median of %d (%.0f kblocks/s, %.0f Msamples/s); upload %.2f ms, "
                "download %.2f ms; %zu blocks differ from the CPU\n",
                per_warp == 0 ? "auto" : std::to_string(per_warp).c_str(), *ms, runs, jobs.size() / *ms,
                samples / *ms / 1e3, upload_s * 1e3, download_s * 1e3, wrong);
  }
  return 0;
}

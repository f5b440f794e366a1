// HT block coder speed (entropy/ht/code_block.h) on 64x64 code-blocks:
// ns per sample for encode and decode of one lossless cleanup pass over
// Laplacian-distributed coefficients (scale 1: mostly insignificant quads,
// MEL-coded; 4 and 32: a typical high-pass subband; 256: near-lossless
// detail), and with a cleanup at plane 2 plus SigProp and MagRef.
//   build/tests/entropy/ht_benchmark --benchmark_repetitions=5
// With HT_BENCH_PGM set to an 8-bit PGM, also every 64x64 block of that
// image (samples less 128, Mb 9: what ojph_compress -num_decomps 0
// -reversible true codes), to compare with OpenJPH's whole process.
// With HT_BENCH_PPM set to an 8-bit RGB PPM (the 3840x2048 mosaic that
// bench/bench_codec.py makes), the code-blocks of its lossless
// 5-level 5/3 transform (subband_blocks.h), one thread, in Msamples/s:
// BM_HtMosaicEncode (cleanup at plane 0, no distortions, as a lossless
// encode), BM_HtMosaicDecode/0 (the cleanup decoder), /1 and /2 (cleanup at
// plane 2 alone, and with SigProp and MagRef: the refinement decoder's
// cost is the difference).
//   HT_BENCH_PPM=mosaic.ppm build/tests/entropy/ht_benchmark --benchmark_filter=Mosaic
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "entropy/ht/code_block.h"
#include "tests/entropy/laplacian_block.h"
#include "tests/entropy/subband_blocks.h"

namespace mallat::entropy {
namespace {

constexpr int kMb = 16;

void set_counters(benchmark::State& state, size_t bytes) {
  const double samples = static_cast<double>(state.iterations()) * 4096;
  state.counters["ns/sample"] = benchmark::Counter(samples, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["bytes"] = static_cast<double>(bytes);
}

HtEncodeSettings settings_of(int64_t plane) {
  HtEncodeSettings s;
  s.cleanup_plane = static_cast<int>(plane);
  s.refinement = plane > 0;
  return s;
}

void BM_HtEncode(benchmark::State& state) {
  const auto v = laplacian_block(static_cast<double>(state.range(0)), 1);
  const HtEncodeSettings settings = settings_of(state.range(1));
  size_t bytes = 0;
  for (auto _ : state) {
    auto e = encode_ht_code_block({v.data(), 64, 64, 64}, kMb, 0, settings);
    bytes = e->data.size();
    benchmark::DoNotOptimize(e);
  }
  set_counters(state, bytes);
}

void BM_HtDecode(benchmark::State& state) {
  const auto v = laplacian_block(static_cast<double>(state.range(0)), 1);
  auto e = encode_ht_code_block({v.data(), 64, 64, 64}, kMb, 0, settings_of(state.range(1)));
  const std::vector<uint32_t> lengths = codeword_segment_lengths(*e, e->num_passes);
  CodeBlockToDecode in;
  in.data = e->data;
  in.segment_lengths = lengths;
  in.num_passes = e->num_passes;
  in.zero_bitplanes = e->zero_bitplanes;
  in.num_bitplanes = kMb;
  in.style.ht = true;
  std::vector<int32_t> out(64 * 64);
  for (auto _ : state) {
    auto info = decode_ht_code_block(in, {out.data(), 64, 64, 64});
    benchmark::DoNotOptimize(info);
    benchmark::DoNotOptimize(out.data());
  }
  set_counters(state, e->data.size());
}

// The image's 64x64 blocks (edge blocks smaller), samples less 128.
struct ImageBlocks {
  int64_t width = 0, height = 0;
  std::vector<int32_t> samples;
  std::vector<PlaneView<const int32_t>> blocks;
};

const ImageBlocks* image_blocks() {
  static const ImageBlocks image = [] {
    ImageBlocks im;
    const char* path = std::getenv("HT_BENCH_PGM");
    if (path == nullptr) return im;
    std::ifstream f(path, std::ios::binary);
    std::string magic;
    int max = 0;
    f >> magic >> im.width >> im.height >> max;
    f.get();
    if (magic != "P5" || max != 255) return ImageBlocks{};
    std::vector<char> bytes(static_cast<size_t>(im.width * im.height));
    f.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    im.samples.resize(bytes.size());
    for (size_t i = 0; i < bytes.size(); ++i) im.samples[i] = static_cast<uint8_t>(bytes[i]) - 128;
    const PlaneView<const int32_t> plane{im.samples.data(), im.width, im.height, im.width};
    for (int64_t y = 0; y < im.height; y += 64) {
      for (int64_t x = 0; x < im.width; x += 64) {
        im.blocks.push_back(plane.sub(x, y, std::min<int64_t>(64, im.width - x), std::min<int64_t>(64, im.height - y)));
      }
    }
    return im;
  }();
  return image.blocks.empty() ? nullptr : &image;
}

void BM_HtEncodeImage(benchmark::State& state) {
  const ImageBlocks* im = image_blocks();
  if (im == nullptr) {
    state.SkipWithError("HT_BENCH_PGM not set to an 8-bit PGM");
    return;
  }
  size_t bytes = 0;
  for (auto _ : state) {
    bytes = 0;
    for (const PlaneView<const int32_t>& b : im->blocks) bytes += encode_ht_code_block(b, 9, 0)->data.size();
  }
  state.counters["ns/sample"] = benchmark::Counter(static_cast<double>(state.iterations()) * im->samples.size(),
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["bytes"] = static_cast<double>(bytes);
}

void BM_HtDecodeImage(benchmark::State& state) {
  const ImageBlocks* im = image_blocks();
  if (im == nullptr) {
    state.SkipWithError("HT_BENCH_PGM not set to an 8-bit PGM");
    return;
  }
  std::vector<EncodedCodeBlock> coded;
  for (const PlaneView<const int32_t>& b : im->blocks) coded.push_back(*encode_ht_code_block(b, 9, 0));
  std::vector<int32_t> out(64 * 64);
  for (auto _ : state) {
    for (size_t i = 0; i < coded.size(); ++i) {
      CodeBlockToDecode in;
      in.data = coded[i].data;
      in.num_passes = coded[i].num_passes;
      in.zero_bitplanes = coded[i].zero_bitplanes;
      in.num_bitplanes = 9;
      in.style.ht = true;
      auto info = decode_ht_code_block(in, {out.data(), im->blocks[i].width, im->blocks[i].height, 64});
      benchmark::DoNotOptimize(info);
    }
  }
  state.counters["ns/sample"] = benchmark::Counter(static_cast<double>(state.iterations()) * im->samples.size(),
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_HtEncodeImage)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HtDecodeImage)->Unit(benchmark::kMillisecond);

const bench::SubbandBlocks* mosaic_blocks() {
  static const bench::SubbandBlocks blocks = [] {
    const char* path = std::getenv("HT_BENCH_PPM");
    return path == nullptr ? bench::SubbandBlocks{} : bench::subband_blocks_of_ppm(path);
  }();
  return blocks.blocks.empty() ? nullptr : &blocks;
}

void set_mosaic_counters(benchmark::State& state, const bench::SubbandBlocks& m, size_t bytes) {
  state.counters["Msamples/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(m.samples()) * 1e-6,
                         benchmark::Counter::kIsRate);
  state.counters["bytes"] = static_cast<double>(bytes);
}

void BM_HtMosaicEncode(benchmark::State& state) {
  const bench::SubbandBlocks* m = mosaic_blocks();
  if (m == nullptr) {
    state.SkipWithError("HT_BENCH_PPM not set to an 8-bit RGB PPM");
    return;
  }
  HtEncodeSettings settings;
  settings.distortions = false;
  size_t bytes = 0;
  for (auto _ : state) {
    bytes = 0;
    for (const bench::SubbandBlock& b : m->blocks) {
      bytes += encode_ht_code_block(b.coefficients, b.num_bitplanes, 0, settings)->data.size();
    }
  }
  set_mosaic_counters(state, *m, bytes);
}

// Mode 0: every block coded at plane 0, its cleanup decoded; 1: coded at
// plane 2 with refinement, the cleanup alone decoded; 2: all three passes.
void BM_HtMosaicDecode(benchmark::State& state) {
  const bench::SubbandBlocks* m = mosaic_blocks();
  if (m == nullptr) {
    state.SkipWithError("HT_BENCH_PPM not set to an 8-bit RGB PPM");
    return;
  }
  const int64_t mode = state.range(0);
  struct Coded {
    EncodedCodeBlock block;
    std::vector<uint32_t> lengths;
    int passes;
  };
  std::vector<Coded> coded;
  size_t bytes = 0;
  for (const bench::SubbandBlock& b : m->blocks) {
    HtEncodeSettings settings;
    settings.distortions = false;
    settings.cleanup_plane = mode == 0 ? 0 : 2;
    settings.refinement = mode != 0;
    Coded c{*encode_ht_code_block(b.coefficients, b.num_bitplanes, 0, settings), {}, 0};
    c.passes = std::min(c.block.num_passes, mode == 1 ? 1 : 3);
    c.lengths = codeword_segment_lengths(c.block, c.passes);
    for (uint32_t l : c.lengths) bytes += l;
    coded.push_back(std::move(c));
  }
  std::vector<int32_t> out(64 * 64);
  for (auto _ : state) {
    for (size_t i = 0; i < coded.size(); ++i) {
      const bench::SubbandBlock& b = m->blocks[i];
      CodeBlockToDecode in;
      in.data = coded[i].block.data;
      in.segment_lengths = coded[i].lengths;
      in.num_passes = coded[i].passes;
      in.zero_bitplanes = coded[i].block.zero_bitplanes;
      in.num_bitplanes = b.num_bitplanes;
      in.style.ht = true;
      auto info = decode_ht_code_block(in, {out.data(), b.coefficients.width, b.coefficients.height, 64});
      benchmark::DoNotOptimize(info);
      benchmark::DoNotOptimize(out.data());
    }
  }
  set_mosaic_counters(state, *m, bytes);
}
BENCHMARK(BM_HtMosaicEncode)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HtMosaicDecode)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

void args(benchmark::internal::Benchmark* b) {
  for (int scale : {1, 4, 32, 256}) b->Args({scale, 0});
  for (int scale : {32, 256}) b->Args({scale, 2});
}
BENCHMARK(BM_HtEncode)->Apply(args);
BENCHMARK(BM_HtDecode)->Apply(args);

}  // namespace
}  // namespace mallat::entropy

BENCHMARK_MAIN();

// Tier-1 speed on a 64x64 code-block of Laplacian-distributed coefficients,
// the shape of a high-pass subband: ns per sample and Msamples/s for encode
// and decode. The Laplacian scale sets the pass mix: at 1 most samples stay
// insignificant (cleanup passes, run-length mode), at 4 and 32 significance
// propagation dominates, at 256 there are many refinement passes.
//   build/tests/entropy/entropy_benchmark --benchmark_repetitions=5
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "entropy/ebcot/ebcot.h"
#include "entropy/ebcot/shared_decoder.h"
#include "entropy/ebcot/shared_encoder.h"
#include "tests/entropy/laplacian_block.h"

namespace mallat::entropy {
namespace {

void set_counters(benchmark::State& state) {
  const double samples = static_cast<double>(state.iterations()) * 4096;
  state.counters["ns/sample"] =
      benchmark::Counter(samples, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["Msamples/s"] = benchmark::Counter(samples / 1e6, benchmark::Counter::kIsRate);
}

CodeBlockStyle style_of(int64_t byte) { return CodeBlockStyle::from_byte(static_cast<uint8_t>(byte)); }

void BM_Encode(benchmark::State& state) {
  const auto v = laplacian_block(static_cast<double>(state.range(0)), 1);
  const PlaneView<const int32_t> view{v.data(), 64, 64, 64};
  const CodeBlockStyle style = style_of(state.range(1));
  size_t bytes = 0;
  for (auto _ : state) {
    auto e = encode_code_block(view, BandOrientation::kHL, 16, style);
    bytes = e->data.size();
    benchmark::DoNotOptimize(e);
  }
  set_counters(state);
  state.counters["bytes"] = static_cast<double>(bytes);
}

// The shared host/device encoder (entropy/ebcot/shared_encoder.h) on the CPU, for
// comparison with BM_Encode: same blocks, same output. `recorded`: each
// pass's decisions recorded first and MQ-coded after
// (entropy/ebcot/recorded_symbols.h), as the GPU kernel runs it.
void encode_shared(benchmark::State& state, bool recorded) {
  const auto v = laplacian_block(static_cast<double>(state.range(0)), 1);
  SharedT1Block block{v.data(), 64, 64, 64, BandOrientation::kHL, 16, style_of(state.range(1)), 0};
  auto s = std::make_unique<T1FixedState>();
  std::vector<uint8_t> buffer(1 << 16);
  std::vector<CodingPass> passes(kMaxCodingPasses);
  std::vector<uint32_t> words(kMaxPassDecisions / 4);
  const SharedT1Output out{buffer.data(), static_cast<uint32_t>(buffer.size()), passes.data()};
  const DecisionBuffer decisions = recorded ? DecisionBuffer{words.data(), 1} : DecisionBuffer{};
  uint32_t bytes = 0;
  for (auto _ : state) {
    // not const: DoNotOptimize(const T&) is deprecated
    SharedT1Result r = encode_code_block_shared(block, *s, out, decisions);
    bytes = r.length;
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(buffer.data());
  }
  set_counters(state);
  state.counters["bytes"] = static_cast<double>(bytes);
}
void BM_EncodeShared(benchmark::State& state) { encode_shared(state, false); }
void BM_EncodeSharedRecorded(benchmark::State& state) { encode_shared(state, true); }

void BM_Decode(benchmark::State& state) {
  const auto v = laplacian_block(static_cast<double>(state.range(0)), 1);
  const CodeBlockStyle style = style_of(state.range(1));
  auto e = encode_code_block(PlaneView<const int32_t>{v.data(), 64, 64, 64}, BandOrientation::kHL, 16, style);
  const std::vector<uint32_t> lengths = codeword_segment_lengths(*e, e->num_passes);
  CodeBlockToDecode in;
  in.data = e->data;
  in.segment_lengths = lengths;
  in.num_passes = e->num_passes;
  in.zero_bitplanes = e->zero_bitplanes;
  in.num_bitplanes = 16;
  in.orientation = BandOrientation::kHL;
  in.style = style;
  std::vector<int32_t> out(64 * 64);
  for (auto _ : state) {
    auto r = decode_code_block(in, PlaneView<int32_t>{out.data(), 64, 64, 64});
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(out.data());
  }
  if (out != v) state.SkipWithError("decode mismatch");
  set_counters(state);
}

// The shared decoder (entropy/ebcot/shared_decoder.h, what the GPU kernel runs) on the
// same blocks, on one core.
void BM_DecodeShared(benchmark::State& state) {
  const auto v = laplacian_block(static_cast<double>(state.range(0)), 1);
  const CodeBlockStyle style = style_of(state.range(1));
  auto e = encode_code_block(PlaneView<const int32_t>{v.data(), 64, 64, 64}, BandOrientation::kHL, 16, style);
  const std::vector<uint32_t> lengths = codeword_segment_lengths(*e, e->num_passes);
  SharedT1DecodeBlock in;
  in.data = e->data.data();
  in.length = static_cast<uint32_t>(e->data.size());
  in.segment_lengths = lengths.data();
  in.num_segments = static_cast<uint32_t>(lengths.size());
  in.width = 64;
  in.height = 64;
  in.num_passes = e->num_passes;
  in.zero_bitplanes = e->zero_bitplanes;
  in.num_bitplanes = 16;
  in.orientation = BandOrientation::kHL;
  in.style = style;
  auto s = std::make_unique<T1FixedState>();
  std::vector<int32_t> out(64 * 64);
  for (auto _ : state) {
    auto r = decode_code_block_shared(in, *s, out.data(), 64);
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(out.data());
  }
  if (out != v) state.SkipWithError("decode mismatch");
  set_counters(state);
}

// Arguments: Laplacian scale, code-block style byte (0 default, 1 bypass,
// 0x3F every mode switch).
BENCHMARK(BM_Encode)->Args({1, 0})->Args({4, 0})->Args({32, 0})->Args({256, 0})->Args({32, 1})->Args({32, 0x3F});
BENCHMARK(BM_EncodeShared)->Args({1, 0})->Args({4, 0})->Args({32, 0})->Args({256, 0})->Args({32, 1})->Args({32, 0x3F});
BENCHMARK(BM_EncodeSharedRecorded)->Args({1, 0})->Args({4, 0})->Args({32, 0})->Args({256, 0})->Args({32, 1})->Args({32, 0x3F});
BENCHMARK(BM_Decode)->Args({1, 0})->Args({4, 0})->Args({32, 0})->Args({256, 0})->Args({32, 1})->Args({32, 0x3F});
BENCHMARK(BM_DecodeShared)->Args({1, 0})->Args({4, 0})->Args({32, 0})->Args({256, 0})->Args({32, 1})->Args({32, 0x3F});

}  // namespace
}  // namespace mallat::entropy

BENCHMARK_MAIN();

// Code-blocks to decode for holding the shared Tier-1 decoder (entropy/
// entropy/ebcot/shared_decoder.h) to decode_code_block, on the CPU
// (t1_shared_decoder_test.cc) and the GPU (tests/entropy_cuda): the encoded
// cases of t1_shared_cases.h whole, cut after every pass (with the segment
// lengths Tier-2 would send), with damaged bytes, cut bytes, missing or
// absent segment lengths; and the comparison of samples and info.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "entropy/ebcot/ebcot.h"
#include "entropy/ebcot/shared_decoder.h"
#include "tests/entropy/t1_shared_cases.h"

namespace mallat::entropy::testing {

struct DecodeCase {
  std::string name;
  int width = 0, height = 0;
  std::vector<uint8_t> data;
  std::vector<uint32_t> segment_lengths;
  int num_passes = 0, zero_bitplanes = 0, num_bitplanes = 0;
  BandOrientation orientation = BandOrientation::kLL;
  CodeBlockStyle style;

  CodeBlockToDecode cpu() const {
    return {data, segment_lengths, num_passes, zero_bitplanes, num_bitplanes, orientation, style};
  }
  SharedT1DecodeBlock shared() const {
    SharedT1DecodeBlock b;
    b.data = data.data();
    b.length = static_cast<uint32_t>(data.size());
    b.segment_lengths = segment_lengths.data();
    b.num_segments = static_cast<uint32_t>(segment_lengths.size());
    b.width = width;
    b.height = height;
    b.num_passes = num_passes;
    b.zero_bitplanes = zero_bitplanes;
    b.num_bitplanes = num_bitplanes;
    b.orientation = orientation;
    b.style = style;
    return b;
  }
};

// The first `passes` passes of `e` as Tier-2 hands them over: the bytes up
// to the last one's length and one segment length per terminated pass
// (codeword_segment_lengths).
inline DecodeCase cut_case(const SharedCase& c, const EncodedCodeBlock& e, int passes) {
  DecodeCase d;
  d.name = c.name() + " passes " + std::to_string(passes) + " of " + std::to_string(e.num_passes);
  d.width = c.width;
  d.height = c.height;
  const uint32_t length = passes > 0 ? e.passes[passes - 1].cumulative_length : 0;
  d.data.assign(e.data.begin(), e.data.begin() + length);
  d.segment_lengths = codeword_segment_lengths(e, passes);
  d.num_passes = passes;
  d.zero_bitplanes = e.zero_bitplanes;
  d.num_bitplanes = c.num_bitplanes;
  d.orientation = c.orientation;
  d.style = c.style;
  return d;
}

// Every encoded case whole; every third one cut after each of its passes;
// and damaged copies of some: random bytes, bytes cut off the end, segment
// lengths dropped or left out, lengths past the data.
inline std::vector<DecodeCase> shared_decode_cases() {
  std::vector<DecodeCase> cases;
  std::mt19937 rng(15);
  const std::vector<SharedCase> encoded = shared_cases();
  for (size_t i = 0; i < encoded.size(); ++i) {
    const SharedCase& c = encoded[i];
    if (c.fraction_bits != 0) continue;  // the decoder sees indices only
    const PlaneView<const int32_t> view{c.samples.data(), c.width, c.height, c.width};
    Result<EncodedCodeBlock> e = encode_code_block(view, c.orientation, c.num_bitplanes, c.style);
    EXPECT_TRUE(e.ok()) << c.name();
    if (!e.ok()) continue;
    cases.push_back(cut_case(c, *e, e->num_passes));
    if (i % 3 == 0) {
      for (int p = 0; p < e->num_passes; ++p) cases.push_back(cut_case(c, *e, p));
    }
    if (i % 5 != 0 || e->num_passes == 0) continue;
    const DecodeCase whole = cut_case(c, *e, e->num_passes);
    DecodeCase flipped = whole;
    flipped.name += " random bytes";
    for (int k = 0; k < 8 && !flipped.data.empty(); ++k) {
      flipped.data[rng() % flipped.data.size()] = static_cast<uint8_t>(rng());
    }
    cases.push_back(flipped);
    DecodeCase ffs = whole;
    ffs.name += " 0xFF runs";
    for (size_t k = 0; k < ffs.data.size(); k += 1 + rng() % 23) ffs.data[k] = 0xFF;
    cases.push_back(ffs);
    DecodeCase cut = whole;
    cut.name += " bytes cut";
    cut.data.resize(cut.data.size() * (rng() % 4) / 4);
    cases.push_back(cut);
    DecodeCase fewer = whole;
    fewer.name += " segment lengths missing";
    fewer.segment_lengths.resize(fewer.segment_lengths.size() / 2);
    cases.push_back(fewer);
    DecodeCase long_lengths = whole;
    long_lengths.name += " lengths past the data";
    for (uint32_t& l : long_lengths.segment_lengths) l += rng() % 300;
    cases.push_back(long_lengths);
    DecodeCase noise = whole;
    noise.name += " noise";
    for (uint8_t& b : noise.data) b = static_cast<uint8_t>(rng());
    cases.push_back(noise);
  }
  return cases;
}

// Impossible parameters, which both decoders reject.
inline std::vector<DecodeCase> bad_decode_cases() {
  std::vector<DecodeCase> cases;
  DecodeCase ok;
  ok.width = 64;
  ok.height = 64;
  ok.data.assign(100, 0x5A);
  ok.num_passes = 10;
  ok.num_bitplanes = 12;
  ok.zero_bitplanes = 2;
  auto add = [&](const char* name, auto change) {
    DecodeCase c = ok;
    c.name = name;
    change(c);
    cases.push_back(c);
  };
  add("width 0", [](DecodeCase& c) { c.width = 0; });
  add("128x64", [](DecodeCase& c) { c.width = 128; });
  add("2048x1", [](DecodeCase& c) { c.width = 2048, c.height = 1; });
  add("Mb 32", [](DecodeCase& c) { c.num_bitplanes = 32; });
  add("Mb -1", [](DecodeCase& c) { c.num_bitplanes = -1; });
  add("P -1", [](DecodeCase& c) { c.zero_bitplanes = -1; });
  add("P above Mb", [](DecodeCase& c) { c.zero_bitplanes = 13; });
  add("passes above 3 planes - 2", [](DecodeCase& c) { c.num_passes = 29; });
  add("passes -1", [](DecodeCase& c) { c.num_passes = -1; });
  add("passes with no planes", [](DecodeCase& c) { c.zero_bitplanes = 12, c.num_passes = 1; });
  return cases;
}

// decode_code_block's samples and info for `c` (its status when it fails).
struct CpuDecoded {
  Status status;
  DecodedCodeBlockInfo info;
  std::vector<int32_t> samples;
};
inline CpuDecoded decode_on_cpu(const DecodeCase& c) {
  CpuDecoded d;
  d.samples.assign(static_cast<size_t>(std::max(c.width, 0)) * std::max(c.height, 0), 0x7E7E7E7E);
  Result<DecodedCodeBlockInfo> info =
      decode_code_block(c.cpu(), PlaneView<int32_t>{d.samples.data(), c.width, c.height, c.width});
  d.status = info.status();
  if (info.ok()) d.info = *info;
  return d;
}

// The shared decoder's output `got` (status, info, samples) against the
// CPU decoder's on the same case.
inline ::testing::AssertionResult same_decoding(const CpuDecoded& want, const SharedT1DecodeResult& got,
                                                const int32_t* samples) {
  if (!want.status.ok()) {
    if (got.status == SharedT1DecodeStatus::kBadParameters) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "decoded a block the CPU rejects: " << want.status.message();
  }
  if (got.status != SharedT1DecodeStatus::kOk) return ::testing::AssertionFailure() << "rejected a good block";
  if (got.lowest_plane != want.info.lowest_plane ||
      got.ended_in_significance_pass != want.info.ended_in_significance_pass) {
    return ::testing::AssertionFailure() << "lowest plane " << int{got.lowest_plane} << " (want "
                                         << want.info.lowest_plane << "), ended in significance pass "
                                         << got.ended_in_significance_pass << " (want "
                                         << want.info.ended_in_significance_pass << ")";
  }
  for (size_t i = 0; i < want.samples.size(); ++i) {
    if (samples[i] != want.samples[i]) {
      return ::testing::AssertionFailure() << "sample " << i << " is " << samples[i] << " (want "
                                           << want.samples[i] << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace mallat::entropy::testing

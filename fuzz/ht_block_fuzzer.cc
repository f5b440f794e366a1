// Fuzz target: the HT block decoder (15444-15) on one code-block, below
// Tier-2, so that every input reaches the cleanup, SigProp and MagRef
// decoding. The first 6 bytes choose the block: width and height exponents
// (A.6.1: sides 4..1024, at most 4096 samples, or smaller at image edges),
// Mb, P, the number of passes and where the cleanup segment ends; the rest
// is the codeword data. The decoder must never read outside it, hang or
// crash; what it decodes is not checked (any bytes decode to something).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "entropy/ht/code_block.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mallat::entropy;
  if (size < 6) return 0;
  const int width = 1 + data[0] % 64 + (data[0] & 0x40 ? 960 : 0);
  const int height = std::max(1, std::min(1 + data[1] % 64, 4096 / width));
  const int mb = 1 + data[2] % 31;
  const int zero_bitplanes = data[3] % (mb + 1);
  const int passes = 1 + data[4] % 9;
  const size_t body = size - 6;
  const uint32_t cleanup = body == 0 ? 0 : static_cast<uint32_t>(data[5] * body / 255);
  std::vector<uint32_t> lengths;
  const int refinement = (passes - 1) % 3;
  if (refinement == 0) {
    lengths = {static_cast<uint32_t>(body)};
  } else {
    lengths = {cleanup, static_cast<uint32_t>(body - cleanup)};
  }
  CodeBlockToDecode block;
  block.data = std::span<const uint8_t>(data + 6, body);
  block.segment_lengths = lengths;
  block.num_passes = passes;
  block.zero_bitplanes = zero_bitplanes;
  block.num_bitplanes = mb;
  block.style.ht = true;
  std::vector<int32_t> samples(static_cast<size_t>(width) * height);
  mallat::PlaneView<int32_t> out{samples.data(), width, height, width};
  (void)decode_ht_code_block(block, out);
  return 0;
}

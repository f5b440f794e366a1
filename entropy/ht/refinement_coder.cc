// The HT refinement passes, both directions, for the CPU: the shared coder
// of entropy/ht/shared_refinement.h that the GPU runs too, with the working
// state a thread's own.
#include <vector>

#include "entropy/ht/passes.h"
#include "entropy/ht/shared_refinement.h"

namespace mallat::entropy::ht {

void decode_refinement(std::span<const uint8_t> segment, int passes, int plane, bool vertical_causal,
                       PlaneView<int32_t> samples) {
  thread_local RefinementState state;
  decode_refinement_shared(segment.data(), static_cast<uint32_t>(segment.size()), passes, plane, vertical_causal,
                           samples, state);
}

RefinementCoded encode_refinement(PlaneView<const int32_t> coefficients, int shift, bool vertical_causal,
                                  std::vector<uint8_t>& segment) {
  thread_local RefinementState state;
  const auto capacity = refinement_capacity(static_cast<uint32_t>(coefficients.width * coefficients.height));
  segment.resize(capacity);
  BoundedBytes bytes(segment.data(), capacity);
  const RefinementCoded coded = encode_refinement_shared(coefficients, shift, vertical_causal, bytes, state);
  segment.resize(bytes.size());
  return coded;
}

}  // namespace mallat::entropy::ht

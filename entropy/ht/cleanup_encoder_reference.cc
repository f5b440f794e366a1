// The HT cleanup pass, encoder side, the plain reference the fast encoder
// (entropy/ht/cpu/cleanup_encoder_kernel.h) is tested against: the shared encoder of
// entropy/ht/shared_cleanup_encoder.h that the GPU runs too.
#include <vector>

#include "entropy/ht/passes.h"
#include "entropy/ht/shared_cleanup_encoder.h"

namespace mallat::entropy::ht {

void encode_cleanup_reference(PlaneView<const int32_t> coefficients, int shift, std::vector<uint8_t>& segment) {
  thread_local CleanupEncodeState state;
  const auto samples = static_cast<uint32_t>(coefficients.width * coefficients.height);
  // The planes the magnitudes reach above `shift`: at most 32 - shift.
  const uint32_t capacity = cleanup_capacity(samples, 32 - shift);
  segment.resize(capacity);
  BoundedBytes bytes(segment.data(), capacity);
  encode_cleanup_shared(coefficients, shift, host_vlc_tables(), state, bytes);
  segment.resize(bytes.size());
}

}  // namespace mallat::entropy::ht

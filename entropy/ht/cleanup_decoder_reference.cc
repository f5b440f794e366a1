// The HT cleanup pass, decoder side, the plain reference the fast decoder
// (entropy/ht/cpu/cleanup_decoder_kernel.h) is tested against: the shared decoder of
// entropy/ht/shared_cleanup_decoder.h that the GPU runs too.
#include "entropy/ht/passes.h"
#include "entropy/ht/shared_cleanup_decoder.h"

namespace mallat::entropy::ht {

bool decode_cleanup_reference(std::span<const uint8_t> segment, int p, int planes_above, PlaneView<int32_t> out) {
  thread_local QuadRows rows;
  return decode_cleanup_shared(segment.data(), static_cast<int64_t>(segment.size()), p, planes_above, out,
                               host_vlc_tables(), rows);
}

}  // namespace mallat::entropy::ht

#include "codec/stages/cuda/fed_upload.h"

#include <algorithm>
#include <string>
#include <vector>

#include "codec/stages/cuda/forward_launch.h"
#include "common/timeline.h"
#include "dwt/cuda/check.h"

namespace mallat::codec::cuda {

using dwt::cuda::check_cuda;

namespace {

// Each strip buffer's size: rows enough that the feed's conversion has
// bands for every thread of the pool and a copy is long enough to run at
// the link's speed, few enough that two stay a small part of the memory.
constexpr size_t kStripBytes = size_t{16} << 20;

}  // namespace

Status FedUpload::upload(const EncodeTile& tile, const FedPlanes& to, cudaStream_t s) {
  if (tile.feed == nullptr) return internal_error("a fed upload of a tile without a feed");
  const bool stored = tile.stored_feed != nullptr;
  const size_t nc = tile.planes.size();
  if (nc == 0 || to.planes.size() != nc || to.pitch.size() != nc ||
      (stored && (to.stored == nullptr || to.stored_offset.size() != nc)))
    return internal_error("a fed upload's planes do not match");
  const int64_t height = tile.planes[0].height();
  // Component c's rows of a strip lie together in its buffer, from
  // offset[c] bytes of a row on; each sample `bytes[c]` wide.
  std::vector<int64_t> width(nc), bytes(nc), offset(nc);
  int64_t row_bytes = 0;
  for (size_t c = 0; c < nc; ++c) {
    const TilePlane& plane = tile.planes[c];
    const Component& comp = tile.image->components[c];
    if (tile.source_x[c] != 0 || tile.source_y[c] != 0 || plane.width() != comp.width ||
        plane.height() != comp.height || plane.height() != height) {
      return internal_error("a fed tile that is not the whole image, each component of its size");
    }
    width[c] = comp.width;
    bytes[c] = stored ? stored_bytes(comp.precision) : static_cast<int64_t>(sizeof(int32_t));
    offset[c] = row_bytes;
    row_bytes += comp.width * bytes[c];
  }
  if (height == 0 || row_bytes == 0) return Status::Ok();
  const int64_t rows_each = std::max<int64_t>(1, static_cast<int64_t>(kStripBytes / static_cast<size_t>(row_bytes)));
  const size_t strip_bytes = static_cast<size_t>(std::min(rows_each, height) * row_bytes);
  for (int b = 0; b < 2; ++b) {
    if (!copied_[b]) {
      MALLAT_ASSIGN_OR_RETURN(copied_[b], dwt::cuda::make_event(false));
    }
    // A buffer that must grow is freed: its last copy is done first.
    if (strip_bytes > strip_[b].size()) {
      MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventSynchronize(copied_[b].get()), "waiting for a strip's copy"));
      MALLAT_RETURN_IF_ERROR(strip_[b].reserve(strip_bytes));
    }
  }
  std::vector<uint8_t*> out(nc);
  for (int64_t y = 0, k = 0; y < height; y += rows_each, ++k) {
    const int64_t rows = std::min(rows_each, height - y);
    const int b = static_cast<int>(k % 2);
    {
      const timeline::Span span("dt_feed_wait");  // with MALLAT_TIMELINE: the link behind the feed
      MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventSynchronize(copied_[b].get()), "copying a strip to the device"));
    }
    auto* base = reinterpret_cast<uint8_t*>(strip_[b].data());
    for (size_t c = 0; c < nc; ++c) out[c] = base + rows * offset[c];
    {
      const timeline::Span span("dt_feed");
      if (stored) {
        MALLAT_RETURN_IF_ERROR((*tile.stored_feed)(rows, out.data()));
      } else {
        MALLAT_RETURN_IF_ERROR((*tile.feed)(rows, reinterpret_cast<int32_t* const*>(out.data())));
      }
    }
    for (size_t c = 0; c < nc; ++c) {
      const size_t row = static_cast<size_t>(width[c] * bytes[c]);
      if (stored) {
        // Packed rows into the stored buffer, then widened into the plane.
        std::byte* at = to.stored + to.stored_offset[c] + static_cast<size_t>(y) * row;
        MALLAT_RETURN_IF_ERROR(check_cuda(
            cudaMemcpyAsync(at, out[c], row * static_cast<size_t>(rows), cudaMemcpyHostToDevice, s),
            "copying a strip to the device"));
        const Component& comp = tile.image->components[c];
        MALLAT_RETURN_IF_ERROR(launch_widen(at, comp.precision, comp.is_signed, width[c], rows,
                                            to.planes[c] + y * to.pitch[c], to.pitch[c], s));
      } else {
        MALLAT_RETURN_IF_ERROR(check_cuda(
            cudaMemcpy2DAsync(to.planes[c] + y * to.pitch[c], static_cast<size_t>(to.pitch[c]) * sizeof(int32_t),
                              out[c], row, row, static_cast<size_t>(rows), cudaMemcpyHostToDevice, s),
            "copying a strip to the device"));
      }
    }
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventRecord(copied_[b].get(), s), "cudaEventRecord"));
  }
  return Status::Ok();
}

}  // namespace mallat::codec::cuda

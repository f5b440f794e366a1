#include "codec/stages/cuda/staged_copy.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "codec/stages/staged_chunks.h"
#include "common/host_staging.h"
#include "dwt/cuda/check.h"

namespace mallat::codec::cuda {

using dwt::cuda::check_cuda;

namespace {

constexpr size_t kByteRow = size_t{64} << 10;  // upload_bytes's rows

// Rows [first, first + count) between two pitched buffers, in bands on the pool.
void copy_rows(const std::byte* from, size_t from_pitch, std::byte* to, size_t to_pitch, size_t width, size_t count,
               ThreadPool& pool) {
  const int64_t bands = std::min<int64_t>(static_cast<int64_t>(count), pool.size());
  pool.parallel_for(bands, [&](int64_t b) {
    const size_t r0 = count * static_cast<size_t>(b) / static_cast<size_t>(bands);
    const size_t r1 = count * static_cast<size_t>(b + 1) / static_cast<size_t>(bands);
    if (from_pitch == width && to_pitch == width) {
      std::memcpy(to + r0 * width, from + r0 * width, (r1 - r0) * width);
      return;
    }
    for (size_t r = r0; r < r1; ++r) std::memcpy(to + r * to_pitch, from + r * from_pitch, width);
  });
}

}  // namespace

Status StagedCopier::ready(size_t bytes) {
  for (int i = 0; i < 2; ++i) {
    if (!copied_[i]) {
      MALLAT_ASSIGN_OR_RETURN(copied_[i], dwt::cuda::make_event(false));
    }
    // A chunk that must grow is freed: its last copy (it may still be
    // queued, on any stream) is done first. Writes into a chunk wait for
    // its copy in upload.
    if (bytes <= chunk_[i].size()) continue;
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventSynchronize(copied_[i].get()), "waiting for a staged copy"));
    MALLAT_RETURN_IF_ERROR(chunk_[i].reserve(bytes));
  }
  return Status::Ok();
}

Status StagedCopier::upload(const std::byte* host, size_t host_pitch, std::byte* device, size_t device_pitch,
                            size_t width, size_t rows, cudaStream_t s, ThreadPool& pool) {
  const std::vector<ChunkRows> chunks = staged_chunks(width, rows, kPinnedMostBytes);
  if (chunks.empty()) {
    if (rows == 0 || width == 0) return Status::Ok();
    return check_cuda(
        cudaMemcpy2DAsync(device, device_pitch, host, host_pitch, width, rows, cudaMemcpyHostToDevice, s),
        "copying rows to the device");
  }
  MALLAT_RETURN_IF_ERROR(ready(chunks[0].count * width));
  // The pool fills one buffer while the device copies up the other.
  for (size_t k = 0; k < chunks.size(); ++k) {
    const ChunkRows& c = chunks[k];
    const int b = static_cast<int>(k % 2);
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventSynchronize(copied_[b].get()), "copying rows to the device"));
    copy_rows(host + c.first * host_pitch, host_pitch, chunk_[b].data(), width, width, c.count, pool);
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpy2DAsync(device + c.first * device_pitch, device_pitch,
                                                        chunk_[b].data(), width, width, c.count,
                                                        cudaMemcpyHostToDevice, s),
                                      "copying rows to the device"));
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventRecord(copied_[b].get(), s), "cudaEventRecord"));
  }
  return Status::Ok();
}

Status StagedCopier::upload_bytes(const std::byte* host, std::byte* device, size_t n, cudaStream_t s,
                                  ThreadPool& pool) {
  const size_t whole = n / kByteRow, at = whole * kByteRow;
  MALLAT_RETURN_IF_ERROR(upload(host, kByteRow, device, kByteRow, kByteRow, whole, s, pool));
  return upload(host + at, n - at, device + at, n - at, n - at, 1, s, pool);
}

}  // namespace mallat::codec::cuda

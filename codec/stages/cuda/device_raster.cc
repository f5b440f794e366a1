#include "codec/stages/device_raster.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <limits>
#include <memory>

#include "codec/stages/cuda/staged_copy.h"
#include "dwt/cuda/check.h"
#include "dwt/cuda/device_buffer.h"

namespace mallat::codec {

using dwt::cuda::check_cuda;

namespace {

// Device 0's pool of rasters, made once and never destroyed: arrays handed
// out may outlive every engine, and their memory goes back to it.
struct RasterPool {
  cudaMemPool_t pool = nullptr;
  Status status;
};

const RasterPool& raster_pool() {
  static const RasterPool* made = [] {
    auto* p = new RasterPool;
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      cudaGetLastError();  // the failed query's error is not a later call's
      p->status = device_error("no CUDA device here: device output needs one");
      return p;
    }
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    p->status = check_cuda(cudaMemPoolCreate(&p->pool, &props), "making the pool of device rasters");
    if (!p->status.ok()) return p;
    // Freed rasters stay in the pool for the next ones: a batch's images
    // reuse the memory of the batch before instead of allocating again.
    uint64_t keep = std::numeric_limits<uint64_t>::max();
    p->status = check_cuda(cudaMemPoolSetAttribute(p->pool, cudaMemPoolAttrReleaseThreshold, &keep),
                           "keeping the device rasters' pool");
    return p;
  }();
  return *made;
}

// The calling thread's stream and pinned chunks for its uploads (an item's
// decode runs on one thread of the batch).
struct ThreadUploads {
  dwt::cuda::Stream stream;
  cuda::StagedCopier copier;
};

Result<ThreadUploads*> thread_uploads() {
  thread_local std::unique_ptr<ThreadUploads> uploads;
  if (!uploads) {
    auto made = std::make_unique<ThreadUploads>();
    MALLAT_ASSIGN_OR_RETURN(made->stream, dwt::cuda::make_stream());
    uploads = std::move(made);
  }
  return uploads.get();
}

}  // namespace

Status device_raster_ready() { return raster_pool().status; }

Result<std::shared_ptr<uint8_t>> make_device_raster(size_t bytes) {
  const RasterPool& pool = raster_pool();
  MALLAT_RETURN_IF_ERROR(pool.status);
  MALLAT_ASSIGN_OR_RETURN(ThreadUploads * uploads, thread_uploads());
  const cudaStream_t s = uploads->stream.get();
  void* p = nullptr;
  MALLAT_RETURN_IF_ERROR(
      check_cuda(cudaMallocFromPoolAsync(&p, bytes ? bytes : 1, pool.pool, s), "allocating a device raster"));
  std::shared_ptr<uint8_t> raster(static_cast<uint8_t*>(p), [](uint8_t* q) { cudaFreeAsync(q, cudaStreamLegacy); });
  // Zero where no tile writes, as the host's raster; the device runner's
  // tiles then write it on their own streams.
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemsetAsync(p, 0, bytes, s), "zeroing a device raster"));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaStreamSynchronize(s), "zeroing a device raster"));
  return raster;
}

Status upload_raster_part(const uint8_t* host, uint8_t* device, size_t pitch, size_t x, size_t width, size_t y0,
                          size_t rows, ThreadPool& pool) {
  MALLAT_ASSIGN_OR_RETURN(ThreadUploads * uploads, thread_uploads());
  const size_t at = y0 * pitch + x;
  return uploads->copier.upload(reinterpret_cast<const std::byte*>(host + at), pitch,
                                reinterpret_cast<std::byte*>(device + at), pitch, width, rows, uploads->stream.get(),
                                pool);
}

Status finish_device_raster() {
  MALLAT_ASSIGN_OR_RETURN(ThreadUploads * uploads, thread_uploads());
  return check_cuda(cudaStreamSynchronize(uploads->stream.get()), "copying a raster to the device");
}

Status download_device_raster(const uint8_t* device, size_t bytes, uint8_t* host) {
  return check_cuda(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost), "copying a raster from the device");
}

}  // namespace mallat::codec

#include "entropy/cuda/t1_device_encoder.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "dwt/cuda/check.h"
#include "dwt/cuda/device_buffer.h"

namespace mallat::entropy::cuda {

using dwt::cuda::check_cuda;
using dwt::cuda::DeviceArena;

std::string t1_device_unavailable() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    cudaGetLastError();  // leave no sticky error behind
    return std::string("no CUDA device: cudaGetDeviceCount returned ") + cudaGetErrorString(err);
  }
  if (n == 0) return "no CUDA device: cudaGetDeviceCount found none";
  return "";
}

std::string t1_device_name() {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return "unknown device";
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
         std::to_string(prop.multiProcessorCount) + " SMs)";
}

Result<EncodedCodeBlock> T1DeviceBatchResult::block(size_t i) const {
  if (i >= results.size()) return invalid_argument("no job " + std::to_string(i) + " in the batch");
  const SharedT1Result& r = results[i];
  if (r.status != SharedT1Status::kOk) {
    return invalid_argument("code-block " + std::to_string(i) + " of the device batch: " +
                            shared_t1_status_text(r.status) + " (slot of " + std::to_string(slot_capacity) +
                            " bytes)");
  }
  EncodedCodeBlock e;
  const uint8_t* slot = slots.data() + i * slot_capacity;
  e.data.assign(slot + 1, slot + 1 + r.length);
  e.zero_bitplanes = r.zero_bitplanes;
  e.num_passes = r.num_passes;
  const CodingPass* p = passes.data() + i * kMaxCodingPasses;
  e.passes.assign(p, p + r.num_passes);
  return e;
}

struct T1DeviceEncoder::Impl {
  dwt::cuda::Stream stream;
  T1StateMemory memory = T1StateMemory::kGlobal;
  DeviceArena jobs, order, coefficients, slots, passes, results, states;
  T1EncodeArgs args;
};

T1DeviceEncoder::T1DeviceEncoder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
T1DeviceEncoder::~T1DeviceEncoder() = default;

Result<std::unique_ptr<T1DeviceEncoder>> T1DeviceEncoder::create(T1StateMemory memory) {
  const std::string unavailable = t1_device_unavailable();
  if (!unavailable.empty()) return device_error(unavailable);
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaSetDevice(0), "cudaSetDevice"));
  auto impl = std::make_unique<Impl>();
  impl->memory = memory;
  MALLAT_ASSIGN_OR_RETURN(impl->stream, dwt::cuda::make_stream());
  return std::unique_ptr<T1DeviceEncoder>(new T1DeviceEncoder(std::move(impl)));
}

Status T1DeviceEncoder::upload(std::span<const T1DeviceJob> jobs, std::span<const int32_t> coefficients,
                               uint32_t slot_capacity) {
  for (size_t i = 0; i < jobs.size(); ++i) {
    const uint64_t samples = uint64_t{jobs[i].width} * jobs[i].height;
    if (jobs[i].coefficient_offset + samples > coefficients.size()) {
      return invalid_argument("code-block " + std::to_string(i) + " of the batch: its " + std::to_string(samples) +
                              " samples at offset " + std::to_string(jobs[i].coefficient_offset) +
                              " run past the " + std::to_string(coefficients.size()) + " uploaded");
    }
  }
  if (slot_capacity < 2) return invalid_argument("output slots of fewer than 2 bytes");
  // Blocks of like work side by side: a warp waits for its slowest thread.
  std::vector<uint32_t> order(jobs.size());
  std::iota(order.begin(), order.end(), 0u);
  auto work = [&](uint32_t j) { return uint64_t{jobs[j].width} * jobs[j].height * jobs[j].num_bitplanes; };
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return work(a) > work(b); });

  Impl& d = *impl_;
  const size_t n = jobs.size();
  MALLAT_RETURN_IF_ERROR(d.jobs.reserve(std::max<size_t>(1, n) * sizeof(T1DeviceJob)));
  MALLAT_RETURN_IF_ERROR(d.order.reserve(std::max<size_t>(1, n) * sizeof(uint32_t)));
  MALLAT_RETURN_IF_ERROR(d.coefficients.reserve(std::max<size_t>(1, coefficients.size()) * sizeof(int32_t)));
  MALLAT_RETURN_IF_ERROR(d.slots.reserve(std::max<size_t>(1, n) * slot_capacity));
  MALLAT_RETURN_IF_ERROR(d.passes.reserve(std::max<size_t>(1, n) * kMaxCodingPasses * sizeof(CodingPass)));
  MALLAT_RETURN_IF_ERROR(d.results.reserve(std::max<size_t>(1, n) * sizeof(SharedT1Result)));
  if (d.memory == T1StateMemory::kGlobal) {
    MALLAT_RETURN_IF_ERROR(d.states.reserve(std::max<size_t>(1, n) * sizeof(T1FixedState)));
  }
  cudaStream_t s = d.stream.get();
  MALLAT_RETURN_IF_ERROR(check_cuda(
      cudaMemcpyAsync(d.jobs.data(), jobs.data(), n * sizeof(T1DeviceJob), cudaMemcpyHostToDevice, s),
      "copying the jobs"));
  MALLAT_RETURN_IF_ERROR(check_cuda(
      cudaMemcpyAsync(d.order.data(), order.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice, s),
      "copying the job order"));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpyAsync(d.coefficients.data(), coefficients.data(),
                                                    coefficients.size() * sizeof(int32_t),
                                                    cudaMemcpyHostToDevice, s),
                                    "copying the coefficients"));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaStreamSynchronize(s), "uploading a Tier-1 batch"));
  d.args.jobs = reinterpret_cast<const T1DeviceJob*>(d.jobs.data());
  d.args.order = reinterpret_cast<const uint32_t*>(d.order.data());
  d.args.coefficients = reinterpret_cast<const int32_t*>(d.coefficients.data());
  d.args.slots = reinterpret_cast<uint8_t*>(d.slots.data());
  d.args.slot_capacity = slot_capacity;
  d.args.passes = reinterpret_cast<CodingPass*>(d.passes.data());
  d.args.results = reinterpret_cast<SharedT1Result*>(d.results.data());
  d.args.count = static_cast<uint32_t>(n);
  d.args.states = d.memory == T1StateMemory::kGlobal ? reinterpret_cast<T1FixedState*>(d.states.data()) : nullptr;
  return Status::Ok();
}

Status T1DeviceEncoder::encode() {
  MALLAT_RETURN_IF_ERROR(launch_t1_encode(impl_->args, impl_->stream.get()));
  return check_cuda(cudaStreamSynchronize(impl_->stream.get()), "t1_encode_kernel");
}

Result<double> T1DeviceEncoder::time_encode(int warmup, int runs) {
  cudaStream_t s = impl_->stream.get();
  for (int i = 0; i < warmup; ++i) MALLAT_RETURN_IF_ERROR(launch_t1_encode(impl_->args, s));
  MALLAT_ASSIGN_OR_RETURN(dwt::cuda::Event start, dwt::cuda::make_event(true));
  MALLAT_ASSIGN_OR_RETURN(dwt::cuda::Event stop, dwt::cuda::make_event(true));
  std::vector<double> ms;
  for (int i = 0; i < std::max(1, runs); ++i) {
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventRecord(start.get(), s), "cudaEventRecord"));
    MALLAT_RETURN_IF_ERROR(launch_t1_encode(impl_->args, s));
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventRecord(stop.get(), s), "cudaEventRecord"));
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventSynchronize(stop.get()), "t1_encode_kernel"));
    float t = 0;
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventElapsedTime(&t, start.get(), stop.get()), "cudaEventElapsedTime"));
    ms.push_back(t);
  }
  std::nth_element(ms.begin(), ms.begin() + static_cast<ptrdiff_t>(ms.size() / 2), ms.end());
  return ms[ms.size() / 2];
}

Status T1DeviceEncoder::download(T1DeviceBatchResult& out) {
  const Impl& d = *impl_;
  const size_t n = d.args.count;
  out.slot_capacity = d.args.slot_capacity;
  out.results.resize(n);
  out.passes.resize(n * kMaxCodingPasses);
  out.slots.resize(n * d.args.slot_capacity);
  cudaStream_t s = d.stream.get();
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpyAsync(out.results.data(), d.args.results,
                                                    n * sizeof(SharedT1Result), cudaMemcpyDeviceToHost, s),
                                    "copying the results"));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpyAsync(out.passes.data(), d.args.passes,
                                                    out.passes.size() * sizeof(CodingPass),
                                                    cudaMemcpyDeviceToHost, s),
                                    "copying the passes"));
  MALLAT_RETURN_IF_ERROR(check_cuda(
      cudaMemcpyAsync(out.slots.data(), d.args.slots, out.slots.size(), cudaMemcpyDeviceToHost, s),
      "copying the code-block bytes"));
  return check_cuda(cudaStreamSynchronize(s), "downloading a Tier-1 batch");
}

}  // namespace mallat::entropy::cuda

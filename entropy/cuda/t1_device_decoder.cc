#include "entropy/cuda/t1_device_decoder.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "entropy/cuda/cuda_memory.h"
#include "entropy/cuda/ht/vlc_tables_device.h"
#include "entropy/cuda/t1_device_encoder.h"

namespace mallat::entropy::cuda {

namespace {

// A codeword byte's weight against a sample's walk in an EBCOT block's work
// (upload): 64, about what a byte's MQ decisions cost against a visit
// of a sample by a pass's walk.
constexpr uint64_t kDecisionWeight = 64;

}  // namespace

// The device buffers of a batch, each grown to the largest batch so far and
// reused; freed with the decoder.
struct T1DeviceDecoder::Impl {
  cudaStream_t stream = nullptr;
  int blocks_per_warp = 0;  // 0: auto_blocks_per_warp
  int sms = 1;
  std::optional<bool> marked;  // unset: kMarkedFromBlocksPerWarp decides
  DeviceBuffer<T1DecodeJob> jobs;
  DeviceBuffer<uint32_t> order;
  DeviceBuffer<uint8_t> bytes;
  DeviceBuffer<uint32_t> segments;
  DeviceBuffer<int32_t> samples;
  DeviceBuffer<SharedT1DecodeResult> results;
  DeviceBuffer<T1FixedState> states;
  DeviceBuffer<HtBlockState> ht_states;
  DeviceVlcTables vlc;
  // The jobs and their order staged in page-locked memory: copies from
  // pageable memory go through the driver's own staging, which several
  // slots' uploads side by side wait for.
  HostBuffer<T1DecodeJob> jobs_host;
  HostBuffer<uint32_t> order_host;
  size_t sample_count = 0;
  T1DecodeArgs args;

  ~Impl() {
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
};

T1DeviceDecoder::T1DeviceDecoder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
T1DeviceDecoder::~T1DeviceDecoder() = default;

Result<std::unique_ptr<T1DeviceDecoder>> T1DeviceDecoder::create(int blocks_per_warp) {
  auto decoder = std::unique_ptr<T1DeviceDecoder>(new T1DeviceDecoder(std::make_unique<Impl>()));
  MALLAT_RETURN_IF_ERROR(decoder->set_blocks_per_warp(blocks_per_warp));
  MALLAT_RETURN_IF_ERROR(start_t1_device(decoder->impl_->sms, decoder->impl_->stream));
  MALLAT_RETURN_IF_ERROR(load_t1_decode_kernel());
  MALLAT_RETURN_IF_ERROR(decoder->impl_->vlc.upload());
  return decoder;
}

void T1DeviceDecoder::set_marked_columns(std::optional<bool> marked) { impl_->marked = marked; }

Status T1DeviceDecoder::set_blocks_per_warp(int blocks_per_warp) {
  if (blocks_per_warp < 0 || blocks_per_warp > 32) {
    return invalid_argument("Tier-1 decoding on the device: " + std::to_string(blocks_per_warp) +
                            " code-blocks per warp (1..32, or 0 for auto)");
  }
  impl_->blocks_per_warp = blocks_per_warp;
  return Status::Ok();
}

Status T1DeviceDecoder::reserve(size_t jobs, size_t bytes, size_t segments, size_t samples) {
  Impl& d = *impl_;
  MALLAT_RETURN_IF_ERROR(d.jobs.reserve(jobs));
  MALLAT_RETURN_IF_ERROR(d.order.reserve(jobs));
  MALLAT_RETURN_IF_ERROR(d.bytes.reserve(bytes));
  MALLAT_RETURN_IF_ERROR(d.segments.reserve(segments));
  MALLAT_RETURN_IF_ERROR(d.samples.reserve(samples));
  MALLAT_RETURN_IF_ERROR(d.results.reserve(jobs));
  return d.states.reserve(jobs);
}

Status T1DeviceDecoder::upload(std::span<const T1DecodeJob> jobs, std::span<const uint8_t> bytes,
                               std::span<const uint32_t> segments, size_t samples, const BytesCopy& copy_bytes) {
  const auto ht_job = [](const T1DecodeJob& job) { return CodeBlockStyle::from_byte(job.style).ht; };
  for (size_t i = 0; i < jobs.size(); ++i) {
    const T1DecodeJob& j = jobs[i];
    if (ht_job(j) != ht_job(jobs[0])) {
      return invalid_argument("code-block " + std::to_string(i) + " of the decoding batch is of another block coder");
    }
    const uint64_t n = uint64_t{j.width} * j.height;
    if (j.byte_offset + j.length > bytes.size() || uint64_t{j.segment_offset} + j.num_segments > segments.size() ||
        j.sample_offset + n > samples) {
      return invalid_argument("code-block " + std::to_string(i) + " of the decoding batch reaches past its " +
                              std::to_string(bytes.size()) + " bytes, " + std::to_string(segments.size()) +
                              " segment lengths or " + std::to_string(samples) + " samples");
    }
  }
  // Blocks of like work side by side: a warp waits for its slowest thread.
  // A block's work is its walks over its samples, one a pass, and for
  // EBCOT its MQ decisions, about as many as its bytes' bits (C.3): a
  // tile's blocks with as many passes hold from a few bytes to kilobytes.
  // HT's decoding reads each byte once and has fewer, cheaper passes, so its
  // order stays by the walks.
  std::vector<uint32_t> order(jobs.size());
  std::iota(order.begin(), order.end(), 0u);
  const bool ebcot = jobs.empty() || !ht_job(jobs.front());
  auto work = [&](uint32_t j) {
    const uint64_t walks = uint64_t{jobs[j].width} * jobs[j].height * std::max(jobs[j].num_passes, 0);
    return ebcot ? walks + uint64_t{jobs[j].length} * kDecisionWeight : walks;
  };
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return work(a) > work(b); });

  Impl& d = *impl_;
  const size_t n = jobs.size();
  MALLAT_RETURN_IF_ERROR(reserve(n, bytes.size(), segments.size(), samples));
  cudaStream_t s = d.stream;
  MALLAT_RETURN_IF_ERROR(d.jobs_host.reserve(n));
  MALLAT_RETURN_IF_ERROR(d.order_host.reserve(n));
  std::copy(jobs.begin(), jobs.end(), d.jobs_host.data());
  std::copy(order.begin(), order.end(), d.order_host.data());
  MALLAT_RETURN_IF_ERROR(check_cuda(
      cudaMemcpyAsync(d.jobs.data(), d.jobs_host.data(), n * sizeof(T1DecodeJob), cudaMemcpyHostToDevice, s),
      "copying the decoding jobs"));
  MALLAT_RETURN_IF_ERROR(check_cuda(
      cudaMemcpyAsync(d.order.data(), d.order_host.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice, s),
      "copying the job order"));
  if (copy_bytes) {
    MALLAT_RETURN_IF_ERROR(copy_bytes(d.bytes.data(), s));
  } else {
    MALLAT_RETURN_IF_ERROR(check_cuda(
        cudaMemcpyAsync(d.bytes.data(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice, s),
        "copying the codeword bytes"));
  }
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpyAsync(d.segments.data(), segments.data(),
                                                    segments.size() * sizeof(uint32_t), cudaMemcpyHostToDevice, s),
                                    "copying the segment lengths"));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaStreamSynchronize(s), "uploading a Tier-1 decoding batch"));
  d.sample_count = samples;
  d.args.jobs = d.jobs.data();
  d.args.order = d.order.data();
  d.args.bytes = d.bytes.data();
  d.args.segment_lengths = d.segments.data();
  d.args.samples = d.samples.data();
  d.args.results = d.results.data();
  d.args.count = static_cast<uint32_t>(n);
  // Each coder's working states, one per thread.
  d.args.ht = n > 0 && ht_job(jobs[0]);
  if (d.args.ht) {
    MALLAT_RETURN_IF_ERROR(d.ht_states.reserve(n));
  } else {
    MALLAT_RETURN_IF_ERROR(d.states.reserve(n));
  }
  d.args.states = d.args.ht ? nullptr : d.states.data();
  d.args.ht_states = d.args.ht ? d.ht_states.data() : nullptr;
  d.args.vlc = d.vlc.tables();
  // EBCOT: kEbcotWarpsPerSm (entropy_cuda_decode_bench measures it): a
  // tile's 5760 64x64 blocks decode fastest at 2 a warp, eight tiles' at 16.
  // HT: auto_ht_blocks_per_warp (entropy/cuda/t1_device_encoder.h).
  const int chosen =
      d.args.ht ? auto_ht_blocks_per_warp(n, d.sms) : auto_blocks_per_warp(n, d.sms, kEbcotWarpsPerSm);
  d.args.blocks_per_warp = static_cast<uint32_t>(d.blocks_per_warp > 0 ? d.blocks_per_warp : chosen);
  d.args.marked = d.marked.value_or(d.args.blocks_per_warp >= kMarkedFromBlocksPerWarp);
  return Status::Ok();
}

Status T1DeviceDecoder::decode() {
  MALLAT_RETURN_IF_ERROR(launch());
  return check_cuda(cudaStreamSynchronize(impl_->stream), "t1_decode_kernel");
}

Status T1DeviceDecoder::launch() { return launch_t1_decode(impl_->args, impl_->stream); }
cudaStream_t T1DeviceDecoder::stream() const { return impl_->stream; }
const int32_t* T1DeviceDecoder::device_samples() const { return impl_->args.samples; }
const SharedT1DecodeResult* T1DeviceDecoder::device_results() const { return impl_->args.results; }

Result<double> T1DeviceDecoder::time_decode(int warmup, int runs) {
  return median_launch_ms(
      impl_->stream, [this] { return launch_t1_decode(impl_->args, impl_->stream); }, warmup, runs);
}

Status T1DeviceDecoder::download(std::span<SharedT1DecodeResult> results, std::span<int32_t> samples) {
  const Impl& d = *impl_;
  if (results.size() != d.args.count || samples.size() != d.sample_count) {
    return invalid_argument("downloading a Tier-1 decoding batch into buffers of another size");
  }
  cudaStream_t s = d.stream;
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpyAsync(results.data(), d.args.results,
                                                    results.size() * sizeof(SharedT1DecodeResult),
                                                    cudaMemcpyDeviceToHost, s),
                                    "copying the decoding results"));
  MALLAT_RETURN_IF_ERROR(check_cuda(
      cudaMemcpyAsync(samples.data(), d.args.samples, samples.size() * sizeof(int32_t), cudaMemcpyDeviceToHost, s),
      "copying the decoded samples"));
  return check_cuda(cudaStreamSynchronize(s), "downloading a Tier-1 decoding batch");
}

}  // namespace mallat::entropy::cuda

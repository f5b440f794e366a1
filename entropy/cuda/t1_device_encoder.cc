#include "entropy/cuda/t1_device_encoder.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "entropy/cuda/cuda_memory.h"
#include "entropy/cuda/ht/vlc_tables_device.h"
#include "entropy/t1_encode_batch.h"

namespace mallat::entropy::cuda {

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
  Result<EncodedCodeBlock> e = encoded_from_slot(results[i], passes.data() + i * kMaxCodingPasses,
                                                 slots.data() + i * slot_capacity, slot_capacity);
  if (!e.ok()) return e.status().with_context("code-block " + std::to_string(i) + " of the device batch");
  return e;
}

// The device buffers of a batch, each grown to the largest batch so far and
// reused; freed with the encoder.
struct T1DeviceEncoder::Impl {
  enum Buffer {
    kJobs,
    kOrder,
    kCoefficients,
    kSlots,
    kPasses,
    kResults,
    kStates,
    kByteOffsets,
    kPassOffsets,
    kPackedBytes,
    kPackedPasses,
    kHtStates,
    kDecisions,
    kPlaneBins,
    kOrderByPlanes,
    kFormedStreams,
    kFormedOffsets,
    kFormedBlocks,
    kFormedPasses,
    kFormingScratch,
    kBuffers
  };
  cudaStream_t stream = nullptr;
  T1StateMemory memory = T1StateMemory::kGlobal;
  int blocks_per_warp = 0;  // 0: auto_blocks_per_warp
  bool record_decisions = true;
  bool order_by_planes = true;  // EBCOT's batches only
  bool split = true;            // EBCOT's batches only: formed, then coded
  int forming_lanes = 32;       // 16: half a warp where blocks have <= 16 stripes
  int sms = 1;
  void* buffer[kBuffers] = {};
  size_t size[kBuffers] = {};
  T1EncodeArgs args;
  DeviceVlcTables vlc;
  // upload_jobs' jobs and order on their way up: pinned (common/
  // host_staging.h), since a copy from pageable memory waits in the
  // driver's staging behind every other thread's (a batch's lanes upload
  // their tiles' samples meanwhile; codec/stages/cuda/staged_copy.h).
  HostBuffer<T1DeviceJob> host_jobs;
  HostBuffer<uint32_t> host_order;
  // download_packed's, on the host.
  HostBuffer<SharedT1Result> host_results;
  HostBuffer<uint64_t> host_totals;  // the device's packed totals: bytes, passes
  HostBuffer<CodingPass> host_passes;
  HostBuffer<uint8_t> host_bytes;
  T1PackedLayout packed;
  // download_packed_in_ranges's two pinned chunks of bytes and of passes,
  // and the last copy down into each.
  PinnedBuffer<uint8_t> range_bytes[2];
  PinnedBuffer<CodingPass> range_passes[2];
  cudaEvent_t range_copied[2] = {};

  ~Impl() {
    for (void* p : buffer) cudaFree(p);
    for (cudaEvent_t e : range_copied)
      if (e != nullptr) cudaEventDestroy(e);
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
  // Room for at least `bytes` in buffer b (its content is not kept). It
  // grows by half again at least: the hybrid coder's share of a batch moves
  // a little from batch to batch, and a cudaFree + cudaMalloc each time cost
  // more than the launch.
  Status reserve(Buffer b, size_t bytes) {
    bytes = std::max<size_t>(bytes, 1);
    if (bytes <= size[b]) return Status::Ok();
    bytes = std::max(bytes, size[b] + size[b] / 2);
    cudaFree(buffer[b]);
    buffer[b] = nullptr;
    size[b] = 0;
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaMalloc(&buffer[b], bytes), "allocating device memory for Tier-1"));
    size[b] = bytes;
    return Status::Ok();
  }
  // The split encoder's buffers for `jobs` (formed_passes.h): each block's
  // stream room by its bound, its plan and passes, and the shared memory a
  // forming warp needs for the largest block.
  Status lay_out_formed(std::span<const T1DeviceJob> jobs);
  // The batch's ordering (order_by_planes) and coding launches.
  Status launch();
  // download_packed's first step: the bytes and passes packed on the
  // device, the results down and the packing laid out from them (packed).
  Result<std::span<const SharedT1Result>> pack();
  template <class T>
  T* as(Buffer b) const {
    return static_cast<T*>(buffer[b]);
  }
};

T1DeviceEncoder::T1DeviceEncoder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
T1DeviceEncoder::~T1DeviceEncoder() = default;

int auto_blocks_per_warp(size_t count, int sms, int warps_per_sm) {
  const size_t warps = static_cast<size_t>(std::max(1, warps_per_sm)) * static_cast<size_t>(std::max(1, sms));
  return static_cast<int>(std::clamp<size_t>((count + warps - 1) / warps, 1, 32));
}

int auto_ht_blocks_per_warp(size_t count, int sms) {
  return std::min(auto_blocks_per_warp(count, sms), kHtMaxBlocksPerWarp);
}

Status start_t1_device(int& sms, cudaStream_t& stream) {
  const std::string unavailable = t1_device_unavailable();
  if (!unavailable.empty()) return device_error(unavailable);
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaSetDevice(0), "cudaSetDevice"));
  // The host thread that waits for a launch sleeps rather than spins: the
  // pool's threads code blocks on every core meanwhile (entropy/hybrid/hybrid_block_encoder.h).
  // Too late once the context exists (the CUDA DWT made it): then it spins.
  if (cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) != cudaSuccess) (void)cudaGetLastError();
  MALLAT_RETURN_IF_ERROR(
      check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute"));
  return check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
}

Result<std::unique_ptr<T1DeviceEncoder>> T1DeviceEncoder::create(T1StateMemory memory, int blocks_per_warp) {
  if (blocks_per_warp < 0 || blocks_per_warp > 32) {
    return invalid_argument("Tier-1 on the device: " + std::to_string(blocks_per_warp) +
                            " code-blocks per warp (1..32, or 0 for auto)");
  }
  auto impl = std::make_unique<Impl>();
  impl->memory = memory;
  impl->blocks_per_warp = blocks_per_warp;
  MALLAT_RETURN_IF_ERROR(start_t1_device(impl->sms, impl->stream));
  MALLAT_RETURN_IF_ERROR(load_t1_encode_kernel());
  MALLAT_RETURN_IF_ERROR(impl->vlc.upload());
  return std::unique_ptr<T1DeviceEncoder>(new T1DeviceEncoder(std::move(impl)));
}

Status T1DeviceEncoder::reserve(size_t jobs, size_t coefficients, uint32_t slot_capacity) {
  Impl& d = *impl_;
  const size_t n = jobs;
  MALLAT_RETURN_IF_ERROR(d.reserve(Impl::kJobs, n * sizeof(T1DeviceJob)));
  MALLAT_RETURN_IF_ERROR(d.reserve(Impl::kOrder, n * sizeof(uint32_t)));
  MALLAT_RETURN_IF_ERROR(d.reserve(Impl::kCoefficients, coefficients * sizeof(int32_t)));
  MALLAT_RETURN_IF_ERROR(d.reserve(Impl::kSlots, n * slot_capacity));
  MALLAT_RETURN_IF_ERROR(d.reserve(Impl::kPasses, n * kMaxCodingPasses * sizeof(CodingPass)));
  MALLAT_RETURN_IF_ERROR(d.reserve(Impl::kResults, n * sizeof(SharedT1Result)));
  if (d.memory == T1StateMemory::kGlobal && !d.split) {
    MALLAT_RETURN_IF_ERROR(d.reserve(Impl::kStates, n * sizeof(T1FixedState)));
  }
  return Status::Ok();
}

namespace {

// Whether job i is an HT block (a batch is of one coder).
bool ht_job(const T1DeviceJob& job) { return CodeBlockStyle::from_byte(job.style).ht; }

// Every job's samples within the batch's `coefficients`, all of one coder,
// and room for a block's bytes in its slot.
Status check_jobs(std::span<const T1DeviceJob> jobs, size_t coefficients, uint32_t slot_capacity) {
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (ht_job(jobs[i]) != ht_job(jobs[0])) {
      return invalid_argument("code-block " + std::to_string(i) + " of the batch is of another block coder");
    }
    if (jobs[i].stride != 0 && jobs[i].stride < jobs[i].width) {
      return invalid_argument("code-block " + std::to_string(i) + " of the batch: rows " +
                              std::to_string(jobs[i].stride) + " samples apart, narrower than its " +
                              std::to_string(jobs[i].width));
    }
    const uint64_t span = job_span(jobs[i]);
    if (jobs[i].coefficient_offset + span > coefficients) {
      return invalid_argument("code-block " + std::to_string(i) + " of the batch: its " + std::to_string(span) +
                              " samples' span at offset " + std::to_string(jobs[i].coefficient_offset) +
                              " runs past the batch's " + std::to_string(coefficients) + " coefficients");
    }
  }
  if (slot_capacity < 2) return invalid_argument("output slots of fewer than 2 bytes");
  return Status::Ok();
}

}  // namespace

cudaStream_t T1DeviceEncoder::stream() const { return impl_->stream; }

void T1DeviceEncoder::record_decisions(bool on) { impl_->record_decisions = on; }
void T1DeviceEncoder::order_by_planes(bool on) { impl_->order_by_planes = on; }
void T1DeviceEncoder::split_passes(bool on, int forming_lanes) {
  impl_->split = on;
  impl_->forming_lanes = forming_lanes;
}

Status T1DeviceEncoder::upload(std::span<const T1DeviceJob> jobs, std::span<const int32_t> coefficients,
                               uint32_t slot_capacity) {
  MALLAT_RETURN_IF_ERROR(check_jobs(jobs, coefficients.size(), slot_capacity));
  MALLAT_RETURN_IF_ERROR(reserve(jobs.size(), coefficients.size(), slot_capacity));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpyAsync(impl_->buffer[Impl::kCoefficients], coefficients.data(),
                                                    coefficients.size() * sizeof(int32_t),
                                                    cudaMemcpyHostToDevice, impl_->stream),
                                    "copying the coefficients"));
  return upload_jobs(jobs, impl_->as<const int32_t>(Impl::kCoefficients), coefficients.size(), slot_capacity);
}

Status T1DeviceEncoder::upload_jobs(std::span<const T1DeviceJob> jobs, const int32_t* coefficients, size_t count,
                                    uint32_t slot_capacity) {
  MALLAT_RETURN_IF_ERROR(check_jobs(jobs, count, slot_capacity));
  Impl& d = *impl_;
  const size_t n = jobs.size();
  MALLAT_RETURN_IF_ERROR(d.host_jobs.reserve(n));
  MALLAT_RETURN_IF_ERROR(d.host_order.reserve(n));
  // Blocks of like work side by side: a warp waits for its slowest thread.
  uint32_t* order = d.host_order.data();
  std::iota(order, order + n, 0u);
  auto work = [&](uint32_t j) { return uint64_t{jobs[j].width} * jobs[j].height * jobs[j].num_bitplanes; };
  std::stable_sort(order, order + n, [&](uint32_t a, uint32_t b) { return work(a) > work(b); });
  std::copy(jobs.begin(), jobs.end(), d.host_jobs.data());

  MALLAT_RETURN_IF_ERROR(reserve(n, 0, slot_capacity));
  cudaStream_t s = d.stream;
  // The host buffers are read by the copies until the wait below.
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpyAsync(d.buffer[Impl::kJobs], d.host_jobs.data(),
                                                    n * sizeof(T1DeviceJob), cudaMemcpyHostToDevice, s),
                                    "copying the jobs"));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpyAsync(d.buffer[Impl::kOrder], order, n * sizeof(uint32_t),
                                                    cudaMemcpyHostToDevice, s),
                                    "copying the job order"));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaStreamSynchronize(s), "uploading a Tier-1 batch"));
  d.args.jobs = d.as<const T1DeviceJob>(Impl::kJobs);
  d.args.order = d.as<const uint32_t>(Impl::kOrder);
  d.args.coefficients = coefficients;
  d.args.slots = d.as<uint8_t>(Impl::kSlots);
  d.args.slot_capacity = slot_capacity;
  d.args.passes = d.as<CodingPass>(Impl::kPasses);
  d.args.results = d.as<SharedT1Result>(Impl::kResults);
  d.args.count = static_cast<uint32_t>(n);
  d.args.ht = n > 0 && ht_job(jobs[0]);
  const bool split = !d.args.ht && d.split;
  if (d.memory == T1StateMemory::kGlobal && !d.args.ht && !split) {
    MALLAT_RETURN_IF_ERROR(d.reserve(Impl::kStates, n * sizeof(T1FixedState)));
  }
  d.args.states = d.memory == T1StateMemory::kGlobal ? d.as<T1FixedState>(Impl::kStates) : nullptr;
  d.args.blocks_per_warp = static_cast<uint32_t>(
      d.blocks_per_warp > 0 ? d.blocks_per_warp
      : d.args.ht           ? auto_ht_blocks_per_warp(n, d.sms)
                            : auto_blocks_per_warp(n, d.sms, split ? kFormedCodingWarpsPerSm : kEbcotWarpsPerSm));
  d.args.ht_states = nullptr;
  d.args.decisions = nullptr;
  if (!d.args.ht && d.order_by_planes) {
    // encode() sorts the host's order into this by the blocks' planes.
    MALLAT_RETURN_IF_ERROR(d.reserve(Impl::kPlaneBins, n));
    MALLAT_RETURN_IF_ERROR(d.reserve(Impl::kOrderByPlanes, n * sizeof(uint32_t)));
    d.args.order = d.as<const uint32_t>(Impl::kOrderByPlanes);
  }
  d.args.formed_streams = nullptr;
  if (split) MALLAT_RETURN_IF_ERROR(d.lay_out_formed(jobs));
  if (!d.args.ht && !split && d.record_decisions) {
    const size_t warps = (n + d.args.blocks_per_warp - 1) / d.args.blocks_per_warp;
    MALLAT_RETURN_IF_ERROR(d.reserve(Impl::kDecisions, warps * d.args.blocks_per_warp * kMaxPassDecisions));
    d.args.decisions = d.as<uint32_t>(Impl::kDecisions);
  }
  if (d.args.ht) {
    MALLAT_RETURN_IF_ERROR(d.reserve(Impl::kHtStates, n * sizeof(HtBlockState)));
    d.args.ht_states = d.as<HtBlockState>(Impl::kHtStates);
  }
  d.args.vlc = d.vlc.tables();
  return Status::Ok();
}

Status T1DeviceEncoder::Impl::lay_out_formed(std::span<const T1DeviceJob> jobs) {
  const size_t n = jobs.size();
  std::vector<uint64_t> offsets(n + 1);
  uint32_t words = 0;
  uint32_t scratch = 0;
  int stripes = 0;
  uint64_t at = 0;
  for (size_t j = 0; j < n; ++j) {
    offsets[j] = at;
    // Each room 16-byte aligned, so that a pass's four-byte alignment holds.
    at += (formed_stream_bound(jobs[j].width, jobs[j].height, jobs[j].num_bitplanes) + 15) / 16 * 16;
    const FormingLayout layout = FormingLayout::of(jobs[j].width, jobs[j].height);
    words = std::max(words, layout.shared_total);
    scratch = std::max(scratch, layout.scratch_total);
    stripes = std::max(stripes, (jobs[j].height + 3) / 4);
  }
  offsets[n] = at;
  MALLAT_RETURN_IF_ERROR(reserve(kFormedStreams, at));
  MALLAT_RETURN_IF_ERROR(reserve(kFormedOffsets, (n + 1) * sizeof(uint64_t)));
  MALLAT_RETURN_IF_ERROR(reserve(kFormedBlocks, n * sizeof(FormedBlock)));
  MALLAT_RETURN_IF_ERROR(reserve(kFormedPasses, n * kMaxCodingPasses * sizeof(FormedPass)));
  MALLAT_RETURN_IF_ERROR(reserve(kFormingScratch, n * scratch * sizeof(uint32_t)));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpyAsync(buffer[kFormedOffsets], offsets.data(),
                                                    (n + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice, stream),
                                    "copying the formed streams' offsets"));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaStreamSynchronize(stream), "uploading a Tier-1 batch"));
  args.formed_streams = as<uint8_t>(kFormedStreams);
  args.formed_offsets = as<const uint64_t>(kFormedOffsets);
  args.formed_blocks = as<FormedBlock>(kFormedBlocks);
  args.formed_passes = as<FormedPass>(kFormedPasses);
  // Half a warp a block only where asked and no block has more than 16
  // stripes (a 64x64 block's lanes: one a stripe); a room's words a
  // multiple of 4 so that a second half's is 16-byte aligned too.
  args.forming_lanes = stripes <= 16 && forming_lanes == 16 ? 16 : 32;
  args.forming_words = (words + 3) / 4 * 4;
  args.forming_scratch = as<uint32_t>(kFormingScratch);
  args.forming_scratch_words = scratch;
  return Status::Ok();
}

Status T1DeviceEncoder::Impl::launch() {
  if (args.order == as<const uint32_t>(kOrderByPlanes)) {
    MALLAT_RETURN_IF_ERROR(launch_t1_plane_order(args, as<const uint32_t>(kOrder), as<uint8_t>(kPlaneBins),
                                                 as<uint32_t>(kOrderByPlanes), stream));
  }
  return launch_t1_encode(args, stream);
}

Status T1DeviceEncoder::encode() {
  MALLAT_RETURN_IF_ERROR(impl_->launch());
  return check_cuda(cudaStreamSynchronize(impl_->stream), "t1_encode_kernel");
}

Result<double> T1DeviceEncoder::time_encode(int warmup, int runs) {
  return median_launch_ms(impl_->stream, [this] { return impl_->launch(); }, warmup, runs);
}

namespace {

// The batch's results, passes and slots (`n` jobs of `slot_capacity`-byte
// slots) from the device into host memory, and the wait for them.
Status copy_batch_down(const T1EncodeArgs& args, cudaStream_t s, SharedT1Result* results, CodingPass* passes,
                       uint8_t* slots) {
  const size_t n = args.count;
  MALLAT_RETURN_IF_ERROR(check_cuda(
      cudaMemcpyAsync(results, args.results, n * sizeof(SharedT1Result), cudaMemcpyDeviceToHost, s),
      "copying the results"));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpyAsync(passes, args.passes, n * kMaxCodingPasses * sizeof(CodingPass),
                                                    cudaMemcpyDeviceToHost, s),
                                    "copying the passes"));
  MALLAT_RETURN_IF_ERROR(check_cuda(
      cudaMemcpyAsync(slots, args.slots, n * size_t{args.slot_capacity}, cudaMemcpyDeviceToHost, s),
      "copying the code-block bytes"));
  return check_cuda(cudaStreamSynchronize(s), "downloading a Tier-1 batch");
}

}  // namespace

Status T1DeviceEncoder::download(T1DeviceBatchResult& out) {
  const Impl& d = *impl_;
  const size_t n = d.args.count;
  out.slot_capacity = d.args.slot_capacity;
  out.results.resize(n);
  out.passes.resize(n * kMaxCodingPasses);
  out.slots.resize(n * d.args.slot_capacity);
  return copy_batch_down(d.args, d.stream, out.results.data(), out.passes.data(), out.slots.data());
}

Result<std::span<const SharedT1Result>> T1DeviceEncoder::Impl::pack() {
  Impl& d = *this;
  const size_t n = d.args.count;
  const cudaStream_t s = d.stream;
  MALLAT_RETURN_IF_ERROR(d.reserve(Impl::kByteOffsets, (n + 1) * sizeof(uint64_t)));
  MALLAT_RETURN_IF_ERROR(d.reserve(Impl::kPassOffsets, (n + 1) * sizeof(uint64_t)));
  MALLAT_RETURN_IF_ERROR(d.reserve(Impl::kPackedBytes, n * size_t{d.args.slot_capacity}));
  MALLAT_RETURN_IF_ERROR(d.reserve(Impl::kPackedPasses, n * kMaxCodingPasses * sizeof(CodingPass)));
  auto* byte_offset = d.as<uint64_t>(Impl::kByteOffsets);
  auto* pass_offset = d.as<uint64_t>(Impl::kPassOffsets);
  MALLAT_RETURN_IF_ERROR(launch_t1_pack(d.args, byte_offset, pass_offset, d.as<uint8_t>(Impl::kPackedBytes),
                                        d.as<CodingPass>(Impl::kPackedPasses), s));
  // The results and the totals first: the host lays the packing out from
  // the results (the same rule), and sizes the copies by it.
  MALLAT_RETURN_IF_ERROR(d.host_results.reserve(n));
  MALLAT_RETURN_IF_ERROR(d.host_totals.reserve(2));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpyAsync(d.host_results.data(), d.args.results,
                                                    n * sizeof(SharedT1Result), cudaMemcpyDeviceToHost, s),
                                    "copying the results"));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpyAsync(d.host_totals.data(), byte_offset + n, sizeof(uint64_t),
                                                    cudaMemcpyDeviceToHost, s),
                                    "copying the packed bytes' total"));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpyAsync(d.host_totals.data() + 1, pass_offset + n, sizeof(uint64_t),
                                                    cudaMemcpyDeviceToHost, s),
                                    "copying the packed passes' total"));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaStreamSynchronize(s), "packing a Tier-1 batch"));
  const std::span<const SharedT1Result> results(d.host_results.data(), n);
  lay_out_t1_packed(results, d.packed);
  const uint64_t bytes = d.packed.byte_offset[n], passes = d.packed.pass_offset[n];
  if (bytes != d.host_totals.data()[0] || passes != d.host_totals.data()[1]) {
    return device_error("the device packed " + std::to_string(d.host_totals.data()[0]) + " bytes and " +
                        std::to_string(d.host_totals.data()[1]) + " passes where the results give " +
                        std::to_string(bytes) + " and " + std::to_string(passes));
  }
  return results;
}

Result<T1DeviceBatchView> T1DeviceEncoder::download_packed() {
  Impl& d = *impl_;
  const cudaStream_t s = d.stream;
  MALLAT_ASSIGN_OR_RETURN(const std::span<const SharedT1Result> results, d.pack());
  const size_t n = results.size();
  const uint64_t bytes = d.packed.byte_offset[n], passes = d.packed.pass_offset[n];
  MALLAT_RETURN_IF_ERROR(d.host_bytes.reserve(bytes));
  MALLAT_RETURN_IF_ERROR(d.host_passes.reserve(passes));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpyAsync(d.host_bytes.data(), d.buffer[Impl::kPackedBytes], bytes,
                                                    cudaMemcpyDeviceToHost, s),
                                    "copying the packed bytes"));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpyAsync(d.host_passes.data(), d.buffer[Impl::kPackedPasses],
                                                    passes * sizeof(CodingPass), cudaMemcpyDeviceToHost, s),
                                    "copying the packed passes"));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaStreamSynchronize(s), "downloading a packed Tier-1 batch"));
  T1DeviceBatchView view;
  view.results = results;
  view.bytes = d.host_bytes.data();
  view.byte_offset = d.packed.byte_offset.data();
  view.passes = d.host_passes.data();
  view.pass_offset = d.packed.pass_offset.data();
  return view;
}

Status T1DeviceEncoder::download_packed_in_ranges(size_t range_bytes, const PackedRange& take) {
  Impl& d = *impl_;
  const cudaStream_t s = d.stream;
  MALLAT_ASSIGN_OR_RETURN(const std::span<const SharedT1Result> results, d.pack());
  const size_t n = results.size();
  const uint64_t* byte_at = d.packed.byte_offset.data();
  const uint64_t* pass_at = d.packed.pass_offset.data();
  // Ranges of whole blocks, each of at most range_bytes of bytes and of
  // passes (or one block), in order.
  std::vector<std::pair<size_t, size_t>> ranges;
  uint64_t most_bytes = 1, most_passes = 1;
  for (size_t first = 0; first < n;) {
    size_t end = first + 1;
    while (end < n && byte_at[end + 1] - byte_at[first] <= range_bytes &&
           (pass_at[end + 1] - pass_at[first]) * sizeof(CodingPass) <= range_bytes)
      ++end;
    ranges.emplace_back(first, end);
    most_bytes = std::max(most_bytes, byte_at[end] - byte_at[first]);
    most_passes = std::max(most_passes, pass_at[end] - pass_at[first]);
    first = end;
  }
  for (int b = 0; b < 2; ++b) {
    if (d.range_copied[b] == nullptr)
      MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventCreateWithFlags(&d.range_copied[b], cudaEventDisableTiming),
                                        "cudaEventCreateWithFlags"));
    // take() has returned for every range before: nothing reads the chunks.
    MALLAT_RETURN_IF_ERROR(d.range_bytes[b].reserve(most_bytes));
    MALLAT_RETURN_IF_ERROR(d.range_passes[b].reserve(most_passes));
  }
  const auto* packed_bytes = static_cast<const uint8_t*>(d.buffer[Impl::kPackedBytes]);
  const auto* packed_passes = static_cast<const CodingPass*>(d.buffer[Impl::kPackedPasses]);
  // Range k comes down into chunk k % 2 while range k - 1 is taken from
  // the other.
  auto taken = [&](size_t k) -> Status {
    const auto [first, end] = ranges[k];
    const int b = static_cast<int>(k % 2);
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventSynchronize(d.range_copied[b]), "downloading a packed Tier-1 range"));
    T1DeviceBatchView view;
    view.results = results;
    // Block i's bytes at bytes + byte_offset[i] as download_packed's, for
    // the range's blocks alone.
    view.bytes = d.range_bytes[b].data() - byte_at[first];
    view.byte_offset = byte_at;
    view.passes = d.range_passes[b].data() - pass_at[first];
    view.pass_offset = pass_at;
    return take(view, first, end);
  };
  for (size_t k = 0; k < ranges.size(); ++k) {
    const auto [first, end] = ranges[k];
    const int b = static_cast<int>(k % 2);
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpyAsync(d.range_bytes[b].data(), packed_bytes + byte_at[first],
                                                      byte_at[end] - byte_at[first], cudaMemcpyDeviceToHost, s),
                                      "copying a range of packed bytes"));
    MALLAT_RETURN_IF_ERROR(check_cuda(
        cudaMemcpyAsync(d.range_passes[b].data(), packed_passes + pass_at[first],
                        (pass_at[end] - pass_at[first]) * sizeof(CodingPass), cudaMemcpyDeviceToHost, s),
        "copying a range of packed passes"));
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventRecord(d.range_copied[b], s), "cudaEventRecord"));
    if (k > 0) MALLAT_RETURN_IF_ERROR(taken(k - 1));
  }
  if (!ranges.empty()) MALLAT_RETURN_IF_ERROR(taken(ranges.size() - 1));
  return Status::Ok();
}

}  // namespace mallat::entropy::cuda

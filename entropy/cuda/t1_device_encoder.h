// Host side of Tier-1 encoding on the GPU: uploads a batch of code-blocks
// (all EBCOT's or all HT's), runs that coder's kernel over it in one launch, times it, and brings back each
// block's bytes, passes and status. The encoder reaches it through the
// device block coder (device_block_encoder.h); the GPU tests and the
// benchmark (tests/entropy_cuda) use it directly.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "entropy/cuda/t1_encode_launch.h"
#include "entropy/ebcot/ebcot.h"

namespace mallat::entropy::cuda {

// Empty when a CUDA device can be used; otherwise why not ("no CUDA
// device: ..."), for tests to skip with.
std::string t1_device_unavailable();

// The device's name, compute capability and SM count.
std::string t1_device_name();

// A downloaded batch: per job its result, kMaxCodingPasses pass slots and
// slot_capacity byte slots (entropy/cuda/t1_encode_launch.h).
struct T1DeviceBatchResult {
  uint32_t slot_capacity = 0;
  std::vector<SharedT1Result> results;
  std::vector<CodingPass> passes;
  std::vector<uint8_t> slots;

  // Job i as encode_code_block returns it, or the job's failure as an error.
  Result<EncodedCodeBlock> block(size_t i) const;
};

// A downloaded batch packed (download_packed): job i's result, its coded
// bytes at bytes + byte_offset[i] and its passes at passes +
// pass_offset[i] (packed_bytes and packed_passes of them,
// entropy/ebcot/shared_encoder.h), in host memory its encoder keeps until its next
// download_packed or its end.
struct T1DeviceBatchView {
  std::span<const SharedT1Result> results;
  const uint8_t* bytes = nullptr;
  const uint64_t* byte_offset = nullptr;
  const CodingPass* passes = nullptr;
  const uint64_t* pass_offset = nullptr;
};

// Device 0 made current (its waits sleeping rather than spinning where the
// context is new), its SM count, and a non-blocking stream of the caller's
// (T1DeviceEncoder, T1DeviceDecoder); an error when there is no device.
Status start_t1_device(int& sms, cudaStream_t& stream);

// Where the kernel keeps each thread's working state (entropy/cuda/ebcot/encode_kernel.cuh).
enum class T1StateMemory { kLocal, kGlobal };

// Code-blocks per warp for a batch of `count` on `sms` SMs: about
// `warps_per_sm` warps per SM, never fewer than 1 or more than 32 blocks a
// warp (entropy_cuda_bench and entropy_cuda_decode_bench measure it). A
// warp's lanes branch apart as their blocks differ, so a small batch gains
// from more, emptier warps, and a large one fills the SMs anyway. EBCOT's
// decoder and its one-thread encoder (split_passes(false)) ask for 24
// (kEbcotWarpsPerSm): that encoder, its decisions recorded and its blocks
// ordered by planes, codes a tile's 5760 64x64 blocks fastest at 2 a warp
// and eight tiles' at 16; the HT coders for 12
// (auto_ht_blocks_per_warp).
inline constexpr int kEbcotWarpsPerSm = 24;
// The split EBCOT encoder's coding kernel (entropy/cuda/ebcot/form_kernel.cuh)
// for about 6: each lane's block is one chain of MQ decisions, so a warp is
// as slow as its longest block and waits out its lanes' BYTEOUTs; a tile's
// blocks code fastest at 8 a warp (at 1 and 2 a warp issues an instruction
// for each lane's decision, and was slower), eight tiles' at 32.
inline constexpr int kFormedCodingWarpsPerSm = 6;
int auto_blocks_per_warp(size_t count, int sms, int warps_per_sm = 12);

// The same for an HT batch, both directions: about 12 warps per SM, at most
// kHtMaxBlocksPerWarp blocks a warp. An HT block is a few passes over its
// quads, each lane waiting on its own loads and stores: a tile's blocks code
// and decode fastest at 4 a warp, eight tiles' at 8, and fuller warps are
// slower (entropy_cuda_bench and entropy_cuda_decode_bench with style 0x40
// measure it).
inline constexpr int kHtMaxBlocksPerWarp = 8;
int auto_ht_blocks_per_warp(size_t count, int sms);

class T1DeviceEncoder {
 public:
  // `blocks_per_warp`: 1..32 code-blocks coded by each warp's first lanes,
  // or 0 to choose by batch size (auto_blocks_per_warp).
  static Result<std::unique_ptr<T1DeviceEncoder>> create(T1StateMemory memory = T1StateMemory::kGlobal,
                                                         int blocks_per_warp = 0);
  ~T1DeviceEncoder();

  // Copies a batch to the device (device memory grows as needed and is
  // reused): the jobs, their coefficients (each job's at its offset), and
  // output slots of `slot_capacity` bytes (a block needs its length + 2).
  // Allocates now the device memory a batch of `jobs` blocks with
  // `coefficients` in all and slots of `slot_capacity` bytes needs, so that
  // its upload does not (a start-up on a background thread calls it); the
  // split EBCOT encoder's streams and scratch, sized by the jobs' shapes and
  // Mb, are allocated at the upload.
  Status reserve(size_t jobs, size_t coefficients, uint32_t slot_capacity);
  Status upload(std::span<const T1DeviceJob> jobs, std::span<const int32_t> coefficients,
                uint32_t slot_capacity);
  // A batch whose coefficients lie in the caller's device memory
  // (codec/stages/cuda/: each block where it lies in the tile's planes):
  // the `count` coefficients from `coefficients`, written by work enqueued
  // on stream() before encode() and kept until it returns; every job's
  // samples within them. Only the jobs go up.
  Status upload_jobs(std::span<const T1DeviceJob> jobs, const int32_t* coefficients, size_t count,
                     uint32_t slot_capacity);
  // The stream every copy and launch of this encoder is enqueued on.
  cudaStream_t stream() const;
  // EBCOT: whether each pass's decisions are formed first and coded after
  // (entropy/ebcot/recorded_symbols.h; the default), or coded where they are
  // formed; the same bytes. Takes effect at the next upload.
  void record_decisions(bool on);
  // EBCOT: whether the launch first sorts the blocks by the bit-planes they
  // code (entropy/cuda/ebcot/plane_order_kernel.cuh; the default), or takes
  // the host's order (by samples and Mb); the same bytes. Takes effect at
  // the next upload.
  void order_by_planes(bool on);
  // EBCOT: whether the passes' decisions are formed by a warp a block and
  // then MQ-coded by a thread a block (entropy/ebcot/formed_passes.h; the
  // default), or formed and coded by one thread a block; the same bytes.
  // `forming_lanes` 32 (the default) forms every block on a whole warp; 16
  // forms blocks of at most 16 stripes on half a warp each, two a warp
  // (slower on an H200: entropy_cuda_bench's BENCH_FORM_LANES measures it).
  // Takes effect at the next upload.
  void split_passes(bool on, int forming_lanes = 32);
  // Encodes the uploaded batch in one launch and waits for it.
  Status encode();
  // Device time of one encode(), in ms: the median of `runs` launches timed
  // by CUDA events, after `warmup` untimed ones.
  Result<double> time_encode(int warmup, int runs);
  Status download(T1DeviceBatchResult& out);
  // The coded bytes and passes packed one after another on the device
  // (launch_t1_pack), then down with the results: the slots hold room for
  // each block's worst case (a photo's tile: 37 MB of slots and 8 MB of
  // pass slots for about 8 MB coded), and what comes down lands in host
  // buffers kept from batch to batch (common/host_staging.h).
  Result<T1DeviceBatchView> download_packed();
  // The same results, the bytes and passes down a range of whole blocks at
  // a time (each at most `range_bytes` of either, or one block) through two
  // pinned chunks, each range handed to `take` with its first and end job
  // while the next comes down: the view's bytes and passes hold that
  // range's jobs only, until take returns. For a large tile, whose bytes
  // would otherwise come down through the driver's staging into a host
  // buffer the size of the tile's coded bytes, kept beside the copies the
  // caller makes of them.
  using PackedRange = std::function<Status(const T1DeviceBatchView& view, size_t first, size_t end)>;
  Status download_packed_in_ranges(size_t range_bytes, const PackedRange& take);

 private:
  struct Impl;
  explicit T1DeviceEncoder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mallat::entropy::cuda

// What `--device` runs where (README, "What --device cuda runs where"). The
// choice rests on measurements on an H200 machine (docs/HISTORY.md):
// - encode: Part 1 Tier-1 on the device and the CPU's threads together (the
//   hybrid coder, entropy/hybrid/hybrid_block_encoder.h), the DWT on the CPU: the
//   CUDA DWT's planes go up and come back, which costs more than the
//   transform on 16 cores. CUDA starts on a background thread as soon as
//   the options are read, so reading the input and the CPU stages hide it;
//   blocks coded before it is up are coded on the CPU.
// - decode: Part 1 Tier-1 decoding on the device and the CPU's threads
//   together for a batch of files (the hybrid decoder,
//   entropy/hybrid/hybrid_block_decoder.h), the rest on the CPU; one file on the
//   CPU alone, CUDA never started (its start-up costs a single file more
//   than the device's share saves). The inverse DWT stays on the CPU: the
//   CUDA DWT's copies lost to the CPU's transform even with CUDA's start-up
//   paid once for a batch.
// The library's own dwt_backend still puts the DWT on the device for
// whoever asks (the tests, `mallat bench codec --dwt-device cuda`).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "codec/api/decode.h"
#include "codec/api/encode.h"
#include "entropy/block_coder.h"

namespace mallat::tools {

// Applies encode's --device (opt.dwt_backend as parsed): for cuda or auto
// starts the device coder (opt.block_encoder_instance) and sets the DWT to
// the CPU. cuda in a build without CUDA is an error; auto then stays on the
// CPU. `coder.expected_samples` may be a guess from the first input's size.
// With `start` false (one small file, device_pays_for_one_file) nothing is
// started and the DWT goes to the CPU; cuda without CUDA in the build is the
// same error.
Status place_encode_device(codec::EncodeOptions& opt, const entropy::DeviceCoderOptions& coder = {},
                           bool start = true);

// The first input's size in bytes when it is a file, or of the first file
// by name in it when it is a folder (a batch) (about its samples for 8-bit
// PNM and raw, more for 16-bit, less for PNG), else 0: the hint
// DeviceCoderOptions::expected_samples takes.
uint64_t expected_samples_hint(const std::string& first_input);

// Whether one file of about `expected_samples` samples (expected_samples_hint)
// gains from the device. CUDA's start-up on its background thread slows the
// CPU stages of the same process by about 0.1 s even when no block goes to
// the device (H200 machine, 16 threads, `--device-share 0` against `--device
// cpu`: +92 ms for the 3840x2048 mosaic, +112 ms for it stacked 4 times);
// the device's share of Tier-1 pays for that only on large images (stacked 4
// times, 94 M samples: 1.15 s against 0.88 s on the CPU; 8 times, 189 M:
// 1.51 s against 1.66 s; docs/HISTORY.md). So one file of fewer than
// 128 M samples is coded on the CPU alone, CUDA never started. 0 (unknown)
// is taken as small.
bool device_pays_for_one_file(uint64_t expected_samples);

// Whether this process started a device coder (encoder or decoder). place_encode_device keeps
// each alive to the end of the process, and tools/main.cc then leaves with
// std::_Exit once every file is written and closed: tearing CUDA down (the
// pinned memory unlocked, the context destroyed) costs a single-file
// process tens of ms for nothing, and a start-up still running must not be
// waited for nor torn down under its thread.
bool device_coder_started();

// Keeps a batch's device runner context (codec/stages/device_tile_stages.h) alive to
// the end of the process, as place_encode_device keeps its coder: its
// pinned and device buffers are then never freed (tools/main.cc leaves with
// std::_Exit).
void keep_until_exit(std::shared_ptr<codec::DeviceTileContext> device);

// Applies decode's --device (opt.dwt_backend as parsed): the DWT on the CPU
// whatever was asked; for cuda or auto with `start` (a batch), the device
// decoder (opt.block_decoder_instance), started now in the background.
// cuda in a build without CUDA is an error, started or not; auto then stays
// on the CPU.
Status place_decode_device(codec::DecodeOptions& opt, const entropy::DeviceCoderOptions& coder = {},
                           bool start = true);

// After a decode with --device cuda whose device did not start: a note
// that Tier-1 ran on the CPU and why (the samples are the same).
void note_decode_device_fallback(const codec::DecodeOptions& opt, bool asked_cuda, bool quiet);

// After an encode with --device cuda whose device did not start: a note
// that Tier-1 ran on the CPU and why (the files are the same). Nothing
// otherwise.
void note_device_fallback(const char* command, const codec::EncodeOptions& opt, bool asked_cuda, bool quiet);

}  // namespace mallat::tools

#include "tools/device_placement.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <system_error>
#include <utility>
#include <vector>

namespace mallat::tools {
namespace {

// Never destroyed (device_coder_started).
std::vector<std::shared_ptr<entropy::BlockEncoder>>& started_coders() {
  static auto* coders = new std::vector<std::shared_ptr<entropy::BlockEncoder>>;
  return *coders;
}
std::vector<std::shared_ptr<entropy::BlockDecoder>>& started_decoders() {
  static auto* decoders = new std::vector<std::shared_ptr<entropy::BlockDecoder>>;
  return *decoders;
}

std::vector<std::shared_ptr<codec::DeviceTileContext>>& kept_tile_contexts() {
  static auto* kept = new std::vector<std::shared_ptr<codec::DeviceTileContext>>;
  return *kept;
}

void note_fallback(const char* command, const Status& device) {
  if (device.ok()) return;
  std::fprintf(stderr, "mallat %s: note: Tier-1 ran on the CPU (same output): %s\n", command,
               device.message().c_str());
}

}  // namespace

Status place_encode_device(codec::EncodeOptions& opt, const entropy::DeviceCoderOptions& coder, bool start) {
  const dwt::BackendKind asked = opt.dwt_backend;
  opt.dwt_backend = dwt::BackendKind::kCpu;
  if (asked == dwt::BackendKind::kCpu || opt.block_encoder_instance) return Status::Ok();
  if (!start) {
    const Status built = entropy::device_block_encoder_built();
    return asked == dwt::BackendKind::kCuda ? built.with_context("--device cuda") : Status::Ok();
  }
  Result<std::unique_ptr<entropy::BlockEncoder>> made = entropy::make_device_block_encoder(coder);
  if (!made.ok()) return asked == dwt::BackendKind::kCuda ? made.status().with_context("--device cuda") : Status::Ok();
  opt.block_encoder_instance = std::move(made).value();
  started_coders().push_back(opt.block_encoder_instance);
  return Status::Ok();
}

uint64_t expected_samples_hint(const std::string& first_input) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path file = first_input;
  if (fs::is_directory(file, ec)) {
    // A batch's folder: its first file by name, as the batch orders them.
    fs::path first;
    for (const fs::directory_entry& entry : fs::directory_iterator(file, ec)) {
      if (entry.is_regular_file(ec) && (first.empty() || entry.path() < first)) first = entry.path();
    }
    file = first;
  }
  if (file.empty() || !fs::is_regular_file(file, ec)) return 0;
  const uintmax_t bytes = fs::file_size(file, ec);
  return ec ? 0 : static_cast<uint64_t>(bytes);
}

bool device_pays_for_one_file(uint64_t expected_samples) { return expected_samples >= (uint64_t{1} << 27); }

void keep_until_exit(std::shared_ptr<codec::DeviceTileContext> device) {
  if (device) kept_tile_contexts().push_back(std::move(device));
}

bool device_coder_started() { return !started_coders().empty() || !started_decoders().empty(); }

Status place_decode_device(codec::DecodeOptions& opt, const entropy::DeviceCoderOptions& coder, bool start) {
  const dwt::BackendKind asked = opt.dwt_backend;
  opt.dwt_backend = dwt::BackendKind::kCpu;
  if (asked == dwt::BackendKind::kCpu || opt.block_decoder_instance) return Status::Ok();
  if (!start) {
    const Status built = entropy::device_block_encoder_built();
    return asked == dwt::BackendKind::kCuda ? built.with_context("--device cuda") : Status::Ok();
  }
  Result<std::unique_ptr<entropy::BlockDecoder>> made = entropy::make_device_block_decoder(coder);
  if (!made.ok()) return asked == dwt::BackendKind::kCuda ? made.status().with_context("--device cuda") : Status::Ok();
  opt.block_decoder_instance = std::move(made).value();
  started_decoders().push_back(opt.block_decoder_instance);
  return Status::Ok();
}

void note_decode_device_fallback(const codec::DecodeOptions& opt, bool asked_cuda, bool quiet) {
  if (asked_cuda && !quiet && opt.block_decoder_instance) note_fallback("decode", opt.block_decoder_instance->device_status());
}

void note_device_fallback(const char* command, const codec::EncodeOptions& opt, bool asked_cuda, bool quiet) {
  if (asked_cuda && !quiet && opt.block_encoder_instance) note_fallback(command, opt.block_encoder_instance->device_status());
}

}  // namespace mallat::tools

// `mallat bench codec FILES... [--runs N] [--warmup N] [--batch] [encode options]`:
// every file read, encoded and written, then the written file read, decoded
// and written, in one process; one warm-up round, then N timed rounds, and
// per stage the median over the rounds of its time summed over the files.
// One engine (codec/api/engine.h) codes every call, so its DWT backend,
// pools and device coders are made once and shared, as a batch shares them.
#include "tools/bench_codec.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "codec/codec.h"
#include "codec/api/engine.h"
#include "codec/stages/device_tile_stages.h"
#include "common/thread_pool.h"
#include "entropy/block_coder.h"
#include "io/file.h"
#include "io/image_io.h"
#include "tools/commands.h"
#include "tools/decode_output.h"
#include "engine/engine_impl.h"

namespace mallat::tools {
namespace {
namespace fs = std::filesystem;

const char kUsage[] =
    "usage: mallat bench codec FILES... [--runs N] [--warmup N] [--batch] [--dwt-device cpu|cuda]\n"
    "       [encode options]\n"
    "Encodes and decodes the image FILES in this process and reports images/s, megapixels/s\n"
    "and the time of each stage: read, colour transform, DWT, quantisation + Tier-1 (block\n"
    "coding), rate allocation, Tier-2, write; for decode read, Tier-2, Tier-1 + dequantisation,\n"
    "inverse DWT, inverse colour transform and output, write. Each figure is the median over\n"
    "--runs rounds (default 5) after --warmup rounds (default 1) of its time summed over the\n"
    "files. The encode options are mallat encode's (-threads, --device, -I, -r, ...), and\n"
    "--device runs what the commands run there (Tier-1 encoding and decoding on the GPU and\n"
    "CPU together); decode uses the same -threads. --dwt-device cpu|cuda puts the DWT of both\n"
    "on that device instead of the CPU (a device backend's uploads and downloads are part of\n"
    "its DWT time). --device cuda --device-stages all sends the tiles the device runner covers\n"
    "(5/3 or 9/7, Part 1 or HT, no ROI) to the GPU whole, and reports its steps (narrowing, upload,\n"
    "colour and DWT, gather, Tier-1 kernel, download, finishing) within quantisation + Tier-1; the\n"
    "decode's tiles too (gathering, upload, Tier-1 kernel, the inverse stages, download, widening)\n"
    "within Tier-1 + dequantisation; with the Tier-1 kernels' rate in samples a second and the\n"
    "device's busy time (below).\n"
    "The first line names the DWT backend and the instruction set the CPU HT block coder runs\n"
    "with (generic, avx2 or avx512: the best this CPU has, or the one the environment variable\n"
    "MALLAT_HT_ISA names, or the best below it that the CPU has).\n"
    "Intermediate files go to a temporary folder that is removed afterwards.\n"
    "--batch codes the FILES as one batch a round instead, as mallat encode -i DIR and decode\n"
    "-i DIR code a folder (the batch's lanes, tile slots and placement), the images read and\n"
    "the codestreams kept in memory beforehand, and reports each round's wall time and its\n"
    "share an image, with the device runner's steps summed over the tiles (which overlap) and\n"
    "the device's busy time: the union of the tiles' spans on the device, from each tile's first\n"
    "step queued to its last done by CUDA events, the slots side by side counted once.\n";

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// One round's times, each summed over the files.
struct Round {
  double read = 0, write = 0, call = 0, whole = 0;
  codec::StageTimes stages;
  entropy::DeviceCodingTimes device;  // a device block coder's part of block coding
  codec::DeviceTileTimes tiles;       // the device runner's, when it took whole tiles
  codec::DeviceDecodeTimes decoded;   // the same when it decoded whole tiles
  uint64_t samples = 0;               // the round's images' samples, every component
};

// A line of the report: a name and how to get its figure from a round.
struct Line {
  const char* name;
  double (*of)(const Round&);
};

const std::vector<Line>& encode_lines() {
  static const std::vector<Line> lines = {
      {"read", [](const Round& r) { return r.read; }},
      {"colour transform (DC shift, RCT/ICT)", [](const Round& r) { return r.stages.colour_transform_ms; }},
      {"DWT", [](const Round& r) { return r.stages.dwt_ms; }},
      {"quantisation + Tier-1", [](const Round& r) { return r.stages.block_coding_ms; }},
      {"rate allocation", [](const Round& r) { return r.stages.rate_allocation_ms; }},
      {"Tier-2 (packets, file)", [](const Round& r) { return r.stages.tier2_ms; }},
      {"write", [](const Round& r) { return r.write; }},
  };
  return lines;
}

const std::vector<Line>& decode_lines() {
  static const std::vector<Line> lines = {
      {"read", [](const Round& r) { return r.read; }},
      {"Tier-2 (headers, packets)", [](const Round& r) { return r.stages.tier2_ms; }},
      {"Tier-1 + dequantisation", [](const Round& r) { return r.stages.block_coding_ms; }},
      {"inverse DWT", [](const Round& r) { return r.stages.dwt_ms; }},
      {"inverse colour transform, output", [](const Round& r) { return r.stages.colour_transform_ms; }},
      {"write", [](const Round& r) { return r.write; }},
  };
  return lines;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double median_of(const std::vector<Round>& rounds, double (*of)(const Round&)) {
  std::vector<double> v;
  for (const Round& r : rounds) v.push_back(of(r));
  return median(v);
}

// Tier-1 on the device, within "quantisation + Tier-1".
const std::vector<Line>& device_lines() {
  static const std::vector<Line> lines = {
      {"quantisation + gather (CPU)", [](const Round& r) { return r.device.prepare_ms; }},
      {"upload", [](const Round& r) { return r.device.upload_ms; }},
      {"Tier-1 kernel", [](const Round& r) { return r.device.kernel_ms; }},
      {"download", [](const Round& r) { return r.device.download_ms; }},
      {"CPU blocks meanwhile (wall)", [](const Round& r) { return r.device.cpu_ms; }},
      {"CPU waiting for the device", [](const Round& r) { return r.device.wait_ms; }},
      {"code-blocks from slots (CPU)", [](const Round& r) { return r.device.finish_ms; }},
  };
  return lines;
}

// Tier-1 decoding on the device, within "Tier-1 + dequantisation".
const std::vector<Line>& decode_device_lines() {
  static const std::vector<Line> lines = {
      {"lay out + gather bytes (CPU)", [](const Round& r) { return r.device.prepare_ms; }},
      {"upload", [](const Round& r) { return r.device.upload_ms; }},
      {"Tier-1 kernel", [](const Round& r) { return r.device.kernel_ms; }},
      {"download", [](const Round& r) { return r.device.download_ms; }},
      {"CPU blocks meanwhile (wall)", [](const Round& r) { return r.device.cpu_ms; }},
      {"CPU waiting for the device", [](const Round& r) { return r.device.wait_ms; }},
      {"samples placed + dequantised (CPU)", [](const Round& r) { return r.device.finish_ms; }},
  };
  return lines;
}

void report(const char* what, const std::vector<Line>& lines, const std::vector<Round>& rounds, size_t images,
            double megapixels) {
  const double whole = median_of(rounds, [](const Round& r) { return r.whole; });
  const double call = median_of(rounds, [](const Round& r) { return r.call; });
  std::printf("%s: %.1f ms a round: %.2f images/s, %.1f MP/s (the %s calls alone: %.1f ms, %.1f MP/s)\n", what,
              whole, images / (whole / 1e3), megapixels / (whole / 1e3), what, call, megapixels / (call / 1e3));
  double named = 0;
  for (const Line& line : lines) {
    const double ms = median_of(rounds, line.of);
    named += ms;
    std::printf("  %-38s %10.2f ms %6.1f%%\n", line.name, ms, 100.0 * ms / whole);
  }
  std::printf("  %-38s %10.2f ms %6.1f%%\n", "other (headers, allocation, copies)", whole - named,
              100.0 * (whole - named) / whole);
}

// Lines within a stage, indented, each against the whole round.
void report_steps(const std::vector<Line>& lines, const std::vector<Round>& rounds) {
  const double whole = median_of(rounds, [](const Round& r) { return r.whole; });
  for (const Line& line : lines) {
    const double ms = median_of(rounds, line.of);
    std::printf("    %-36s %10.2f ms %6.1f%%\n", line.name, ms, 100.0 * ms / whole);
  }
}

void report_device(const char* stage, const std::vector<Line>& lines, const std::vector<Round>& rounds) {
  std::printf("  of %s, Tier-1 on the device and the CPU (%.0f blocks on the device, %.0f on the CPU a round):\n",
              stage, median_of(rounds, [](const Round& r) { return double(r.device.device_blocks); }),
              median_of(rounds, [](const Round& r) { return double(r.device.cpu_blocks); }));
  report_steps(lines, rounds);
}

// The Tier-1 kernels' own rate when the device took every tile: the round's
// samples over the kernels' time.
void report_kernel_rate(const std::vector<Round>& rounds, double (*kernel_ms)(const Round&)) {
  const double ms = median_of(rounds, kernel_ms);
  const double samples = median_of(rounds, [](const Round& r) { return double(r.samples); });
  if (ms > 0) std::printf("    %-36s %10.2f Gsamples/s\n", "Tier-1 kernel rate", samples / (ms * 1e6));
}

// The device runner's steps (--device-stages all), within "quantisation +
// Tier-1", where the whole tile's time is counted.
void report_tiles(const std::vector<Round>& rounds) {
  std::printf("  of quantisation + Tier-1, the whole tile on the device (%.0f tiles a round; colour and DWT "
              "included):\n", median_of(rounds, [](const Round& r) { return double(r.tiles.tiles); }));
  const std::vector<Line> lines = {
      {"narrowing to stored width (CPU)", [](const Round& r) { return r.tiles.narrow_ms; }},
      {"upload + widen", [](const Round& r) { return r.tiles.upload_ms; }},
      {"DC shift, RCT/ICT, DWT", [](const Round& r) { return r.tiles.colour_dwt_ms; }},
      {"quantising (9/7)", [](const Round& r) { return r.tiles.quantise_ms; }},
      {"Tier-1 kernel", [](const Round& r) { return r.tiles.tier1_ms; }},
      {"download", [](const Round& r) { return r.tiles.download_ms; }},
      {"code-blocks from slots (CPU)", [](const Round& r) { return r.tiles.finish_ms; }},
      {"the device busy (tiles' spans, union)", [](const Round& r) { return r.tiles.busy_ms; }},
      {"Tier-1 kernels running (union)", [](const Round& r) { return r.tiles.tier1_busy_ms; }},
  };
  report_steps(lines, rounds);
  report_kernel_rate(rounds, [](const Round& r) { return r.tiles.tier1_ms; });
}

// The device runner's inverse steps, within "Tier-1 + dequantisation",
// where the whole tile's time is counted.
void report_decoded_tiles(const std::vector<Round>& rounds) {
  std::printf("  of Tier-1 + dequantisation, the whole tile on the device (%.0f tiles a round; inverse DWT and "
              "output included):\n", median_of(rounds, [](const Round& r) { return double(r.decoded.tiles); }));
  const std::vector<Line> lines = {
      {"bytes gathered into pinned (CPU)", [](const Round& r) { return r.decoded.gather_ms; }},
      {"upload", [](const Round& r) { return r.decoded.upload_ms; }},
      {"Tier-1 kernel", [](const Round& r) { return r.decoded.tier1_ms; }},
      {"dequant, inverse DWT, colour, clamp", [](const Round& r) { return r.decoded.inverse_ms; }},
      {"download (stored width)", [](const Round& r) { return r.decoded.download_ms; }},
      {"widening into the image (CPU)", [](const Round& r) { return r.decoded.widen_ms; }},
      {"the device busy (tiles' spans, union)", [](const Round& r) { return r.decoded.busy_ms; }},
      {"Tier-1 kernels running (union)", [](const Round& r) { return r.decoded.tier1_busy_ms; }},
  };
  report_steps(lines, rounds);
  report_kernel_rate(rounds, [](const Round& r) { return r.decoded.tier1_ms; });
}

// Where the decoded images are written: the input's format when it has
// one this build writes, else PAM (which holds any image).
fs::path decoded_name(const fs::path& dir, size_t i, const fs::path& input) {
  const io::Format format = io::format_from_extension(input);
  const bool keep = format != io::Format::kUnknown && format != io::Format::kPgx && io::can_write(format);
  return dir / ("decoded" + std::to_string(i) + (keep ? input.extension().string() : ".pam"));
}

// Adds one call's stage times to a round's.
void add_stage_times(codec::StageTimes& sum, const codec::StageTimes& call) {
  sum.colour_transform_ms += call.colour_transform_ms;
  sum.dwt_ms += call.dwt_ms;
  sum.block_coding_ms += call.block_coding_ms;
  sum.rate_allocation_ms += call.rate_allocation_ms;
  sum.tier2_ms += call.tier2_ms;
}

struct Bench {
  std::vector<fs::path> files;
  int runs = 5, warmup = 1;
  bool batch = false;  // --batch
  std::optional<Device> dwt_device;  // --dwt-device: where the DWT runs, whatever --device
  codec::EncodeOptions encode;
  codec::DecodeOptions decode;
  std::unique_ptr<Engine> engine;
  fs::path dir;

  Status encode_round(Round& r, uint64_t* pixels) {
    const entropy::DeviceCodingTimes before = device_times(engine->impl().encoder());
    const codec::DeviceTileTimes tiles_before = tile_times();
    const auto start = std::chrono::steady_clock::now();
    for (size_t i = 0; i < files.size(); ++i) {
      auto t = std::chrono::steady_clock::now();
      MALLAT_ASSIGN_OR_RETURN(const Image image, io::read_image(files[i]));
      r.read += ms_since(t);
      *pixels += static_cast<uint64_t>(image.width()) * static_cast<uint64_t>(image.height());
      for (const Component& c : image.components) r.samples += static_cast<uint64_t>(c.width * c.height);
      t = std::chrono::steady_clock::now();
      codec::EncodeReport report;
      auto bytes = engine->encode(image, encode, &report);
      r.call += ms_since(t);
      add_stage_times(r.stages, report.stage_times);
      if (!bytes.ok()) return bytes.status().with_context(files[i].string());
      t = std::chrono::steady_clock::now();
      MALLAT_RETURN_IF_ERROR(io::write_file_atomically(dir / ("coded" + std::to_string(i)), *bytes));
      r.write += ms_since(t);
    }
    r.whole = ms_since(start);
    r.device = since(before, device_times(engine->impl().encoder()));
    r.tiles = tile_times() - tiles_before;
    return Status::Ok();
  }

  // The device runner's times so far (zeros without one).
  codec::DeviceTileTimes tile_times() const {
    codec::DeviceTileContext* tiles = engine->impl().encode_tiles();
    return tiles ? codec::device_tile_times(*tiles) : codec::DeviceTileTimes{};
  }
  // A coder's device times so far (zeros without a coder).
  template <class Coder>
  static entropy::DeviceCodingTimes device_times(const Coder* coder) {
    return coder ? coder->device_times() : entropy::DeviceCodingTimes{};
  }
  static entropy::DeviceCodingTimes since(const entropy::DeviceCodingTimes& before,
                                          const entropy::DeviceCodingTimes& after) {
    return {after.prepare_ms - before.prepare_ms, after.upload_ms - before.upload_ms,
            after.kernel_ms - before.kernel_ms,   after.download_ms - before.download_ms,
            after.finish_ms - before.finish_ms,   after.device_blocks - before.device_blocks,
            after.cpu_blocks - before.cpu_blocks, after.cpu_ms - before.cpu_ms,
            after.wait_ms - before.wait_ms};
  }

  Status decode_round(Round& r) {
    const entropy::DeviceCodingTimes before = device_times(engine->impl().decoder());
    const codec::DeviceDecodeTimes decoded_before = decoded_times();
    const auto start = std::chrono::steady_clock::now();
    for (size_t i = 0; i < files.size(); ++i) {
      auto t = std::chrono::steady_clock::now();
      MALLAT_ASSIGN_OR_RETURN(const std::vector<uint8_t> bytes, io::read_file(dir / ("coded" + std::to_string(i))));
      r.read += ms_since(t);
      t = std::chrono::steady_clock::now();
      // As `mallat decode` does: the samples as a byte raster where the
      // image fits one (codec::decode's raster overload), written as it is
      // where the output keeps every sample (tools/decode_output.h).
      std::vector<uint8_t> raster;
      codec::DecodeReport report;
      auto image = engine->decode(bytes, decode, &report, &raster);
      r.call += ms_since(t);
      add_stage_times(r.stages, report.stage_times);
      if (!image.ok()) return image.status().with_context("decoding " + files[i].string() + "'s codestream");
      t = std::chrono::steady_clock::now();
      const fs::path out = decoded_name(dir, i, files[i]);
      bool written = false;
      if (!raster.empty()) {
        DecodeOutputOptions o;
        o.threads = decode.threads;
        MALLAT_ASSIGN_OR_RETURN(written, write_raster_output(*image, raster, decode.reduce, out, o, nullptr));
        if (!written) unpack_raster(raster, *image);
      }
      if (!written) {
        io::WriteOptions w;
        w.threads = decode.threads;
        MALLAT_RETURN_IF_ERROR(io::write_image(*image, out, w));
      }
      r.write += ms_since(t);
    }
    r.whole = ms_since(start);
    r.device = since(before, device_times(engine->impl().decoder()));
    r.decoded = decoded_times() - decoded_before;
    return Status::Ok();
  }

  codec::DeviceDecodeTimes decoded_times() const {
    codec::DeviceTileContext* tiles = engine->impl().decode_tiles();
    return tiles ? codec::device_decode_times(*tiles) : codec::DeviceDecodeTimes{};
  }

  // --batch: the images read as a batch reads them for whole tiles, once.
  std::vector<Image> images;
  std::vector<std::vector<uint8_t>> coded;

  Status read_images(uint64_t* pixels, uint64_t* samples) {
    for (const fs::path& f : files) {
      MALLAT_ASSIGN_OR_RETURN(Image image, io::read_image(f, 0, io::SampleForm::kStoredWhereCheap));
      *pixels += static_cast<uint64_t>(image.width()) * static_cast<uint64_t>(image.height());
      for (const Component& c : image.components) *samples += static_cast<uint64_t>(c.width * c.height);
      images.push_back(std::move(image));
    }
    return Status::Ok();
  }

  // One round of --batch: every image through encode_batch, then every
  // codestream through decode_batch (as PNM rasters where they fit).
  Status batch_round(Round& e, Round& d) {
    const codec::DeviceTileTimes tiles_before = tile_times();
    std::vector<EncodeItem> items(images.size());
    for (size_t i = 0; i < items.size(); ++i) items[i].image = &images[i];
    auto start = std::chrono::steady_clock::now();
    std::vector<EncodeResult> encoded = engine->encode_batch(items, encode);
    e.whole = e.call = ms_since(start);
    e.tiles = tile_times() - tiles_before;
    coded.assign(encoded.size(), {});
    for (size_t i = 0; i < encoded.size(); ++i) {
      if (!encoded[i].status.ok()) return encoded[i].status.with_context(files[i].string());
      add_stage_times(e.stages, encoded[i].report.stage_times);
      coded[i] = std::move(encoded[i].bytes);
    }
    const codec::DeviceDecodeTimes decoded_before = decoded_times();
    std::vector<DecodeItem> decode_items(coded.size());
    for (size_t i = 0; i < coded.size(); ++i) {
      decode_items[i].data = coded[i];
      decode_items[i].raster = true;
    }
    start = std::chrono::steady_clock::now();
    std::vector<DecodeResult> decoded = engine->decode_batch(decode_items, decode);
    d.whole = d.call = ms_since(start);
    d.decoded = decoded_times() - decoded_before;
    for (size_t i = 0; i < decoded.size(); ++i) {
      if (!decoded[i].status.ok()) return decoded[i].status.with_context("decoding " + files[i].string());
      add_stage_times(d.stages, decoded[i].report.stage_times);
    }
    return Status::Ok();
  }

  Status run_batch() {
    uint64_t pixels = 0, samples = 0;
    MALLAT_RETURN_IF_ERROR(read_images(&pixels, &samples));
    Workload work;
    work.batch = true;
    work.items = images.size();
    work.expected_samples = images.empty() ? 0 : samples / images.size();
    MALLAT_ASSIGN_OR_RETURN(const Placement encoding, engine->prepare_encode(encode, work));
    // The decode's batch as the decode command places it: its first item's
    // coder and path are the encode's.
    Workload decoding = work;
    decoding.ht = encode.style.ht;
    decoding.irreversible = !encode.reversible;
    MALLAT_ASSIGN_OR_RETURN(const Placement decoded, engine->prepare_decode(decode, decoding));
    std::vector<Round> encodes, decodes;
    for (int round = 0; round < warmup + runs; ++round) {
      Round e, d;
      e.samples = d.samples = samples;
      MALLAT_RETURN_IF_ERROR(batch_round(e, d));
      if (round < warmup) continue;
      encodes.push_back(e);
      decodes.push_back(d);
    }
    const size_t n = images.size();
    // Where each batch ran: its lanes, and what the device did.
    auto placed = [](const Placement& p, const Status& started) {
      const std::string device = !p.device      ? "not used"
                                 : !started.ok() ? "asked for, its start failed (" + started.message() + ")"
                                 : p.whole_tiles ? "coding whole tiles"
                                                 : "coding Tier-1";
      return std::to_string(p.files_at_once) + " lanes, the device " + device;
    };
    std::printf("mallat bench codec --batch: %zu files, %.1f MP; encode %s; decode %s; median of %d rounds after %d "
                "warm-up\n",
                n, static_cast<double>(pixels) / 1e6, placed(encoding, engine->encode_device_status()).c_str(),
                placed(decoded, engine->decode_device_status()).c_str(), runs, warmup);
    for (const auto& [what, rounds] : {std::pair<const char*, const std::vector<Round>*>{"encode", &encodes},
                                       std::pair<const char*, const std::vector<Round>*>{"decode", &decodes}}) {
      const double whole = median_of(*rounds, [](const Round& r) { return r.whole; });
      // The device's own time: the union of its tiles' spans, slots side
      // by side counted once (busy_time.h).
      const double busy = median_of(*rounds, [](const Round& r) { return r.tiles.busy_ms + r.decoded.busy_ms; });
      std::printf("%s: %.1f ms a round, %.2f ms an image (%.1f images/s)", what, whole, whole / n, n / (whole / 1e3));
      if (busy > 0) std::printf("; the device busy %.1f ms a round, %.2f ms an image", busy, busy / n);
      std::printf("\n");
    }
    if (median_of(encodes, [](const Round& r) { return double(r.tiles.tiles); }) > 0) report_tiles(encodes);
    if (median_of(decodes, [](const Round& r) { return double(r.decoded.tiles); }) > 0) report_decoded_tiles(decodes);
    return Status::Ok();
  }

  Status run() {
    if (batch) return run_batch();
    std::vector<Round> encodes, decodes;
    uint64_t pixels = 0;
    for (int round = 0; round < warmup + runs; ++round) {
      Round e, d;
      pixels = 0;
      MALLAT_RETURN_IF_ERROR(encode_round(e, &pixels));
      MALLAT_RETURN_IF_ERROR(decode_round(d));
      d.samples = e.samples;
      if (round < warmup) continue;
      encodes.push_back(e);
      decodes.push_back(d);
    }
    const double megapixels = static_cast<double>(pixels) / 1e6;
    std::printf(
        "mallat bench codec: %zu files, %.1f MP; DWT %s, HT CPU coder %s, %d threads; median of %d rounds after %d "
        "warm-up\n",
        files.size(), megapixels, engine->dwt_name().c_str(), entropy::ht_cpu_isa_name(),
        encode.threads > 0 ? encode.threads : ThreadPool::hardware_threads(), runs, warmup);
    report("encode", encode_lines(), encodes, files.size(), megapixels);
    if (median_of(encodes, [](const Round& r) { return double(r.tiles.tiles); }) > 0) {
      report_tiles(encodes);
    } else if (engine->impl().encoder()) {
      std::printf("  Tier-1: %s\n", engine->block_encoder_name().c_str());
      report_device("quantisation + Tier-1", device_lines(), encodes);
    }
    report("decode", decode_lines(), decodes, files.size(), megapixels);
    if (median_of(decodes, [](const Round& r) { return double(r.decoded.tiles); }) > 0) {
      report_decoded_tiles(decodes);
    } else if (engine->impl().decoder()) {
      std::printf("  Tier-1: %s\n", engine->block_decoder_name().c_str());
      report_device("Tier-1 + dequantisation", decode_device_lines(), decodes);
    }
    return Status::Ok();
  }
};

// --runs and --warmup: 1..1000 and 0..1000.
Status parse_count(const std::string& option, const std::string& value, int lo, int* out) {
  try {
    size_t used = 0;
    const int v = std::stoi(value, &used);
    if (used == value.size() && v >= lo && v <= 1000) {
      *out = v;
      return Status::Ok();
    }
  } catch (...) {
  }
  return invalid_argument(option + " must be " + std::to_string(lo) + "..1000, got '" + value + "'");
}

// Splits the arguments: --runs, --warmup, the files, and encode's options
// (an option of encode's table takes the word after it when it has a value).
Status parse_args(const std::vector<std::string>& args, Bench& bench) {
  const CommandOptions encode = encode_options();
  std::vector<std::string> encode_args;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--dwt-device") {
      if (!has_value) return invalid_argument("option " + a + " needs a value");
      MALLAT_ASSIGN_OR_RETURN(const dwt::BackendKind kind, dwt::parse_backend_kind(args[++i]));
      bench.dwt_device = kind == dwt::BackendKind::kCpu ? Device::kCpu : kind == dwt::BackendKind::kCuda ? Device::kCuda
                                                                                                      : Device::kAuto;
      continue;
    }
    if (a == "--batch") {
      bench.batch = true;
      continue;
    }
    if (a == "--runs" || a == "--warmup") {
      if (!has_value) return invalid_argument("option " + a + " needs a value");
      MALLAT_RETURN_IF_ERROR(a == "--runs" ? parse_count(a, args[++i], 1, &bench.runs)
                                           : parse_count(a, args[++i], 0, &bench.warmup));
      continue;
    }
    if (a.empty() || a[0] != '-') {
      bench.files.emplace_back(a);
      continue;
    }
    encode_args.push_back(a);
    for (const OptionText& row : encode.options)
      for (std::string_view name : row.names)
        if (name == a && !row.value.empty() && has_value) encode_args.push_back(args[++i]);
  }
  if (bench.files.empty()) return invalid_argument("no image files given");
  MALLAT_ASSIGN_OR_RETURN(EncodeCommandOptions parsed, parse_encode_command_options(encode_args));
  bench.encode = parsed.codec;
  bench.encode.time_stages = true;
  bench.decode.threads = bench.encode.threads;
  bench.decode.time_stages = true;
  // --device as the commands' engine places it, for one file at a time but
  // started whatever its size, the DWT where --dwt-device says; the device
  // coder's start is waited for in the warm-up round.
  EngineOptions engine = parsed.engine;
  engine.threads = bench.encode.threads;
  engine.device_for_one_item = true;
  engine.wait_for_device = true;
  engine.keep_device_until_exit = true;
  if (bench.dwt_device) engine.dwt = *bench.dwt_device;
  bench.engine = std::make_unique<Engine>(engine);
  // (--batch prepares its batches once the images are read.)
  if (bench.batch) return Status::Ok();
  MALLAT_RETURN_IF_ERROR(bench.engine->prepare_encode(bench.encode, Workload{}).status());
  MALLAT_RETURN_IF_ERROR(bench.engine->prepare_decode(bench.decode, Workload{}).status());
  return Status::Ok();
}

}  // namespace

int bench_codec_main(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
  }
  Bench bench;
  Status parsed = parse_args(args, bench);
  if (!parsed.ok()) return fail("bench codec", parsed.message() + " (see --help)", 2);
  std::error_code ec;
  bench.dir = fs::temp_directory_path(ec) / ("mallat-bench-codec-" + std::to_string(getpid()));
  if (ec || !fs::create_directories(bench.dir, ec))
    return fail("bench codec", "cannot make a temporary folder " + bench.dir.string() + ": " + ec.message());
  const Status status = bench.run();
  fs::remove_all(bench.dir, ec);
  if (!status.ok()) return fail("bench codec", status.message());
  return 0;
}

}  // namespace mallat::tools

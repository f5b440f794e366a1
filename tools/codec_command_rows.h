// What encode and decode share on the command line (encode_command.cc,
// decode_command.cc): the -i, -ImgDir, -OutFor, --device and --fsync rows
// of their option tables (option_table.h), the single-file form's check,
// and the note a device that did not start leaves.
#pragma once

#include <string>
#include <string_view>

#include "codec/api/engine.h"
#include "tools/batch.h"
#include "tools/engine_options.h"
#include "tools/option_table.h"
#include "tools/option_values.h"

namespace mallat::tools {

inline constexpr std::string_view kDeviceHelp =
    "cpu (default), cuda, or auto (cuda when the build has it). With cuda, a batch of files sends each tile of Part "
    "1 or HT code-blocks to the GPU whole (--device-stages all): encode runs the colour transform, DWT, "
    "quantisation and Tier-1 there, decode Tier-1 through the inverse colour transform; ROI and -d regions stay on "
    "the CPU. A batch of HT files under a size or quality target (-r, --bpp, -q) goes to the GPU whole from about "
    "1.07 G samples in all (46 3840x2048 RGB images): the blocks' plane statistics come back from quantisation, the "
    "CPU chooses the planes and the GPU codes them; that needs images of one tile and --ht-rate auto or estimated "
    "(otherwise, and for fewer samples, such a batch is encoded on the CPU alone, which is faster; with "
    "--device-stages given, its blocks go to the GPU, the transforms on the CPU). A tile whose run "
    "fails on the GPU is coded again on the CPU (the same output, with a note). "
    "One Part 1 file of about 128 M samples or more (40 megapixels of 8-bit RGB) goes to the GPU whole too where "
    "it fits (at most 1 G samples, 8 bytes a sample within a quarter of the machine's memory) unless it is a decode "
    "of part of the image or of a 9/7 file (which gains nothing there): an encode of one tile from a format read in "
    "strips (PNM, PAM, PGX, TIFF, raw) sends its rows up strip by strip, others read the image whole; a decode "
    "keeps its image on the GPU and writes it out strip by strip. --device-stages all sends any one file there; "
    "--device-stages tier1 or --device-share codes Part 1 Tier-1 (EBCOT) blocks on the GPU and the CPU threads at "
    "once, the rest on the CPU. CUDA starts in the background while the input is read; a batch starts it once. Its "
    "start-up slows the CPU stages beside it, so a single smaller file, and a single HT file, is coded on the CPU "
    "alone unless --device-stages or --device-share is given. "
    "For the same reason a batch of HT files of fewer than about 537 M samples in all (22 3840x2048 RGB images) "
    "is encoded, and one of fewer than about 1.07 G samples (45 such images) decoded, and a batch of Part 1 files "
    "of under about 1.75 M samples each (768x512 RGB) encoded, on the CPU alone, unless "
    "--device-stages or --device-share is given; a batch of Part 1 files of under 3 M samples each (smaller than "
    "1024x1024 RGB) decodes its code-blocks on the GPU in rounds of several files (--device-stages tier1, 8 files at once, "
    "--device-rounds idle) rather than tile by tile. "
    "The files are identical to cpu's; a device that fails to start leaves the work to the CPU with a note";

// -i, -ImgDir and -OutFor, which encode and decode share (batch.h).
template <typename Settings>
Status add_input(Settings& s, const std::string& v) {
  s.batch.inputs.push_back(v);
  return Status::Ok();
}
template <typename Settings>
Option<Settings> image_dir_row(std::string_view help) {
  return {{"-ImgDir"}, "DIR", help, "images", [](Settings& s, const std::string& v) {
            s.batch.image_dir = v;
            return Status::Ok();
          }};
}
template <typename Settings>
Option<Settings> out_format_row(std::string_view help, std::string_view example) {
  return {{"-OutFor"}, "EXT", help, example, [](Settings& s, const std::string& v) {
            s.batch.out_format = v;
            return Status::Ok();
          }};
}
template <typename Settings>
Option<Settings> device_row() {
  return {{"--device", "--dwt"}, "D", kDeviceHelp, "cpu", [](Settings& s, const std::string& v) {
            return parse_device(v, &s.engine.device);
          }};
}

template <typename Settings>
Option<Settings> fsync_row() {
  return {{"--fsync"}, "", kFsyncHelp, "", [](Settings& s, const std::string&) {
            s.fsync = true;
            return Status::Ok();
          }};
}

// What is wrong with the arguments of the single-file form (one -i file, -o
// not a folder); empty when nothing is.
std::string single_file_problem(const BatchRequest& request);

// After a command with --device cuda whose device did not start (`device`
// says why): a note that Tier-1 ran on the CPU (the output is the same).
// Nothing otherwise.
void note_device_fallback(const char* command, const Status& device, bool asked_cuda, bool quiet);

// The engine options every command's engine starts from: `engine` as
// parsed, -threads for its lanes, and its device kept to the process's end
// (tools/main.cc leaves with std::_Exit once every file is written).
EngineOptions command_engine_options(EngineOptions engine, int threads);

}  // namespace mallat::tools

// Batch mode of `mallat encode` and `mallat decode`: many files, one
// process. Which files (a folder's, several -i, opj_compress's -ImgDir) and
// where their outputs go (-o DIR, -OutFor EXT), then a small pipeline: the
// next file is read and the previous one written while the current one is
// coded, each codec call using the -threads pool. A bad file is reported by
// name and the others go on.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "common/image.h"
#include "common/status.h"

namespace mallat::tools {

// What the batch options of a command asked for.
struct BatchRequest {
  std::vector<std::string> inputs;  // -i: files or folders, in order
  std::string image_dir;            // -ImgDir (opj_compress): a folder
  std::string output;               // -o: the output folder; empty: beside the inputs (-ImgDir)
  std::string out_format;           // -OutFor: the output extension, with or without the dot
};

// Whether `request` asks for a batch: -ImgDir, several -i, one -i that is
// a folder, or an -o that is one.
bool is_batch(const BatchRequest& request);

// One file of a batch.
struct BatchFile {
  std::filesystem::path in, out;
};

struct BatchPlan {
  std::vector<BatchFile> files;
  // Files in the folders that the command does not read, left out.
  std::vector<std::string> skipped;
};

// The files of a batch: each -i file as given, and the files directly in
// each folder (-i DIR, -ImgDir DIR) that `reads` accepts (by name), in name
// order. Each output is the output folder / the input's stem + "." + the
// extension (-OutFor, or `default_extension` when that is empty; an empty
// default makes -OutFor required). Errors: a missing folder, no files, two
// inputs that would write one output, -ImgDir with -i.
Result<BatchPlan> plan_batch(const BatchRequest& request,
                             const std::function<bool(const std::filesystem::path&)>& reads,
                             const std::string& default_extension);

// One file on its way through the pipeline.
struct BatchItem {
  const BatchFile* file = nullptr;
  Image image;                  // encode: the image read; decode: the image decoded
  std::vector<uint8_t> bytes;   // encode: the file coded; decode: the file read
  std::vector<uint8_t> raster;  // decode: the samples as a PNM raster, where the decoder gave them so
  uint64_t pixels = 0;          // the image's width x height, for the progress figures
  std::vector<std::string> messages;  // warnings and notes for the user, printed in order
  int lane = 0;                 // which of run_batch's coding lanes codes it, 0..files_at_once-1
};

// The three steps of a file; an error's message names the file. `read` and
// `write` run on their own threads beside `code` of another file; at most
// run_batch's `files_at_once` `code` calls run at once, each in its own lane
// (BatchItem::lane: a lane's calls run one at a time, so they may share a
// DWT backend).
struct BatchSteps {
  std::function<Status(BatchItem&)> read, code, write;
};

// One file through the three steps in turn, as the single-file command
// runs it: its messages (unless quiet), then its error. Returns the exit
// status: 0 written, 1 failed.
int run_one(const std::string& command, const BatchFile& file, const BatchSteps& steps, bool quiet);

// Runs every file; prints notes and errors ("mallat <command>: ..."), the
// progress (progress.h) and a summary line "N done, M failed, T s, R MP/s"
// (not when quiet). Codes up to `files_at_once` files at a time (so that a
// device coder can put their blocks in one launch, entropy/hybrid/coalesced_launch.h)
// and reads up to `files_ahead` more meanwhile (each held in memory until
// written). Returns the exit status: 0 when every file was written, else 1.
int run_batch(const std::string& command, const BatchPlan& plan, const BatchSteps& steps, bool quiet,
              int files_at_once = 1, int files_ahead = 2);

}  // namespace mallat::tools

// Batch mode of `mallat encode` and `mallat decode`: many files, one
// process. Which files (a folder's, several -i, opj_compress's -ImgDir) and
// where their outputs go (-o DIR, -OutFor EXT); the engine's batch
// (codec/api/engine.h) reads, codes and writes them, and BatchRun prints
// each file's messages and the progress. A bad file is reported by name and
// the others go on. One file runs the same steps in turn (run_one).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
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
};

// The three steps of one file; an error's message names the file.
struct BatchSteps {
  std::function<Status(BatchItem&)> read, code, write;
};

// One file through the three steps in turn, as the single-file command
// runs it: its messages (unless quiet), then its error. Returns the exit
// status: 0 written, 1 failed.
int run_one(const std::string& command, const BatchFile& file, const BatchSteps& steps, bool quiet);

// A batch's output and reporting around the engine's batch: notes and
// errors ("mallat <command>: ..."), the progress (progress.h) and a summary
// line "N done, M failed, T s, R MP/s" (not when quiet).
class BatchRun {
 public:
  BatchRun(const std::string& command, const BatchPlan& plan, bool quiet);
  ~BatchRun();
  // Makes the output folder and notes the files left out; false, with the
  // error printed, when the folder cannot be made.
  bool begin();
  // File i's state: its messages and pixels, which the engine's hooks fill.
  BatchItem& item(size_t i) { return items_[i]; }
  // File i is finished: its messages, then its error, and the progress.
  void finished(size_t i, const Status& status);
  // The MALLAT_TIMELINE spans written and the summary printed; returns the
  // exit status: 0 when every file was written, else 1.
  int end();

 private:
  class Reporter;
  std::string command_;
  const BatchPlan& plan_;
  std::vector<BatchItem> items_;
  std::unique_ptr<Reporter> reporter_;
};

}  // namespace mallat::tools

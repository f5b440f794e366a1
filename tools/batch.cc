// Batch mode of encode and decode (batch.h): the files, then what is printed.
#include "tools/batch.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <system_error>

#include "common/timeline.h"
#include "tools/progress.h"

namespace mallat::tools {
namespace fs = std::filesystem;

bool is_batch(const BatchRequest& request) {
  if (!request.image_dir.empty() || request.inputs.size() > 1) return true;
  std::error_code ec;
  if (request.inputs.size() == 1 && fs::is_directory(request.inputs[0], ec)) return true;
  return !request.output.empty() && fs::is_directory(request.output, ec);
}

namespace {

// The files directly in `dir` that `reads` accepts, in name order; the
// others' names go to `skipped`.
Status list_folder(const fs::path& dir, const std::function<bool(const fs::path&)>& reads,
                   std::vector<fs::path>* files, std::vector<std::string>* skipped) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return io_error(dir.string() + ": cannot list the folder: " + ec.message());
  std::vector<fs::path> found;
  for (const fs::directory_entry& entry : it) {
    if (!entry.is_regular_file(ec)) continue;
    if (reads(entry.path())) {
      found.push_back(entry.path());
    } else {
      skipped->push_back(entry.path().filename().string());
    }
  }
  std::sort(found.begin(), found.end());
  files->insert(files->end(), found.begin(), found.end());
  return Status::Ok();
}

}  // namespace

Result<BatchPlan> plan_batch(const BatchRequest& request, const std::function<bool(const fs::path&)>& reads,
                             const std::string& default_extension) {
  if (!request.image_dir.empty() && !request.inputs.empty())
    return invalid_argument("-ImgDir and -i exclude each other");
  std::string extension = request.out_format.empty() ? default_extension : request.out_format;
  if (!extension.empty() && extension[0] == '.') extension.erase(0, 1);
  if (extension.empty()) return invalid_argument("a batch needs -OutFor EXT, the output format");
  // opj_compress spells the formats in capitals (-OutFor J2K); file names get lower case.
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // opj_compress writes -ImgDir's outputs beside the inputs.
  const fs::path folder = !request.output.empty() ? fs::path(request.output) : fs::path(request.image_dir);
  if (folder.empty()) return invalid_argument("a batch needs -o DIR, the output folder");
  std::error_code ec;
  if (fs::exists(folder, ec) && !fs::is_directory(folder, ec))
    return invalid_argument("-o " + folder.string() + " is not a folder (a batch writes into a folder)");

  BatchPlan plan;
  std::vector<fs::path> inputs;
  const std::vector<std::string> sources =
      request.image_dir.empty() ? request.inputs : std::vector<std::string>{request.image_dir};
  for (const std::string& source : sources) {
    if (fs::is_directory(source, ec)) {
      MALLAT_RETURN_IF_ERROR(list_folder(source, reads, &inputs, &plan.skipped));
    } else if (!request.image_dir.empty()) {
      return invalid_argument("-ImgDir " + source + " is not a folder");
    } else {
      // A named file is taken as it is: one that cannot be read fails alone.
      inputs.emplace_back(source);
    }
  }
  if (inputs.empty()) return invalid_argument("no input files found");
  std::map<fs::path, fs::path> writer;  // output -> the input writing it
  for (const fs::path& in : inputs) {
    const fs::path out = folder / (in.stem().string() + "." + extension);
    auto [at, fresh] = writer.emplace(out, in);
    if (!fresh)
      return invalid_argument(at->second.string() + " and " + in.string() + " would both write " + out.string());
    plan.files.push_back({in, out});
  }
  return plan;
}

// What a batch prints about a finished file and counts.
class BatchRun::Reporter {
 public:
  Reporter(const std::string& command, const BatchPlan& plan, bool quiet)
      : command_("mallat " + command),
        quiet_(quiet),
        progress_(command_, static_cast<int64_t>(plan.files.size()), Progress::style_for(stderr, quiet)) {}

  void note(const std::string& text) {
    if (!quiet_) progress_.message(command_ + ": " + text);
  }

  void finished(BatchItem& item, const Status& status) {
    if (!quiet_)
      for (const std::string& m : item.messages) progress_.message(m);
    if (status.ok()) {
      ++done_;
      progress_.file_done(item.pixels);
    } else {
      ++failed_;
      progress_.message(command_ + ": " + status.message());
      progress_.file_done(0);
    }
    // Nothing of a finished file is needed any more.
    item.image = Image();
    item.bytes = std::vector<uint8_t>();
    item.messages.clear();
  }

  int summary() {
    progress_.finish();
    if (!quiet_) {
      const double seconds = progress_.elapsed_s();
      const double mps = seconds > 0 ? static_cast<double>(progress_.pixels()) / 1e6 / seconds : 0.0;
      std::fprintf(stderr, "%s: %lld done, %lld failed, %.2f s, %.1f MP/s\n", command_.c_str(),
                   static_cast<long long>(done_), static_cast<long long>(failed_), seconds, mps);
    }
    return failed_ == 0 ? 0 : 1;
  }

 private:
  std::string command_;
  bool quiet_;
  Progress progress_;
  int64_t done_ = 0, failed_ = 0;
};

int run_one(const std::string& command, const BatchFile& file, const BatchSteps& steps, bool quiet) {
  BatchItem item;
  item.file = &file;
  Status status = steps.read(item);
  if (status.ok()) status = steps.code(item);
  if (status.ok()) status = steps.write(item);
  // MALLAT_TIMELINE's spans of one file too (its device launches, its
  // strips), as a batch writes them.
  if (const std::string problem = timeline::write_recorded(); !problem.empty())
    std::fprintf(stderr, "mallat %s: %s\n", command.c_str(), problem.c_str());
  if (!quiet)
    for (const std::string& m : item.messages) std::fprintf(stderr, "%s\n", m.c_str());
  if (status.ok()) return 0;
  std::fprintf(stderr, "mallat %s: %s\n", command.c_str(), status.message().c_str());
  return 1;
}

BatchRun::BatchRun(const std::string& command, const BatchPlan& plan, bool quiet)
    : command_(command), plan_(plan), items_(plan.files.size()),
      reporter_(std::make_unique<Reporter>(command, plan, quiet)) {
  for (size_t i = 0; i < items_.size(); ++i) items_[i].file = &plan.files[i];
}

BatchRun::~BatchRun() = default;

bool BatchRun::begin() {
  std::error_code ec;
  const fs::path folder = plan_.files[0].out.parent_path();
  if (!folder.empty() && !fs::is_directory(folder, ec) && !fs::create_directories(folder, ec)) {
    std::fprintf(stderr, "mallat %s: cannot make the output folder %s: %s\n", command_.c_str(),
                 folder.string().c_str(), ec.message().c_str());
    return false;
  }
  if (!plan_.skipped.empty()) {
    std::string names;
    for (size_t i = 0; i < plan_.skipped.size() && i < 5; ++i) names += (i ? ", " : "") + plan_.skipped[i];
    if (plan_.skipped.size() > 5) names += ", ...";
    reporter_->note("note: left out " + std::to_string(plan_.skipped.size()) +
                    " file(s) of a kind it does not read: " + names);
  }
  return true;
}

void BatchRun::finished(size_t i, const Status& status) { reporter_->finished(items_[i], status); }

int BatchRun::end() {
  if (const std::string problem = timeline::write_recorded(); !problem.empty())
    std::fprintf(stderr, "mallat %s: %s\n", command_.c_str(), problem.c_str());
  return reporter_->summary();
}

}  // namespace mallat::tools

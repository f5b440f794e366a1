// Batch mode of encode and decode (batch.h): the files, then the pipeline.
#include "tools/batch.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <future>
#include <map>
#include <mutex>
#include <system_error>

#ifdef __GLIBC__
#include <malloc.h>
#endif

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

namespace {

// What run_batch prints about a finished file and counts.
class Reporter {
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
    item.bytes = {};
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

}  // namespace

int run_one(const std::string& command, const BatchFile& file, const BatchSteps& steps, bool quiet) {
  BatchItem item;
  item.file = &file;
  Status status = steps.read(item);
  if (status.ok()) status = steps.code(item);
  if (status.ok()) status = steps.write(item);
  if (!quiet)
    for (const std::string& m : item.messages) std::fprintf(stderr, "%s\n", m.c_str());
  if (status.ok()) return 0;
  std::fprintf(stderr, "mallat %s: %s\n", command.c_str(), status.message().c_str());
  return 1;
}

namespace {

// A batch allocates the same large buffers file after file (a 3840x2048
// RGB raster is 23.6 MB). glibc maps each above its adaptive threshold
// afresh and unmaps it when freed, so every file pays the kernel's page
// faults and clearing again; up to 32 MB (glibc's most for the threshold)
// they are kept in the heap instead, and freed memory is not trimmed back
// to the system (the process's memory stays at its peak until it exits).
// H200 machine, session 14, 64 copies of the mosaic, -I -r 20 decode with
// the GPU, medians of 3-4 alternated rounds, ms a batch: 819 -> 792 (run
// A, GLIBC_TUNABLES with the same values), 810 -> 780 and 737 -> 725 (runs
// B and C, this call); docs/HISTORY.md, "2026-11-25, 11:13-12:38 UTC".
void keep_large_blocks() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

}  // namespace

int run_batch(const std::string& command, const BatchPlan& plan, const BatchSteps& steps, bool quiet,
              int files_at_once, int files_ahead) {
  keep_large_blocks();
  const size_t n = plan.files.size();
  std::vector<BatchItem> items(n);
  for (size_t i = 0; i < n; ++i) items[i].file = &plan.files[i];
  std::error_code ec;
  const fs::path folder = plan.files[0].out.parent_path();
  if (!folder.empty() && !fs::is_directory(folder, ec) && !fs::create_directories(folder, ec)) {
    std::fprintf(stderr, "mallat %s: cannot make the output folder %s: %s\n", command.c_str(), folder.string().c_str(),
                 ec.message().c_str());
    return 1;
  }

  Reporter reporter(command, plan, quiet);
  if (!plan.skipped.empty()) {
    std::string names;
    for (size_t i = 0; i < plan.skipped.size() && i < 5; ++i) names += (i ? ", " : "") + plan.skipped[i];
    if (plan.skipped.size() > 5) names += ", ...";
    reporter.note("note: left out " + std::to_string(plan.skipped.size()) +
                  " file(s) of a kind it does not read: " + names);
  }
  // Each file on a thread of its own: read, wait for a free lane, code,
  // write. At most `files_at_once` files code at a time (each in a lane of
  // its own) and at most `lanes + files_ahead` are started and not yet written,
  // in whatever order they finish: reading runs ahead of the lanes, no lane
  // waits for a slow file before it to finish, and each file is written as
  // soon as it is coded, beside the others' writes. Files are reported in
  // order.
  const size_t lanes = files_at_once < 1 ? 1 : static_cast<size_t>(files_at_once);
  const size_t in_flight_limit = lanes + static_cast<size_t>(files_ahead < 1 ? 1 : files_ahead);
  std::mutex mutex;
  std::condition_variable lane_freed, file_done;
  std::vector<bool> lane_busy(lanes, false);
  size_t in_flight = 0;
  const auto free_lane = [&] { return std::find(lane_busy.begin(), lane_busy.end(), false) - lane_busy.begin(); };
  // With MALLAT_TIMELINE each step is a span of its file (common/timeline.h).
  const auto file_of = [&items](const BatchItem& item) { return static_cast<int>(&item - items.data()); };
  const auto read_and_code = [&](BatchItem& item) {
    timeline::set_tag({file_of(item), -1});
    Status status;
    {
      timeline::Span span("read");
      status = steps.read(item);
    }
    if (!status.ok()) return status;
    std::unique_lock<std::mutex> lock(mutex);
    {
      timeline::Span span("lane_wait");
      lane_freed.wait(lock, [&] { return free_lane() < static_cast<std::ptrdiff_t>(lanes); });
    }
    item.lane = static_cast<int>(free_lane());
    lane_busy[static_cast<size_t>(item.lane)] = true;
    lock.unlock();
    timeline::set_tag({file_of(item), item.lane});
    {
      timeline::Span span("code");
      status = steps.code(item);
    }
    lock.lock();
    lane_busy[static_cast<size_t>(item.lane)] = false;
    lane_freed.notify_one();
    return status;
  };
  const auto one_file = [&](BatchItem& item) {
    Status status = read_and_code(item);
    if (status.ok()) {
      timeline::Span span("write");
      status = steps.write(item);
    }
    // The file's image and bytes are not needed any more.
    item.image = Image();
    item.bytes = {};
    {
      std::lock_guard<std::mutex> lock(mutex);
      --in_flight;
    }
    file_done.notify_one();
    return status;
  };
  std::vector<std::future<Status>> files(n);
  size_t reported = 0;
  for (size_t i = 0; i < n; ++i) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      file_done.wait(lock, [&] { return in_flight < in_flight_limit; });
      ++in_flight;
    }
    files[i] = std::async(std::launch::async, [&one_file, &item = items[i]] { return one_file(item); });
    while (reported < i && files[reported].wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      reporter.finished(items[reported], files[reported].get());
      ++reported;
    }
  }
  for (; reported < n; ++reported) reporter.finished(items[reported], files[reported].get());
  if (const std::string problem = timeline::write_recorded(); !problem.empty())
    std::fprintf(stderr, "mallat %s: %s\n", command.c_str(), problem.c_str());
  return reporter.summary();
}

}  // namespace mallat::tools

#include "common/timeline.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace mallat::timeline {
namespace {

struct Entry {
  const char* what;
  Clock::time_point start, end;
  Tag tag;
  std::string detail;
};

struct Recorder {
  std::string path;
  Clock::time_point origin = Clock::now();
  std::mutex mutex;
  std::vector<Entry> entries;
};

// Never destroyed: threads may record while the process leaves.
Recorder* recorder() {
  static Recorder* r = [] {
    const char* path = std::getenv("MALLAT_TIMELINE");
    if (path == nullptr || *path == '\0') return static_cast<Recorder*>(nullptr);
    auto* made = new Recorder;
    made->path = path;
    made->entries.reserve(1 << 16);
    return made;
  }();
  return r;
}

thread_local Tag tag_of_thread;

double ms_since(Clock::time_point origin, Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(t - origin).count();
}

}  // namespace

bool enabled() { return recorder() != nullptr; }

Tag current_tag() { return tag_of_thread; }
void set_tag(Tag tag) { tag_of_thread = tag; }

void record(const char* what, Clock::time_point start, Clock::time_point end, Tag tag, const std::string& detail) {
  Recorder* r = recorder();
  if (r == nullptr) return;
  std::lock_guard<std::mutex> lock(r->mutex);
  r->entries.push_back({what, start, end, tag, detail});
}

std::string write_recorded() {
  Recorder* r = recorder();
  if (r == nullptr) return {};
  std::lock_guard<std::mutex> lock(r->mutex);
  std::FILE* f = std::fopen(r->path.c_str(), "w");
  if (f == nullptr) return "cannot write the timeline to " + r->path;
  std::fprintf(f, "file,lane,what,start_ms,end_ms,detail\n");
  for (const Entry& e : r->entries) {
    std::fprintf(f, "%d,%d,%s,%.3f,%.3f,%s\n", e.tag.file, e.tag.lane, e.what, ms_since(r->origin, e.start),
                 ms_since(r->origin, e.end), e.detail.c_str());
  }
  return std::fclose(f) == 0 ? std::string() : "cannot write the timeline to " + r->path;
}

}  // namespace mallat::timeline

// A batch's timeline (what serialises a batch of files on the device): spans
// of work with the file and lane they belong to, recorded by the command
// line's batch (read, code, write), the codec's stages and
// the hybrid block coders' device rounds, written as CSV at the end for
// bench/timeline_summary.py. Off unless the environment
// names a file (MALLAT_TIMELINE=FILE); when off a span costs one test of a
// cached flag.
#pragma once

#include <chrono>
#include <string>

namespace mallat::timeline {

using Clock = std::chrono::steady_clock;

// Whether MALLAT_TIMELINE was set when first asked.
bool enabled();

// The file (its index in the batch) and lane (batch.h) the calling thread
// works for; -1 when none.
struct Tag {
  int file = -1;
  int lane = -1;
};
Tag current_tag();
void set_tag(Tag tag);

// Records [start, end) of `what` for `tag`; `detail` is free text without
// commas (key=value pairs separated by spaces).
void record(const char* what, Clock::time_point start, Clock::time_point end, Tag tag,
            const std::string& detail = {});

// Records the time from its making to its end for the calling thread's tag.
class Span {
 public:
  explicit Span(const char* what) : what_(enabled() ? what : nullptr) {
    if (what_) start_ = Clock::now();
  }
  ~Span() {
    if (what_) record(what_, start_, Clock::now(), current_tag());
  }
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;

 private:
  const char* what_;
  Clock::time_point start_;
};

// Writes what was recorded to MALLAT_TIMELINE's file: a header, then one line
// per span "file,lane,what,start_ms,end_ms,detail" (ms since the first
// enabled() call), in the order recorded. Returns an error message, or empty.
std::string write_recorded();

}  // namespace mallat::timeline

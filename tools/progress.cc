// Progress lines and bar of a batch (progress.h).
#include "tools/progress.h"

#include <cmath>
#include <utility>
#include <unistd.h>

namespace mallat::tools {
namespace {

// A plain line at most this often when stderr is not a terminal.
constexpr double kLineInterval_s = 3.0;
constexpr int kBarWidth = 24;

}  // namespace

Progress::Style Progress::style_for(std::FILE* stream, bool quiet) {
  if (quiet) return Style::kQuiet;
  return isatty(fileno(stream)) ? Style::kTerminal : Style::kLines;
}

Progress::Progress(std::string command, int64_t total_files, Style style, std::FILE* stream)
    : command_(std::move(command)), total_(total_files), style_(style), stream_(stream) {
  start_ = last_line_ = std::chrono::steady_clock::now();
  if (style_ == Style::kTerminal) draw();
}

double Progress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string Progress::status_text() const {
  const double elapsed = elapsed_s();
  char text[160];
  const double mps = elapsed > 0 ? static_cast<double>(pixels_) / 1e6 / elapsed : 0.0;
  int n = std::snprintf(text, sizeof text, "%lld/%lld files, %.1f MP/s", static_cast<long long>(done_),
                        static_cast<long long>(total_), mps);
  // Time left from the files' mean time so far.
  if (done_ > 0 && done_ < total_) {
    const double left = elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_);
    std::snprintf(text + n, sizeof text - static_cast<size_t>(n), ", %.0f s left", std::ceil(left));
  }
  return text;
}

void Progress::draw() {
  const int filled = total_ > 0 ? static_cast<int>(kBarWidth * done_ / total_) : kBarWidth;
  const std::string bar = std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(kBarWidth - filled), '.');
  // \r back to the line's start, \033[K clears what a longer line left.
  std::fprintf(stream_, "\r\033[K%s [%s] %s", command_.c_str(), bar.c_str(), status_text().c_str());
  std::fflush(stream_);
  bar_shown_ = true;
}

void Progress::file_done(uint64_t pixels) {
  ++done_;
  pixels_ += pixels;
  if (style_ == Style::kTerminal) {
    draw();
  } else if (style_ == Style::kLines && done_ < total_) {
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last_line_).count() >= kLineInterval_s) {
      std::fprintf(stream_, "%s: %s\n", command_.c_str(), status_text().c_str());
      last_line_ = now;
    }
  }
}

void Progress::message(const std::string& line) {
  if (bar_shown_) std::fputs("\r\033[K", stream_);
  std::fprintf(stream_, "%s\n", line.c_str());
  if (style_ == Style::kTerminal) draw();
}

void Progress::finish() {
  if (style_ == Style::kTerminal) {
    draw();
    std::fputc('\n', stream_);
    bar_shown_ = false;
  } else if (style_ == Style::kLines) {
    std::fprintf(stream_, "%s: %s\n", command_.c_str(), status_text().c_str());
  }
  std::fflush(stream_);
}

}  // namespace mallat::tools

// Progress of a batch on stderr (`mallat encode`/`decode` of several files):
// on a terminal one line redrawn in place (a bar, files done / total,
// megapixels per second, time left); elsewhere (a log, a pipe) a plain line
// at most every few seconds and one at the end; nothing when quiet.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace mallat::tools {

class Progress {
 public:
  enum class Style { kQuiet, kTerminal, kLines };

  // kTerminal when `stream` is a terminal, else kLines; kQuiet when quiet.
  static Style style_for(std::FILE* stream, bool quiet);

  Progress(std::string command, int64_t total_files, Style style, std::FILE* stream = stderr);

  // One file finished (written or failed) with `pixels` pixels coded.
  void file_done(uint64_t pixels);
  // Prints a message line (a note, a warning, an error) without breaking
  // the bar: the bar is cleared, the line printed, the bar drawn again.
  void message(const std::string& line);
  // The last progress line (kLines) or the bar's final state, ended.
  void finish();

  double elapsed_s() const;
  uint64_t pixels() const { return pixels_; }
  // "3/16 files, 41.2 MP/s, 9 s left": what each line or the bar says.
  std::string status_text() const;

 private:
  void draw();

  std::string command_;
  int64_t total_;
  Style style_;
  std::FILE* stream_;
  int64_t done_ = 0;
  uint64_t pixels_ = 0;
  std::chrono::steady_clock::time_point start_, last_line_;
  bool bar_shown_ = false;
};

}  // namespace mallat::tools

// Whole-file reading and atomic writing. The codec reads and writes .j2k/.jp2
// through these too, so that every output in mallat appears complete or not
// at all.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace mallat::io {

// Files larger than this are refused unless the caller asks for more: a
// bound on what one read may allocate.
inline constexpr uint64_t kDefaultMaxFileBytes = uint64_t{4} << 30;  // 4 GiB

// The whole file. Errors name the file: missing, unreadable, a folder, or
// larger than max_bytes (checked before anything is allocated).
Result<std::vector<uint8_t>> read_file(const std::filesystem::path& path,
                                       uint64_t max_bytes = kDefaultMaxFileBytes);

// A file read in pieces at given offsets (pread), for a reader that converts
// each piece as it comes: no buffer of the file's size is made and filled.
class InputFile {
 public:
  // Errors name the file: missing, unreadable, a folder.
  static Result<InputFile> open(const std::filesystem::path& path);
  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&&) = delete;
  ~InputFile();
  uint64_t size() const { return size_; }
  // Up to `bytes` bytes at `offset` into `out`: how many there were (fewer
  // only where the file ends; it may have shrunk since it was opened).
  Result<size_t> read_at(uint64_t offset, uint8_t* out, size_t bytes) const;

 private:
  InputFile(int fd, uint64_t size, std::string name) : fd_(fd), size_(size), name_(std::move(name)) {}
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string name_;
};

// Whether the atomic writes below also make each file durable before it
// is renamed into place: the file's data flushed to the disk (fsync), its
// writeback started as it is written, so that after a power cut a file
// under its final name holds all its bytes. Off by default, as cp, tar,
// ImageMagick and opj_decompress leave the disk's timing to the kernel
// (rsync's --fsync is likewise opt-in): a batch then waits on no disk.
// Whatever the setting, a file that fails is never left in place, and one
// that is renamed is complete for every reader of the running system. One
// setting for the process (the command line's --fsync), read by every
// writer.
void set_durable_writes(bool durable);
bool durable_writes();

// Writes `bytes` to a temporary file in the same folder and renames it onto
// `path` (atomic on POSIX file systems), flushed to the disk first when
// durable_writes(). On failure the temporary file is removed and `path` is
// left as it was.
Status write_file_atomically(const std::filesystem::path& path, std::span<const uint8_t> bytes);

// Creates a new file beside `path`, named "." + its name + tag + "-<pid>-<n>",
// open for reading and writing with the permissions of a new file; its
// descriptor (the caller closes and removes it) and, in `name`, its path;
// -1 with errno set when none could be made.
int create_file_beside(const std::filesystem::path& path, const std::string& tag, std::string* name);

// Where a writer puts a file's bytes: called with each piece in order; an
// error (which names the file) means the writer should stop and return it.
using ByteSink = std::function<Status(std::span<const uint8_t>)>;

// The same with the bytes made piece by piece: `produce` hands each piece to
// the sink it is given, so a large file need not be held whole in memory.
// When produce fails, the temporary file is removed and its error returned.
Status write_file_atomically(const std::filesystem::path& path,
                             const std::function<Status(const ByteSink&)>& produce);

// What a producer may say before its bytes: how many the file will hold, so
// that its blocks are allocated at once (fallocate, the file's size left as
// written): cheaper than the file system's allocation page by page as they
// come. A wrong
// hint or a refusal changes no byte of the file.
using SizeHint = std::function<void(uint64_t)>;
Status write_file_atomically(const std::filesystem::path& path,
                             const std::function<Status(const ByteSink&, const SizeHint&)>& produce);

}  // namespace mallat::io

// A file read through mmap, for the streamed decoder: its pages
// come from the page cache as they are touched, and release() hands back
// those touched so far, so that a decode reading a large file from top to
// bottom does not keep the whole file resident (its peak RSS counts only
// what it touched since the last release).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>

#include "common/status.h"

namespace mallat::io {

class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  ~MappedFile();

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  // The pages touched so far leave this process (MADV_DONTNEED: the next
  // touch reads them again from the page cache); the bytes stay the same.
  void release() const;

 private:
  friend Result<MappedFile> map_file(const std::filesystem::path& path);
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// The file mapped read-only. Errors name the file (missing, a folder, empty,
// unreadable).
Result<MappedFile> map_file(const std::filesystem::path& path);

}  // namespace mallat::io

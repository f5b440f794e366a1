#include "io/mapped_file.h"

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mallat::io {

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

void MappedFile::release() const {
  if (data_) ::madvise(const_cast<uint8_t*>(data_), size_, MADV_DONTNEED);
}

Result<MappedFile> map_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(name + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
    ::close(fd);
    return io_error(name + ": not a regular file with contents");
  }
  void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  const int mapped_errno = errno;
  ::close(fd);
  if (p == MAP_FAILED) return io_error(name + ": cannot map: " + std::strerror(mapped_errno));
  ::madvise(p, static_cast<size_t>(st.st_size), MADV_SEQUENTIAL);
  MappedFile file;
  file.data_ = static_cast<const uint8_t*>(p);
  file.size_ = static_cast<size_t>(st.st_size);
  return file;
}

}  // namespace mallat::io

#include "codec/encoder/coded_spill.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

namespace mallat::codec {
namespace {

// The pass tables are stored as their bytes.
static_assert(std::is_trivially_copyable_v<entropy::CodingPass>);

std::string error_text() { return std::strerror(errno); }

// An unlinked file in `folder`: O_TMPFILE where the file system has it,
// else a named one removed at once, so nothing is left behind on a crash.
Result<int> open_unlinked(const std::string& folder) {
#ifdef O_TMPFILE
  const int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
#endif
  std::string name = folder + "/mallat-coded-XXXXXX";
  std::vector<char> path(name.begin(), name.end());
  path.push_back('\0');
  const int named = ::mkstemp(path.data());
  if (named < 0) return io_error("coded-block store: cannot make a temporary file in " + folder + ": " + error_text());
  ::unlink(path.data());
  return named;
}

}  // namespace

CodedSpill::~CodedSpill() {
  if (fd_ >= 0) ::close(fd_);
}

Status CodedSpill::write_all(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = ::pwrite(fd_, p, size, static_cast<off_t>(end_));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return io_error("coded-block store in " + folder_ + ": cannot write at byte " + std::to_string(end_) + ": " +
                      error_text());
    p += n;
    size -= static_cast<size_t>(n);
    end_ += static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

Status CodedSpill::open() {
  if (fd_ >= 0) return Status::Ok();
  const char* tmp = std::getenv("TMPDIR");
  folder_ = tmp && *tmp ? tmp : "/tmp";
  MALLAT_ASSIGN_OR_RETURN(fd_, open_unlinked(folder_));
  return Status::Ok();
}

Result<SpilledBlock> CodedSpill::put(entropy::EncodedCodeBlock& block) {
  MALLAT_RETURN_IF_ERROR(open());
  SpilledBlock at{end_, static_cast<uint32_t>(block.data.size()), static_cast<uint32_t>(block.passes.size())};
  MALLAT_RETURN_IF_ERROR(write_all(block.data.data(), block.data.size()));
  MALLAT_RETURN_IF_ERROR(write_all(block.passes.data(), block.passes.size() * sizeof(entropy::CodingPass)));
  std::vector<uint8_t>().swap(block.data);
  std::vector<entropy::CodingPass>().swap(block.passes);
  ++blocks_;
  return at;
}

Result<SpilledBlock> CodedSpill::append(std::span<const uint8_t> bytes) {
  std::lock_guard<std::mutex> lock(append_mutex_);
  MALLAT_RETURN_IF_ERROR(open());
  SpilledBlock at{end_, static_cast<uint32_t>(bytes.size()), 0};
  MALLAT_RETURN_IF_ERROR(write_all(bytes.data(), bytes.size()));
  ++blocks_;
  return at;
}

Status CodedSpill::read_all(void* data, size_t size, uint64_t offset) const {
  auto* p = static_cast<uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = ::pread(fd_, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return io_error("coded-block store in " + folder_ + ": cannot read at byte " + std::to_string(offset) +
                      (n == 0 ? ": the file ends" : ": " + error_text()));
    p += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

Status CodedSpill::get(const SpilledBlock& at, entropy::EncodedCodeBlock& block) const {
  block.data.resize(at.data_bytes);
  block.passes.resize(at.passes);
  MALLAT_RETURN_IF_ERROR(read_all(block.data.data(), at.data_bytes, at.offset));
  return read_all(block.passes.data(), at.passes * sizeof(entropy::CodingPass), at.offset + at.data_bytes);
}

Status CodedSpill::read(const SpilledBlock& at, std::span<uint8_t> out) const {
  if (out.size() != at.data_bytes) return internal_error("coded-block store: a read of another size than was stored");
  return read_all(out.data(), out.size(), at.offset);
}

}  // namespace mallat::codec

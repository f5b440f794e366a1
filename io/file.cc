#include "io/file.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/large_buffer.h"

namespace mallat::io {
namespace {

std::string errno_text() { return std::strerror(errno); }

// Written bytes after which their disk write is started (sync_file_range).
constexpr uint64_t kWritebackBytes = uint64_t{4} << 20;
// Pieces smaller than kWriteAsTheyAreBytes are gathered and written
// together, up to this much: a file made in many small pieces (a packet
// each) would otherwise cost a system call a piece.
constexpr size_t kGatherBytes = size_t{1} << 20;
// Pieces of this much or more go to the file as they are (after what was
// gathered before them): a streamed decode's strips, a few hundred KB
// each, would otherwise be copied once more for few calls saved.
constexpr size_t kWriteAsTheyAreBytes = size_t{1} << 17;
// read_file's pieces.
constexpr size_t kReadPieceBytes = size_t{1} << 17;

std::atomic<bool> durable{false};

// Closes the descriptor when it goes out of scope, so early returns cannot leak it.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { close(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // Returns false when close() reports an error (a late write failure on some systems).
  bool close() {
    if (fd_ < 0) return true;
    int rc = ::close(fd_);
    fd_ = -1;
    return rc == 0;
  }

 private:
  int fd_;
};

}  // namespace

Result<std::vector<uint8_t>> read_file(const std::filesystem::path& path, uint64_t max_bytes) {
  const std::string name = path.string();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return io_error(name + ": is a folder, not a file");
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return io_error(name + ": cannot open: " + errno_text());
  off_t end = ::lseek(fd.get(), 0, SEEK_END);
  if (end < 0 || ::lseek(fd.get(), 0, SEEK_SET) < 0)
    return io_error(name + ": cannot find the file size: " + errno_text());
  if (static_cast<uint64_t>(end) > max_bytes)
    return resource_limit(name + ": file of " + std::to_string(end) + " bytes exceeds the limit of " +
                          std::to_string(max_bytes) + " bytes");
  std::vector<uint8_t> bytes;
  try {
    reserve_large(bytes, static_cast<size_t>(end));
  } catch (const std::bad_alloc&) {
    return resource_limit(name + ": out of memory for " + std::to_string(end) + " bytes");
  }
  // Read through a small buffer that stays in the cache and appended: the
  // file's bytes are then written to the large buffer once, where reading
  // into it in place would have it zero-filled first (a vector's elements
  // are made before they are written).
  thread_local std::vector<uint8_t> piece(kReadPieceBytes);
  while (bytes.size() < static_cast<size_t>(end)) {
    const size_t want = std::min(piece.size(), static_cast<size_t>(end) - bytes.size());
    ssize_t n = ::read(fd.get(), piece.data(), want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io_error(name + ": read failed: " + errno_text());
    if (n == 0) break;  // the file shrank while we read it
    bytes.insert(bytes.end(), piece.data(), piece.data() + n);
  }
  return bytes;
}

Result<InputFile> InputFile::open(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return io_error(name + ": is a folder, not a file");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(name + ": cannot open: " + errno_text());
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const std::string reason = errno_text();
    ::close(fd);
    return io_error(name + ": cannot find the file size: " + reason);
  }
  return InputFile(fd, static_cast<uint64_t>(st.st_size), name);
}

InputFile::InputFile(InputFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), size_(other.size_), name_(std::move(other.name_)) {}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<size_t> InputFile::read_at(uint64_t offset, uint8_t* out, size_t bytes) const {
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::pread(fd_, out + done, bytes - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io_error(name_ + ": read failed: " + errno_text());
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

void set_durable_writes(bool on) { durable.store(on, std::memory_order_relaxed); }
bool durable_writes() { return durable.load(std::memory_order_relaxed); }

int create_file_beside(const std::filesystem::path& path, const std::string& tag, std::string* name) {
  std::filesystem::path folder = path.parent_path();
  if (folder.empty()) folder = ".";
  // A fresh name beside the target keeps a rename on one file system.
  // open(O_EXCL, 0666) rather than mkstemp: the file gets the permissions a
  // new file normally gets (umask applied) without touching the process umask.
  static std::atomic<uint64_t> counter{0};
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    std::string leaf = ".";
    leaf += path.filename().string();
    leaf += tag;
    leaf += '-';
    leaf += std::to_string(::getpid());
    leaf += '-';
    leaf += std::to_string(counter++);
    *name = (folder / leaf).string();
    fd = ::open(name->c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  return fd;
}

Status write_file_atomically(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  return write_file_atomically(path, [&](const ByteSink& sink) { return sink(bytes); });
}

Status write_file_atomically(const std::filesystem::path& path,
                             const std::function<Status(const ByteSink&)>& produce) {
  return write_file_atomically(path, [&](const ByteSink& sink, const SizeHint&) { return produce(sink); });
}

Status write_file_atomically(const std::filesystem::path& path,
                             const std::function<Status(const ByteSink&, const SizeHint&)>& produce) {
  const std::string name = path.string();
  std::string tmp;
  Fd fd(create_file_beside(path, ".tmp", &tmp));
  if (fd.get() < 0) return io_error(name + ": cannot create a temporary file: " + errno_text());
  auto fail = [&](const std::string& what) {
    std::string reason = errno_text();
    fd.close();
    ::unlink(tmp.c_str());
    return io_error(name + ": " + what + ": " + reason);
  };
  const bool flush = durable_writes();
  uint64_t written = 0, flushed = 0;
  const ByteSink write = [&](std::span<const uint8_t> bytes) -> Status {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return fail("write failed");
      done += static_cast<size_t>(n);
    }
    written += bytes.size();
#ifdef __linux__
    // Start the disk write of what is complete, so that it runs while the
    // rest is made and the fsync below has less to wait for.
    if (flush && written - flushed >= kWritebackBytes) {
      ::sync_file_range(fd.get(), static_cast<off_t>(flushed), static_cast<off_t>(written - flushed),
                        SYNC_FILE_RANGE_WRITE);
      flushed = written;
    }
#endif
    return Status::Ok();
  };
  std::vector<uint8_t> gathered;
  auto write_gathered = [&]() -> Status {
    if (gathered.empty()) return Status::Ok();
    const Status s = write(gathered);
    gathered.clear();
    return s;
  };
  const ByteSink sink = [&](std::span<const uint8_t> bytes) -> Status {
    if (bytes.size() >= kWriteAsTheyAreBytes) {
      MALLAT_RETURN_IF_ERROR(write_gathered());
      return write(bytes);
    }
    if (gathered.size() + bytes.size() > kGatherBytes) MALLAT_RETURN_IF_ERROR(write_gathered());
    if (gathered.capacity() == 0) gathered.reserve(kGatherBytes);
    gathered.insert(gathered.end(), bytes.begin(), bytes.end());
    return Status::Ok();
  };
  const SizeHint reserve = [&](uint64_t bytes) {
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
    // Unwritten blocks past the end: the size stays what is written.
    if (bytes > 0) (void)::fallocate(fd.get(), FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(bytes));
#else
    (void)bytes;
#endif
  };
  Status produced = produce(sink, reserve);
  if (produced.ok()) produced = write_gathered();
  if (!produced.ok()) {
    fd.close();
    ::unlink(tmp.c_str());
    return produced;
  }
  if (flush && ::fsync(fd.get()) != 0) return fail("fsync failed");
  if (!fd.close()) {
    ::unlink(tmp.c_str());
    return io_error(name + ": close failed: " + errno_text());
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string reason = errno_text();
    ::unlink(tmp.c_str());
    return io_error(name + ": cannot rename the temporary file into place: " + reason);
  }
  return Status::Ok();
}

}  // namespace mallat::io

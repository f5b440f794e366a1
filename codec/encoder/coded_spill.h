// Coded code-blocks kept on disk between Tier-1 and Tier-2: a
// streamed encode of a very large image holds every code-block's bytes until
// the packets are written, since the packet order (B.12) is not the order
// in which the rows of code-blocks are coded. Past a budget the blocks' bytes
// and pass tables go to an unlinked temporary file in $TMPDIR (else /tmp),
// appended as each row of code-blocks is coded, and are read back one block
// at a time as Tier-2 writes its packets; only where each lies stays in
// memory. The file is gone when the store is.
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <string>

#include "common/status.h"
#include "entropy/ebcot/ebcot.h"

namespace mallat::codec {

// Where one block's coding lies in the store.
struct SpilledBlock {
  uint64_t offset = 0;
  uint32_t data_bytes = 0;
  uint32_t passes = 0;
};

class CodedSpill {
 public:
  CodedSpill() = default;
  CodedSpill(const CodedSpill&) = delete;
  CodedSpill& operator=(const CodedSpill&) = delete;
  ~CodedSpill();

  // Appends the block's bytes and passes (the file is made on the first
  // call) and empties them in `block`, their memory freed.
  Result<SpilledBlock> put(entropy::EncodedCodeBlock& block);
  // Reads what put() stored back into `block` (its other fields unchanged).
  Status get(const SpilledBlock& at, entropy::EncodedCodeBlock& block) const;
  // Appends `bytes` alone (no passes), from any thread.
  Result<SpilledBlock> append(std::span<const uint8_t> bytes);
  // Reads what append() stored into `out` (its size); from any thread.
  Status read(const SpilledBlock& at, std::span<uint8_t> out) const;

  // Whether `bytes` more of coded blocks may stay in memory under `budget`,
  // counted over every tile of the encode (the store is the encode's one);
  // they are counted when they may.
  bool keep_in_memory(uint64_t bytes, uint64_t budget) {
    if (held_ + bytes > budget) return false;
    held_ += bytes;
    return true;
  }

  uint64_t bytes() const { return end_; }
  uint64_t blocks() const { return blocks_; }

 private:
  Status open();
  Status write_all(const void* data, size_t size);
  Status read_all(void* data, size_t size, uint64_t offset) const;
  std::mutex append_mutex_;
  int fd_ = -1;
  std::string folder_;
  uint64_t end_ = 0;
  uint64_t blocks_ = 0;
  uint64_t held_ = 0;  // bytes kept in memory (keep_in_memory)
};

}  // namespace mallat::codec

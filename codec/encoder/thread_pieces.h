// Memory that the pool's threads fill at once, each writing straight into
// a large piece of its own (the lock held only to find that piece), all
// freed together: the kept indices of a streamed encode (kept_indices.h)
// and its predicted codings' bytes (ht_plane_prediction.h). Large pieces
// rather than an allocation a block keep millions of blocks' bytes in few
// (huge) pages and out of the heap that later small allocations come from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace mallat::codec {

class ThreadPieces {
 public:
  // The rest of one thread's piece, from `at`: only that thread moves it.
  struct Piece {
    std::thread::id thread;
    uint8_t* at = nullptr;
    size_t left = 0;
  };

  explicit ThreadPieces(size_t piece_bytes) : piece_bytes_(piece_bytes) {}

  // The calling thread's piece with room for `bytes` (a new piece where its
  // own has less): the caller writes from `at` and moves `at` and `left` on
  // by what it wrote.
  Piece& room(size_t bytes);
  // Frees every piece.
  void clear();

 private:
  size_t piece_bytes_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Piece>> thread_pieces_;
  std::vector<std::unique_ptr<std::byte[]>> pieces_;
};

}  // namespace mallat::codec

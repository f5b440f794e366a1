#include "codec/encoder/thread_pieces.h"

#include <algorithm>

#include "common/large_buffer.h"

namespace mallat::codec {

ThreadPieces::Piece& ThreadPieces::room(size_t bytes) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const std::thread::id thread = std::this_thread::get_id();
  auto own = std::find_if(thread_pieces_.begin(), thread_pieces_.end(),
                          [thread](const std::unique_ptr<Piece>& p) { return p->thread == thread; });
  if (own == thread_pieces_.end()) {
    thread_pieces_.push_back(std::make_unique<Piece>());
    thread_pieces_.back()->thread = thread;
    own = thread_pieces_.end() - 1;
  }
  Piece& piece = **own;
  if (piece.left < bytes) {
    const size_t size = std::max(piece_bytes_, bytes);
    pieces_.push_back(allocate_large(size));
    piece.at = reinterpret_cast<uint8_t*>(pieces_.back().get());
    piece.left = size;
  }
  return piece;
}

void ThreadPieces::clear() {
  const std::lock_guard<std::mutex> lock(mutex_);
  thread_pieces_.clear();
  pieces_.clear();
}

}  // namespace mallat::codec

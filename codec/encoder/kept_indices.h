// The quantisation indices of a streamed encode's HT code-blocks, kept
// between quantisation and the coding at the planes that rate control by
// estimates chooses (ht_rate.h): the image's rows are gone by then, and the
// one slope for a size target needs every block's estimate first. Each
// block's indices are packed (packed_indices.h: each group of 8 at the bits
// its largest needs, those no plane makes significant as zeros), in large
// pieces of memory while those kept stay under a budget, past it in an
// unlinked file (coded_spill.h), read back when the block is coded. Each
// thread packs straight into a piece of its own: no copy, and the lock held
// only to find that piece.
//
// Where a tile's indices as they are fit half the budget (with what is held
// already), they are kept so instead: each block's in the fewest bytes
// (int8, int16 or int32) that its largest magnitude needs (its HT plane
// statistics give it), in one piece for the tile that the tile asks for
// before its first block is kept, with room for each block at the bytes
// its Mb + F bits need (the 9/7's indices are clipped below 2^(Mb + F)).
// No packing and no unpacking: the tile's choice depends on the image and
// the options alone, and a block kept either way codes to the same bytes
// (packed_indices.h: the indices packed as zeros code and measure as
// zeros).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "codec/encoder/coded_spill.h"
#include "common/plane_view.h"
#include "common/status.h"

namespace mallat::codec {

// Where one block's packed indices lie.
struct KeptIndices {
  const uint8_t* memory = nullptr;  // null when on disk
  SpilledBlock spilled;
  uint32_t bytes = 0;  // packed, or as they are
  // 1, 2 or 4: `memory` holds the indices as they are, int8, int16 or
  // int32, row by row; 0: packed.
  uint8_t index_bytes = 0;
};

// The bytes an index takes kept as it is where every magnitude lies below
// 2^magnitude_bits: 1, 2 or 4.
inline int kept_index_bytes(int magnitude_bits) { return magnitude_bits <= 7 ? 1 : magnitude_bits <= 15 ? 2 : 4; }

// Memory for indices kept as they are that outlives one encode: a batch
// lane's (CallResources::kept_indices), reused by its next file, whose
// pages are then in place already rather than faulted in and cleared
// afresh. It grows to the largest room a file asked for.
struct KeptIndexMemory {
  std::unique_ptr<std::byte[]> bytes;
  uint64_t size = 0;
};

// A tile's room for its blocks' indices as they are (raw_room's), taken a
// block at a time from any thread.
struct KeptRoom {
  uint8_t* memory = nullptr;
  uint64_t size = 0;
  std::atomic<uint64_t> used = 0;
};

class KeptIndexStore {
 public:
  // Up to `budget` bytes of packed indices stay in memory; the first room
  // for indices as they are from `reused` where given.
  explicit KeptIndexStore(uint64_t budget, KeptIndexMemory* reused = nullptr) : budget_(budget), reused_(reused) {}

  // Packs `indices` (two's complement, row by row, `fraction_bits` below
  // each index) and keeps them; from any thread.
  Result<KeptIndices> keep(PlaneView<const int32_t> indices, int fraction_bits);
  // The indices keep() kept, into `out` (the block's size), each of
  // magnitude below 2^fraction_bits as 0; from any thread.
  Status read(const KeptIndices& at, PlaneView<int32_t> out) const;

  // Room for a tile's indices as they are, `bytes` in all, where those and
  // the bytes held stay within half the budget; null where they do not.
  // Only while no keep() is under way (before a tile's first block), so
  // that the answer depends on the image and options alone.
  uint8_t* raw_room(uint64_t bytes);
  // Keeps `indices`, every magnitude below 2^magnitude_bits, as they are
  // (kept_index_bytes each) in `room` (raw_room's, counted at `most_bytes`
  // an index, a cache line a block); from any thread. Nothing where they
  // need more than `most_bytes` (a 5/3 index is not clipped to Mb bits):
  // the caller packs that block instead.
  static std::optional<KeptIndices> keep_raw(PlaneView<const int32_t> indices, int magnitude_bits, int most_bytes,
                                             KeptRoom& room);

  uint64_t bytes_in_memory() const { return held_; }
  uint64_t bytes_on_disk() const { return file_.bytes(); }

 private:
  // The rest of one thread's piece, from `at`: only that thread moves it.
  struct ThreadPiece {
    std::thread::id thread;
    uint8_t* at = nullptr;
    size_t left = 0;
  };

  // This thread's piece with room for `bytes` (a new piece where its own
  // has too little), the bytes held against the budget; null past it.
  ThreadPiece* room(size_t bytes);

  std::mutex mutex_;
  std::vector<std::unique_ptr<ThreadPiece>> thread_pieces_;
  uint64_t budget_ = 0;
  // Bytes packed into memory, and while a block is being packed the most it
  // may take.
  std::atomic<uint64_t> held_ = 0;
  std::vector<std::unique_ptr<std::byte[]>> pieces_;
  // The tiles' rooms for indices as they are: the first in `reused_`
  // where given, the others here.
  KeptIndexMemory* reused_ = nullptr;
  std::vector<std::unique_ptr<std::byte[]>> raw_pieces_;
  CodedSpill file_;
};

}  // namespace mallat::codec

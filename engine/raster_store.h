// Rasters a decode batch has written out, kept for its later items: the
// decoder writes over a raster given with samples (codec/api/decode.h), so
// an item that takes one touches no fresh pages and clears nothing. A
// 3840x2048 RGB raster is 24 MB, whose first touch costs the kernel's
// clearing of every page and the decoder's zeroing after it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace mallat::engine {

class RasterStore {
 public:
  // A kept raster, or an empty one where none is kept.
  std::vector<uint8_t> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (kept_.empty()) return {};
    std::vector<uint8_t> r = std::move(kept_.back());
    kept_.pop_back();
    return r;
  }
  // Keeps `raster` unless `most` are kept already (or it holds nothing).
  void give(std::vector<uint8_t>&& raster, size_t most) {
    if (raster.empty()) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (kept_.size() < most) kept_.push_back(std::move(raster));
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    kept_.clear();
  }

 private:
  std::mutex mutex_;
  std::vector<std::vector<uint8_t>> kept_;
};

}  // namespace mallat::engine

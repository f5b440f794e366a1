#include "engine/lanes.h"

#include <algorithm>
#include <utility>

namespace mallat::engine {

int LaneSet::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int>(lanes_.size());
}

Status LaneSet::grow_to(int count, const std::function<Result<std::unique_ptr<Lane>>()>& make) {
  std::lock_guard<std::mutex> lock(mutex_);
  while (static_cast<int>(lanes_.size()) < count) {
    MALLAT_ASSIGN_OR_RETURN(std::unique_ptr<Lane> lane, make());
    lanes_.push_back(std::move(lane));
    busy_.push_back(false);
  }
  return Status::Ok();
}

std::vector<Lane*> LaneSet::all() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Lane*> all;
  for (const auto& lane : lanes_) all.push_back(lane.get());
  return all;
}

LaneSet::Held LaneSet::acquire(int limit) {
  std::unique_lock<std::mutex> lock(mutex_);
  const size_t end = limit > 0 ? std::min(busy_.size(), static_cast<size_t>(limit)) : busy_.size();
  const auto first_free = [&] {
    return static_cast<size_t>(std::find(busy_.begin(), busy_.begin() + static_cast<std::ptrdiff_t>(end), false) -
                               busy_.begin());
  };
  freed_.wait(lock, [&] { return first_free() < end; });
  const size_t index = first_free();
  busy_[index] = true;
  return Held(this, static_cast<int>(index));
}

void LaneSet::release(int index) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    busy_[static_cast<size_t>(index)] = false;
  }
  freed_.notify_all();
}

}  // namespace mallat::engine

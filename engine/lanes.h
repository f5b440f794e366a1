// An engine's lanes: each a thread pool and a DWT backend of its own (their
// calls run one at a time) with the call resources (codec/stages/
// call_resources.h) that the lanes share: the device coder and the device
// runner's context. A codec call takes a free lane for its duration, so a
// batch's items and single calls share the lanes without overlapping on one.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "codec/api/stage_times.h"
#include "codec/stages/call_resources.h"
#include "common/job_thread.h"
#include "common/status.h"
#include "common/thread_pool.h"

namespace mallat::engine {

struct Lane {
  std::unique_ptr<ThreadPool> pool;
  std::unique_ptr<codec::StageTimes> times;
  // dwt and pool set to this lane's; the device's coders and context as
  // the engine placed them.
  codec::CallResources resources;
  // Where a batch codes the lane's items (batch_pipeline.h): the memory an
  // item's coding allocates and frees then comes from this thread's malloc
  // arena, warm after the lane's first item, rather than from one of the
  // batch's item threads, more of them than lanes, each fresh at its first.
  JobThread coder;
  // resources.release: a streamed encode's buffers and coded blocks freed
  // after its file is written (codec/stages/call_resources.h).
  JobThread release;
};

class LaneSet {
 public:
  // A lane held by one caller until destroyed.
  class Held {
   public:
    Held(LaneSet* set, int index) : set_(set), index_(index) {}
    Held(Held&& other) noexcept : set_(other.set_), index_(other.index_) { other.set_ = nullptr; }
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;
    Held& operator=(Held&&) = delete;
    ~Held() {
      if (set_) set_->release(index_);
    }
    int index() const { return index_; }
    Lane& lane() const { return *set_->lanes_[static_cast<size_t>(index_)]; }

   private:
    LaneSet* set_;
    int index_;
  };

  int size() const;
  // Adds lanes made by `make` until there are `count`; an error of `make`
  // leaves the lanes made so far.
  Status grow_to(int count, const std::function<Result<std::unique_ptr<Lane>>()>& make);
  // Every lane, for setting what they share (no lane may be held).
  std::vector<Lane*> all();
  // Waits for a free lane among the first `limit` (all when 0) and holds it.
  Held acquire(int limit = 0);

 private:
  void release(int index);

  mutable std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::vector<bool> busy_;
};

}  // namespace mallat::engine

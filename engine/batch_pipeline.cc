#include "engine/batch_pipeline.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "common/timeline.h"

namespace mallat::engine {
namespace {

// A batch allocates the same large buffers item after item (a 3840x2048
// RGB raster is 23.6 MB). glibc maps each above its adaptive threshold
// afresh and unmaps it when freed, so every item pays the kernel's page
// faults and clearing again; up to 32 MB (glibc's most for the threshold)
// they are kept in the heap instead, and freed memory is not trimmed back
// to the system (the process's memory stays at its peak until it exits).
void keep_large_blocks() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

}  // namespace

void run_pipeline(size_t count, LaneSet& lanes, int lanes_used, int ahead, const PipelineSteps& steps) {
  keep_large_blocks();
  lanes_used = std::max(lanes_used, 1);
  const size_t in_flight_limit = static_cast<size_t>(lanes_used) + static_cast<size_t>(ahead < 1 ? 1 : ahead);
  std::mutex mutex;
  std::condition_variable item_done;
  size_t in_flight = 0;
  const auto read_and_code = [&](size_t i) {
    timeline::set_tag({static_cast<int>(i), -1});
    Status status;
    {
      timeline::Span span("read");
      status = steps.read(i);
    }
    if (!status.ok()) return status;
    LaneSet::Held lane = [&] {
      timeline::Span span("lane_wait");
      return lanes.acquire(lanes_used);
    }();
    timeline::set_tag({static_cast<int>(i), lane.index()});
    timeline::Span span("code");
    return steps.code(i, lane.lane());
  };
  const auto one_item = [&](size_t i) {
    Status status = read_and_code(i);
    if (status.ok()) {
      timeline::Span span("write");
      status = steps.write(i);
    }
    if (steps.release) steps.release(i);
    {
      std::lock_guard<std::mutex> lock(mutex);
      --in_flight;
    }
    item_done.notify_one();
    return status;
  };
  std::vector<std::future<Status>> items(count);
  size_t reported = 0;
  for (size_t i = 0; i < count; ++i) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      item_done.wait(lock, [&] { return in_flight < in_flight_limit; });
      ++in_flight;
    }
    items[i] = std::async(std::launch::async, [&one_item, i] { return one_item(i); });
    while (reported < i && items[reported].wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      steps.finished(reported, items[reported].get());
      ++reported;
    }
  }
  for (; reported < count; ++reported) steps.finished(reported, items[reported].get());
}

}  // namespace mallat::engine

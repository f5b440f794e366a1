#include "engine/batch_pipeline.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "common/help_board.h"
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

// What `step` throws becomes the item's error, as it did through
// std::async's future, rather than ending the process.
template <class Step>
Status guarded(const Step& step) {
  try {
    return step();
  } catch (const std::bad_alloc&) {
    return resource_limit("out of memory");
  } catch (const std::exception& e) {
    return internal_error(e.what());
  }
}

}  // namespace

void run_pipeline(size_t count, LaneSet& lanes, int lanes_used, int ahead, const PipelineSteps& steps) {
  keep_large_blocks();
  lanes_used = std::max(lanes_used, 1);
  const size_t in_flight_limit = static_cast<size_t>(lanes_used) + static_cast<size_t>(ahead < 1 ? 1 : ahead);
  std::mutex mutex;
  std::condition_variable item_done;
  // The lanes' pools post their calls here while they code an item; the
  // item threads with no item left to start help them (help_board.h).
  HelpBoard board(lanes_used);
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
    // On the lane's own thread (Lane::coder), which the item thread waits for.
    const timeline::Tag tag{static_cast<int>(i), lane.index()};
    timeline::set_tag(tag);
    Lane& held = lane.lane();
    // The lane's pool on the board while it codes, and off it again
    // whatever happens: the lane outlives the batch's board.
    struct OnBoard {
      ThreadPool& pool;
      HelpBoard& board;
      OnBoard(ThreadPool& p, HelpBoard& b) : pool(p), board(b) {
        pool.take_help_from(&board);
        board.coding_begins();
      }
      ~OnBoard() {
        board.coding_ends();
        pool.take_help_from(nullptr);
      }
    } on_board(*held.pool, board);
    held.coder.start([&, tag] {
      timeline::set_tag(tag);
      timeline::Span span("code");
      return guarded([&] { return steps.code(i, held); });
    });
    return held.coder.wait();
  };
  const auto one_item = [&](size_t i) {
    Status status = read_and_code(i);
    if (status.ok()) {
      timeline::Span span("write");
      status = steps.write(i);
    }
    if (steps.release) steps.release(i);
    return status;
  };
  // The items run on `in_flight_limit` threads made once for the batch,
  // each taking the next item in order: a thread made per item would cost
  // its start-up, a cold stack and, in glibc, an arena of its own whose
  // memory the next items do not reuse.
  std::vector<Status> statuses(count);
  std::vector<char> done(count, 0);
  size_t next = 0, finished = 0;
  // A thread with no item left to start helps the items still coding until
  // every item is done.
  const auto worker = [&] {
    for (;;) {
      size_t i;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (next == count) break;
        i = next++;
      }
      Status status = guarded([&] { return one_item(i); });
      bool last;
      {
        std::lock_guard<std::mutex> lock(mutex);
        statuses[i] = std::move(status);
        done[i] = 1;
        last = ++finished == count;
      }
      item_done.notify_all();
      if (last) board.finish();
    }
    board.help();
  };
  std::vector<std::thread> threads;
  for (size_t t = 0; t < std::min(in_flight_limit, count); ++t) threads.emplace_back(worker);
  for (size_t reported = 0; reported < count; ++reported) {
    Status status;
    {
      std::unique_lock<std::mutex> lock(mutex);
      item_done.wait(lock, [&] { return done[reported] != 0; });
      status = std::move(statuses[reported]);
    }
    steps.finished(reported, status);
  }
  for (std::thread& thread : threads) thread.join();
}

}  // namespace mallat::engine
